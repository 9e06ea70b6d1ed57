//! OpenMP reductions other than `+` (`reduction(max:m)`, `min`, `*`) made differentiable
//! before differentiation. clang emits two methods for each: a critical section
//! (`m = m > p ? m : p` under the runtime's lock, result 1 of `__kmpc_reduce[_nowait]`) and an
//! atomic one (result 2), a compare-and-swap loop whose order no derivative can follow. libomp
//! picks the atomic method only when the source location says the compiler generated it
//! (`KMP_IDENT_ATOMIC_REDUCE` in `ident_t.flags`); a copy of the location without that flag
//! makes it choose the critical method (or, on one thread, no lock at all; result 1 both
//! times), and the loop becomes unreachable and is removed. The critical sections' adjoints are
//! then reversed in the reverse of the order the threads ran them (`reverse/openmp.rs`).
//!
//! Guarantee: only a reduction whose atomic method is a compare-and-swap is rewritten, in the
//! functions the requests reach; the primal computes the same reduction (by the other method
//! the runtime offers).

use crate::ir::{run_function_passes, Opcode, Val};
use std::collections::HashSet;

/// `KMP_IDENT_ATOMIC_REDUCE`: the compiler generated the atomic method.
const ATOMIC_REDUCE: i64 = 0x10;

/// Rewrites the compare-and-swap reductions of `functions` (and of the bodies of their parallel
/// regions) to their critical method.
pub fn critical_reductions(functions: &HashSet<Val>) -> crate::diag::Result<()> {
    for &f in functions {
        let mut changed = false;
        for b in f.blocks() {
            for c in b.instructions() {
                changed |= rewrite(c);
            }
        }
        if changed {
            // The compare-and-swap loops, now unreachable.
            run_function_passes(f, "unreachableblockelim").map_err(|e| {
                crate::diag::Error::in_function(f, format!("canonicalisation failed: {e}"))
            })?;
        }
    }
    Ok(())
}

/// Rewrites `call` when it is a reduction whose atomic method (case 2 of the `switch` on its
/// result) holds a compare-and-swap: a location without the atomic flag, case 2 to the
/// default. True when it did.
fn rewrite(call: Val) -> bool {
    let Some(name) = call
        .is_call()
        .then(|| call.called_function())
        .flatten()
        .map(|f| f.name())
    else {
        return false;
    };
    if name != "__kmpc_reduce_nowait" && name != "__kmpc_reduce" {
        return false;
    }
    let Some(sw) = call
        .users()
        .into_iter()
        .find(|u| u.opcode() == Opcode::LLVMSwitch && u.operand(0) == call)
    else {
        return false;
    };
    let succ = sw.successors();
    let Some(k) =
        (1..succ.len()).find(|&k| sw.switch_case_value(k as u32).const_int_sext() == Some(2))
    else {
        return false;
    };
    if !has_cmpxchg(succ[k], succ[0]) {
        return false;
    }
    let Some(loc) = non_atomic_location(call.call_args()[0]) else {
        return false;
    };
    call.set_operand(0, loc);
    sw.set_successor(k as u32, succ[0]);
    true
}

/// True when the blocks reached from `from` without passing `merge` hold a `cmpxchg`.
fn has_cmpxchg(from: crate::ir::Block, merge: crate::ir::Block) -> bool {
    let mut todo = vec![from];
    let mut seen = HashSet::new();
    while let Some(b) = todo.pop() {
        if b == merge || !seen.insert(b) || seen.len() > 64 {
            continue;
        }
        let insts = b.instructions();
        if insts
            .iter()
            .any(|i| i.opcode() == Opcode::LLVMAtomicCmpXchg)
        {
            return true;
        }
        if let Some(t) = insts.last() {
            todo.extend(t.successors());
        }
    }
    false
}

/// A private copy of the `ident_t` global `loc` without [`ATOMIC_REDUCE`] in its flags.
fn non_atomic_location(loc: Val) -> Option<Val> {
    if !loc.is_global_variable() {
        return None;
    }
    let init = loc.initializer()?;
    let ty = init.ty();
    let fields = ty.struct_fields();
    if fields.len() != 5 {
        return None;
    }
    let mut parts: Vec<Val> = (0..5)
        .map(|k| init.aggregate_element(k))
        .collect::<Option<_>>()?;
    let flags = parts[1].const_int_sext()?;
    if flags & ATOMIC_REDUCE == 0 {
        return None;
    }
    parts[1] = fields[1].int_const((flags & !ATOMIC_REDUCE) as u64);
    let m = loc.module();
    let name = format!("{}.umbra.critical", loc.name());
    if let Some(g) = m.global(&name) {
        return Some(g);
    }
    let g = m.add_global(ty, &name);
    g.set_initializer(Val::const_aggregate(ty, &parts));
    g.set_global_constant(true);
    g.set_internal();
    Some(g)
}
