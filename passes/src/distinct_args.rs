//! Callees specialised for calls whose pointer arguments are distinct stack slots of the
//! caller: the call is redirected to an internal copy of the callee whose parameters for
//! those arguments are `noalias`, and the copy is optimised again (LICM, GVN) with that
//! knowledge. An element kernel passing its gathered coordinates `xe[8]` and an output array
//! `dvdx[3][8]` to a helper lets the optimiser hoist the helper's loads of `xe` out of its
//! Gauss-point loop, which the output's stores may alias as far as the helper alone can
//! tell: reverse mode then keeps the 24 coordinates once per call instead of nine Jacobian
//! entries per Gauss point (the hydrodynamics benchmark's `volume_derivatives`).
//!
//! # Guarantees
//! - A parameter is `noalias` in a copy only when, at every call redirected to that copy, its
//!   argument points into a stack slot of the caller that nothing captures (its address only
//!   feeds address arithmetic, loads, stores into it, lifetime markers and call arguments
//!   marked `captures(none)`), and no other pointer argument of the call may point into the
//!   same slot. Then no pointer the callee can reach other than that parameter points into
//!   the slot, which is what `noalias` promises.
//! - Only callees Umbra differentiates from their bodies are copied (no user or built-in rule
//!   names them, as rules match by name), only when they may write memory (read-only callees
//!   gain nothing), are not `optnone`, not replaceable at link time and [`copyable`].
//! - The copy computes what the callee computes; the callee itself is left unchanged for its
//!   other callers.

use crate::diag::{Error, Result, DISTINCT_COPY};
use crate::ir::{copy_function, copyable, fresh_name, run_function_passes, Opcode, Val};
use crate::rules::{self, user::UserRules, Callee};
use std::collections::{BTreeMap, HashSet};

/// What the copies are optimised with: loads of `noalias` memory hoisted out of loops, and
/// stores into it kept in registers across them; loop-simplify restores the loop shape
/// canonicalisation gave.
const PIPELINE: &str = "early-cse<memssa>,loop-mssa(licm),gvn,instsimplify,loop-simplify";

/// Redirects the calls in `functions` (the functions requests reach) whose pointer arguments
/// are distinct uncaptured stack slots to copies of their callees with those parameters
/// `noalias`; the copies join `functions`.
pub fn specialise(functions: &mut HashSet<Val>, rules: &UserRules) -> Result<()> {
    let mut callers: Vec<Val> = functions
        .iter()
        .copied()
        .filter(|f| !f.is_declaration() && !f.has_fn_attr("optnone"))
        .collect();
    // By name, so that the copies' names do not depend on a hash order.
    callers.sort_by_key(|f| f.name());
    let mut copies: BTreeMap<(String, Vec<bool>), Val> = BTreeMap::new();
    for f in callers {
        for b in f.blocks() {
            for call in b.instructions() {
                if !call.is_call() {
                    continue;
                }
                let Callee::Defined(g) = rules::classify(call, rules) else {
                    continue;
                };
                if g == f || !worth_copying(g) {
                    continue;
                }
                let distinct = distinct_slot_args(call, f);
                if !distinct.contains(&true) {
                    continue;
                }
                let key = (g.name(), distinct.clone());
                let copy = match copies.get(&key) {
                    Some(&c) => c,
                    None => {
                        let c = noalias_copy(g, &distinct)?;
                        functions.insert(c);
                        copies.insert(key, c);
                        c
                    }
                };
                let callee_operand = call.num_operands() - 1;
                call.set_operand(callee_operand, copy);
            }
        }
    }
    Ok(())
}

/// True when `g` is a body Umbra differentiates that a copy with `noalias` parameters could
/// help: it writes memory, and copying it keeps its meaning.
fn worth_copying(g: Val) -> bool {
    let name = g.name();
    !g.has_fn_attr("optnone")
        && !g.is_interposable()
        && rules::lookup(&name).is_none()
        && !name.starts_with("__umbra")
        && !name.starts_with("umbra_")
        && copyable(g)
        && writes_memory(g)
}

/// True when `g`'s body has a store, or a call that is not known to leave memory alone.
fn writes_memory(g: Val) -> bool {
    g.blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .any(|i| i.opcode() == Opcode::LLVMStore || (i.is_call() && call_may_write(i)))
}

/// True unless the `memory` attributes of call `i` and its callee rule out writes (two bits
/// per kind of memory, the higher one "may modify").
fn call_may_write(i: Val) -> bool {
    let mut effects = u64::MAX;
    if let Some(v) = i.call_attr_value(u32::MAX, "memory") {
        effects &= v;
    }
    if let Some(v) = i
        .called_function()
        .and_then(|f| f.fn_attr_value(u32::MAX, "memory"))
    {
        effects &= v;
    }
    (0..32).any(|k| (effects >> (2 * k)) & 2 != 0)
}

/// Per argument of `call` (in `f`): true when it points into a stack slot of `f` that
/// nothing captures and no other pointer argument of `call` may point into.
fn distinct_slot_args(call: Val, f: Val) -> Vec<bool> {
    let args = call.call_args();
    let slots: Vec<Option<Val>> = args
        .iter()
        .enumerate()
        .map(|(k, &a)| {
            let k = k as u32;
            let plain = a.ty().is_ptr()
                && !["byval", "sret", "inalloca", "preallocated", "nest", "byref"]
                    .iter()
                    .any(|attr| call.call_arg_has_attr(k, attr));
            plain
                .then(|| slot_of(a))
                .flatten()
                .filter(|&s| s.parent_function() == Some(f) && !captured(s))
        })
        .collect();
    (0..args.len())
        .map(|k| {
            slots[k].is_some_and(|s| {
                args.iter().enumerate().all(|(j, &o)| {
                    j == k || !o.ty().is_ptr_or_ptr_vector() || !may_point_into(o, s)
                })
            })
        })
        .collect()
}

/// The stack slot `p` is an address in, through address arithmetic and casts only.
fn slot_of(p: Val) -> Option<Val> {
    let mut v = p;
    for _ in 0..64 {
        if !v.is_instruction() {
            return None;
        }
        match v.opcode() {
            Opcode::LLVMAlloca => return Some(v),
            Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => {
                v = v.operand(0)
            }
            _ => return None,
        }
    }
    None
}

/// True when pointer `p` may be an address in `slot` (uncaptured): `p` is computed from it
/// through address arithmetic, casts, phis or selects. A pointer loaded from memory, returned
/// by a call or passed in cannot be: nothing captured the slot's address.
fn may_point_into(p: Val, slot: Val) -> bool {
    let mut seen = HashSet::new();
    let mut work = vec![p];
    while let Some(v) = work.pop() {
        if v == slot {
            return true;
        }
        if !seen.insert(v) {
            continue;
        }
        if v.is_constant_expr() {
            continue;
        }
        if !v.is_instruction() {
            continue;
        }
        match v.opcode() {
            Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => {
                work.push(v.operand(0))
            }
            Opcode::LLVMPHI => work.extend(v.incoming().into_iter().map(|(x, _)| x)),
            Opcode::LLVMSelect => work.extend([v.operand(1), v.operand(2)]),
            // Anything else that makes a pointer from something other than a pointer the
            // function holds (an `inttoptr`, a `freeze`): assume it may.
            Opcode::LLVMLoad | Opcode::LLVMCall | Opcode::LLVMInvoke | Opcode::LLVMAlloca => {}
            _ => return true,
        }
    }
    false
}

/// True when some use of stack slot `s` (or of an address computed from it) may let its
/// address out: anything but address arithmetic, loads from it, stores into it, lifetime
/// markers, memory intrinsics and call arguments marked `captures(none)`.
fn captured(s: Val) -> bool {
    let mut work = vec![s];
    let mut seen = HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in v.users() {
            if !u.is_instruction() {
                return true;
            }
            let ok = match u.opcode() {
                Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast
                    if u.operand(0) == v =>
                {
                    work.push(u);
                    true
                }
                Opcode::LLVMLoad => true,
                Opcode::LLVMStore => u.operand(0) != v,
                Opcode::LLVMCall | Opcode::LLVMInvoke => {
                    u.called_value() != v
                        && u.call_args().iter().enumerate().all(|(k, &a)| {
                            a != v || u.call_arg_attr_value(k as u32, "captures") == Some(0)
                        })
                }
                _ => false,
            };
            if !ok {
                return true;
            }
        }
    }
    false
}

/// The copy of `g` whose parameters `noalias[k]` are `noalias`, optimised again.
fn noalias_copy(g: Val, noalias: &[bool]) -> Result<Val> {
    let bits: String = noalias.iter().map(|&n| if n { 'n' } else { 'm' }).collect();
    let name = format!("{}{DISTINCT_COPY}{bits}", g.name());
    let copy = copy_function(g, &fresh_name(g, &name));
    for (k, &n) in noalias.iter().enumerate() {
        if n {
            copy.add_param_attr(k as u32, "noalias");
        }
    }
    run_function_passes(copy, PIPELINE).map_err(|e| {
        Error::in_function(
            g,
            format!("optimising its copy for distinct arguments failed: {e}"),
        )
    })?;
    Ok(copy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{parse_test_module, Module};
    use inkwell::context::Context;

    /// `@quad` reads `%xe` in a loop and accumulates into `%out`: its stores may alias `%xe`
    /// as far as it can tell.
    const QUAD: &str = r#"
@sink = global ptr null
define double @quad(ptr captures(none) %xe, ptr captures(none) %out, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %a = load double, ptr %xe
  %p = getelementptr double, ptr %xe, i64 1
  %b = load double, ptr %p
  %j = fmul double %a, %b
  %o = load double, ptr %out
  %o1 = fadd double %o, %j
  store double %o1, ptr %out
  %s1 = fadd double %s, %j
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %s1
}
define double @reads_only(ptr captures(none) %xe) {
  %a = load double, ptr %xe
  ret double %a
}
"#;

    /// Runs [`specialise`] on `@caller` of `callers` (with [`QUAD`]) and returns, per call
    /// of `@caller` in order, the name of what it calls afterwards.
    fn callees_after(callers: &str) -> Vec<String> {
        let ctx = Context::create();
        let text = format!(
            "target datalayout = \"e-m:e-i64:64-f80:128-n8:16:32:64-S128\"\n{QUAD}\n{callers}"
        );
        let module = parse_test_module(&ctx, &text);
        let m = Module(module.as_mut_ptr());
        let caller = m.function("caller").expect("@caller");
        let mut functions: HashSet<Val> = m
            .functions()
            .into_iter()
            .filter(|f| !f.is_declaration())
            .collect();
        specialise(&mut functions, &UserRules::default()).expect("specialised");
        m.verify().expect("valid IR after specialising");
        caller
            .blocks()
            .into_iter()
            .flat_map(|b| b.instructions())
            .filter(|i| i.is_call() && !i.called_value().name().starts_with("llvm."))
            .map(|i| i.called_value().name())
            .collect()
    }

    #[test]
    fn distinct_slots_call_a_noalias_copy_that_hoists_the_loads() {
        let ctx = Context::create();
        let text = format!(
            "{QUAD}\ndefine double @caller() {{\n  %xe = alloca [2 x double]\n  \
             %out = alloca double\n  store double 2.0, ptr %xe\n  \
             %r = call double @quad(ptr %xe, ptr %out, i32 8)\n  ret double %r\n}}\n"
        );
        let module = parse_test_module(&ctx, &text);
        let m = Module(module.as_mut_ptr());
        let mut functions: HashSet<Val> = m
            .functions()
            .into_iter()
            .filter(|f| !f.is_declaration())
            .collect();
        specialise(&mut functions, &UserRules::default()).expect("specialised");
        m.verify().expect("valid IR");
        let copy = m.function("quad.distinct.nnm").expect("the copy");
        assert!(functions.contains(&copy));
        assert!(copy.param_has_attr(0, "noalias") && copy.param_has_attr(1, "noalias"));
        assert!(!copy.param_has_attr(2, "noalias"));
        assert!(copy.is_local_linkage());
        // The loads of %xe left the loop: they are in the entry block now.
        let entry_loads = copy.blocks()[0]
            .instructions()
            .into_iter()
            .filter(|i| i.opcode() == Opcode::LLVMLoad)
            .count();
        assert_eq!(
            entry_loads,
            2 + 1,
            "xe[0], xe[1] and the first out: {}",
            copy.print()
        );
        // The original is unchanged for other callers.
        let quad = m.function("quad").expect("@quad");
        assert!(!quad.param_has_attr(0, "noalias"));
    }

    #[test]
    fn one_slot_twice_or_a_captured_slot_keeps_the_original() {
        let got = callees_after(
            r#"
define double @caller(ptr %heap) {
  %xe = alloca [2 x double]
  %esc = alloca [2 x double]
  %r1 = call double @quad(ptr %xe, ptr %xe, i32 8)
  %x1 = getelementptr double, ptr %xe, i64 1
  %r2 = call double @quad(ptr %xe, ptr %x1, i32 8)
  store ptr %esc, ptr @sink
  %out = alloca double
  %r3 = call double @quad(ptr %esc, ptr %out, i32 8)
  %r4 = call double @quad(ptr %heap, ptr %out, i32 8)
  %o2 = alloca double
  %sel = select i1 true, ptr %xe, ptr %o2
  %r5 = call double @quad(ptr %xe, ptr %sel, i32 8)
  %r6 = call double @reads_only(ptr %xe)
  ret double %r1
}
"#,
        );
        // r1, r2: one slot for both; r3: its slot escaped, but %out is distinct; r4: the heap
        // pointer stays may-alias, %out is a distinct slot; r5: %sel may be %xe (and a
        // select lets %xe's address go where this analysis does not follow it);
        // r6: a callee that writes nothing gains nothing.
        assert_eq!(
            got,
            [
                "quad",
                "quad",
                "quad.distinct.mnm",
                "quad.distinct.mnm",
                "quad",
                "reads_only"
            ]
        );
    }
}
