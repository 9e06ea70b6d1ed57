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
//!
//! # Small helpers inlined
//! [`inline_leaf_helpers`] inlines, before differentiation, a small loop-free helper called
//! with a stack slot of its caller that nothing captures (an element kernel's `xe[8]`
//! gathered from the node fields, `B[3][8]` the helper fills), then runs SROA and GVN on the
//! caller: the slots become SSA values and the reverse planner's cut sees the gathered loads
//! the helper's arithmetic is computed from, so the tape keeps those once per element instead
//! of each helper keeping the coordinates it read (the caller overwrites the slot in its next
//! iteration, so a separate helper cannot re-read it). Bounded: the helper has no loop (a loop
//! inlined into an element loop keeps its values per iteration of it, more than the helper's
//! coordinates), calls no function with a body (so nothing recursive is inlined), is at most
//! [`INLINE_MAX_HELPER`] instructions, and no caller grows past [`INLINE_MAX_CALLER`]. LLVM's
//! inliner does the work (call-site `alwaysinline`); functions the user marked `alwaysinline`
//! are left to their usual treatment. Each inlined instruction carries the name of the helper
//! it came from ([`INLINED_FROM`]), which error messages name.

use crate::diag::{Error, Result, DISTINCT_COPY, INLINED_FROM};
use crate::ir::{
    copy_function, copyable, fresh_name, run_function_passes, Block, Builder, Module, Opcode, Ty,
    TyKind, Val,
};
use crate::rules::{self, user::UserRules, Callee};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The largest helper (in instructions) [`inline_leaf_helpers`] inlines.
pub const INLINE_MAX_HELPER: usize = 400;

/// The largest a caller (in instructions) may grow to by [`inline_leaf_helpers`].
pub const INLINE_MAX_CALLER: usize = 4000;

/// What the callers are optimised with once helpers are inlined: the slots the helpers read
/// and wrote become SSA values (SROA), stores forwarded to the loads that read them (GVN).
const AFTER_INLINING: &str =
    "sroa<modify-cfg>,early-cse<memssa>,gvn,instcombine,instsimplify,loop-simplify";

/// Inlines, in the functions requests reach, the calls of small loop-free helpers that are
/// passed an uncaptured stack slot of the caller (see the module's documentation), and
/// optimises the callers again.
pub fn inline_leaf_helpers(
    module: Module,
    functions: &HashSet<Val>,
    rules: &UserRules,
) -> Result<()> {
    let mut callers: Vec<Val> = functions
        .iter()
        .copied()
        .filter(|f| !f.is_declaration() && !f.has_fn_attr("optnone"))
        .collect();
    callers.sort_by_key(|f| f.name());
    let mut leaf: HashMap<Val, Option<usize>> = HashMap::new();
    let mut helpers: Vec<Val> = Vec::new();
    let mut changed: Vec<(Val, Val)> = Vec::new();
    for f in callers {
        let mut size = instruction_count(f);
        for b in f.blocks() {
            for call in b.instructions() {
                if call.opcode() != Opcode::LLVMCall || call.call_site_fn_attr("noinline") {
                    continue;
                }
                let Callee::Defined(g) = rules::classify(call, rules) else {
                    continue;
                };
                if g == f || !functions.contains(&g) {
                    continue;
                }
                let Some(g_size) = *leaf.entry(g).or_insert_with(|| leaf_size(g)) else {
                    continue;
                };
                if size + g_size > INLINE_MAX_CALLER || !passes_a_slot(call, f) {
                    continue;
                }
                call.set_call_site_fn_attr("alwaysinline", true);
                size += g_size;
                if !helpers.contains(&g) {
                    helpers.push(g);
                }
                if !changed.iter().any(|&(c, _)| c == f) {
                    changed.push((f, call));
                }
            }
        }
    }
    if changed.is_empty() {
        return Ok(());
    }
    // The helper's name on each instruction, copied by the inliner, taken off the helper again.
    let mut tagged = Vec::new();
    for &g in &helpers {
        let name = crate::diag::shown_name(g);
        for i in g.blocks().into_iter().flat_map(|b| b.instructions()) {
            if i.string_md(INLINED_FROM).is_none() {
                i.set_string_md(INLINED_FROM, Some(&name));
                tagged.push(i);
            }
        }
    }
    // Only the calls marked here: the user's `alwaysinline` functions keep their usual
    // treatment (at `-O0` with LLVM's passes disabled, they are still calls).
    let theirs: Vec<Val> = module
        .functions()
        .into_iter()
        .filter(|h| h.has_fn_attr("alwaysinline"))
        .collect();
    for h in &theirs {
        h.set_fn_attr("alwaysinline", false);
    }
    let inlined = module.run_passes("always-inline", std::ptr::null_mut());
    for h in &theirs {
        h.set_fn_attr("alwaysinline", true);
    }
    for i in tagged {
        i.set_string_md(INLINED_FROM, None);
    }
    let first = changed[0].0;
    inlined
        .map_err(|e| Error::in_function(first, format!("inlining small helpers failed: {e}")))?;
    for (f, _) in changed {
        // A call the inliner refused keeps no mark of ours.
        for i in f.blocks().into_iter().flat_map(|b| b.instructions()) {
            if i.opcode() == Opcode::LLVMCall && i.call_site_fn_attr("alwaysinline") {
                i.set_call_site_fn_attr("alwaysinline", false);
            }
        }
        fresh_lifetimes(f);
        run_function_passes(f, AFTER_INLINING).map_err(|e| {
            Error::in_function(f, format!("optimising after inlining helpers failed: {e}"))
        })?;
    }
    Ok(())
}

/// Stores `undef` into each stack slot of `f` where its lifetime starts (what its bytes are
/// then anyway), so that SROA starts each lifetime from nothing: a slot an element loop fills
/// in every iteration otherwise becomes a phi of the previous iteration's value, which the
/// reverse planner would have to keep since the vector built from it reads it.
fn fresh_lifetimes(f: Val) {
    let mut b = Builder::new(f.module());
    for blk in f.blocks() {
        for i in blk.instructions() {
            let starts = i.is_call()
                && i.called_function()
                    .is_some_and(|g| g.name().starts_with("llvm.lifetime.start"));
            if !starts {
                continue;
            }
            let Some(&slot) = i.call_args().last() else {
                continue;
            };
            if slot.opcode() != Opcode::LLVMAlloca || slot.parent_function() != Some(f) {
                continue;
            }
            if let Some(next) = i.next_instruction() {
                b.position_before(next);
                b.store(slot.allocated_type().undef(), slot, 1);
            }
        }
    }
}

fn instruction_count(f: Val) -> usize {
    f.blocks().into_iter().map(|b| b.instructions().len()).sum()
}

/// The size of `g` when it is a helper [`inline_leaf_helpers`] may inline: a body Umbra
/// differentiates (no rule names it), inlinable, small, loop-free, calling only functions
/// without a body (intrinsics, libm) and none of the API's, without exception handling or
/// stack allocations outside its entry block.
fn leaf_size(g: Val) -> Option<usize> {
    let name = g.name();
    let ours =
        |n: &str| n.starts_with("__umbra") || n.starts_with("umbra_") || n.starts_with("__enzyme");
    if g.is_declaration()
        || ["optnone", "noinline", "alwaysinline"]
            .iter()
            .any(|a| g.has_fn_attr(a))
        || g.is_interposable()
        || rules::lookup(&name).is_some()
        || ours(&name)
        || !copyable(g)
    {
        return None;
    }
    let blocks = g.blocks();
    let entry = *blocks.first()?;
    let size = instruction_count(g);
    if size > INLINE_MAX_HELPER || has_cycle(entry) {
        return None;
    }
    for b in &blocks {
        for i in b.instructions() {
            let fine = match i.opcode() {
                Opcode::LLVMCall => i.called_function().is_some_and(|h| {
                    h.is_declaration() && !ours(&h.name()) && !i.calls_inline_asm()
                }),
                Opcode::LLVMAlloca => *b == entry,
                Opcode::LLVMInvoke
                | Opcode::LLVMLandingPad
                | Opcode::LLVMResume
                | Opcode::LLVMCallBr
                | Opcode::LLVMIndirectBr
                | Opcode::LLVMCleanupPad
                | Opcode::LLVMCatchPad
                | Opcode::LLVMCatchSwitch
                | Opcode::LLVMCleanupRet
                | Opcode::LLVMCatchRet
                | Opcode::LLVMVAArg => false,
                _ => true,
            };
            if !fine {
                return None;
            }
        }
    }
    Some(size)
}

/// True when some block reachable from `entry` lies on a cycle (a back edge of a depth-first
/// walk).
fn has_cycle(entry: Block) -> bool {
    // 1: on the walk's path, 2: done.
    let mut state: HashMap<Block, u8> = HashMap::new();
    let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
    state.insert(entry, 1);
    while let Some((b, k)) = stack.pop() {
        let succs = b.successors();
        if k < succs.len() {
            stack.push((b, k + 1));
            let s = succs[k];
            match state.get(&s) {
                Some(1) => return true,
                Some(_) => {}
                None => {
                    state.insert(s, 1);
                    stack.push((s, 0));
                }
            }
        } else {
            state.insert(b, 2);
        }
    }
    false
}

/// True when some pointer argument of `call` (in `f`) points into a stack slot of `f` that
/// nothing captures.
fn passes_a_slot(call: Val, f: Val) -> bool {
    call.call_args().into_iter().any(|a| {
        a.ty().is_ptr()
            && slot_of(a).is_some_and(|s| {
                s.parent_function() == Some(f) && holds_floats(s.allocated_type()) && !captured(s)
            })
    })
}

/// True for an array (or vector) of floating-point numbers, the element arrays inlining is
/// for. Slots of other shapes are left alone: after inlining, SROA splits a struct slot
/// holding pointers into integer pieces when it is also accessed as integers, and the caller
/// then makes pointers from integers that reverse mode refuses (a Rust `Vec`'s
/// `RawVecInner::grow_amortized`: integration/rust/vec-push.rs).
fn holds_floats(t: Ty) -> bool {
    match t.kind() {
        TyKind::Array | TyKind::Vector => holds_floats(t.element()),
        _ => t.is_float(),
    }
}

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

    /// Helpers of `@caller`: `@leaf` (loop-free, given stack slots), `@looped` (a loop),
    /// `@forced` (the user's `alwaysinline`, called with a heap pointer).
    const HELPERS: &str = r#"
target datalayout = "e-m:e-i64:64-f80:128-n8:16:32:64-S128"
define double @leaf(ptr captures(none) %xe, ptr captures(none) %out) {
  %a = load double, ptr %xe
  %p = getelementptr double, ptr %xe, i64 1
  %b = load double, ptr %p
  %m = fmul double %a, %b
  store double %m, ptr %out
  ret double %a
}
define double @looped(ptr captures(none) %xe, ptr captures(none) %out) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %a = load double, ptr %xe
  store double %a, ptr %out
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, 4
  br i1 %c, label %loop, label %exit
exit:
  ret double %a
}
define double @forced(ptr %h) alwaysinline {
  %a = load double, ptr %h
  ret double %a
}
define double @caller(ptr %x, ptr %h) {
  %xe = alloca [2 x double]
  %out = alloca double
  %x0 = load double, ptr %x
  store double %x0, ptr %xe
  %p = getelementptr double, ptr %xe, i64 1
  store double %x0, ptr %p
  %r1 = call double @leaf(ptr %xe, ptr %out)
  %r2 = call double @looped(ptr %xe, ptr %out)
  %r3 = call double @forced(ptr %h)
  %o = load double, ptr %out
  %s = fadd double %r1, %r2
  %t = fadd double %s, %r3
  %u = fadd double %t, %o
  ret double %u
}
"#;

    #[test]
    fn loop_free_helpers_given_slots_are_inlined_and_named() {
        let ctx = Context::create();
        let module = parse_test_module(&ctx, HELPERS);
        let m = Module(module.as_mut_ptr());
        let caller = m.function("caller").expect("@caller");
        let functions: HashSet<Val> = m
            .functions()
            .into_iter()
            .filter(|f| !f.is_declaration())
            .collect();
        inline_leaf_helpers(m, &functions, &UserRules::default()).expect("inlined");
        m.verify().expect("valid IR after inlining");
        let insts: Vec<Val> = caller
            .blocks()
            .into_iter()
            .flat_map(|b| b.instructions())
            .collect();
        let called: Vec<String> = insts
            .iter()
            .filter(|i| i.is_call() && !i.called_value().name().starts_with("llvm."))
            .map(|i| i.called_value().name())
            .collect();
        // The loop stays a call; the user's `alwaysinline` function is left to LLVM's usual
        // treatment (and keeps its attribute); the leaf's body is in the caller, each of its
        // instructions naming it.
        assert_eq!(called, ["looped", "forced"], "{}", caller.print());
        assert!(m
            .function("forced")
            .expect("@forced")
            .has_fn_attr("alwaysinline"));
        let from_leaf = insts
            .iter()
            .filter(|i| i.string_md(INLINED_FROM).as_deref() == Some("leaf"))
            .count();
        assert!(from_leaf > 0, "{}", caller.print());
        // The helper itself carries no such names; no call keeps a mark of ours.
        let leaf = m.function("leaf").expect("@leaf");
        assert!(leaf
            .blocks()
            .into_iter()
            .flat_map(|b| b.instructions())
            .all(|i| i.string_md(INLINED_FROM).is_none()));
        assert!(insts
            .iter()
            .all(|i| !i.is_call() || !i.call_site_fn_attr("alwaysinline")));
    }
}
