//! Canonicalisation before differentiation, as Enzyme does: SROA and mem2reg turn the stack
//! traffic of `-O0` code into SSA values, so the derivative of a local is an SSA tangent instead
//! of a store/load pair through shadow memory.
//!
//! Indirect calls through vtables and tables of functions become calls of dispatchers
//! ([`crate::devirt`]).
//!
//! Only functions reachable from a request are touched, and only with semantics-preserving
//! passes. `optnone` is lifted for the passes and put back afterwards, so the primal keeps its
//! `-O0` treatment in the rest of the pipeline.

use crate::api::Request;
use crate::diag::{Error, Result};
use crate::ir::{run_function_passes, Module, Val};
use crate::rules::user::UserRules;
use std::collections::HashSet;

/// SROA and mem2reg for SSA form; loop-simplify gives loops a preheader, one latch and
/// dedicated exits, the shape reverse mode counts down without a per-iteration tape.
const PIPELINE: &str = "sroa<modify-cfg>,early-cse,instsimplify,loop-simplify";

/// Canonicalises every defined function reachable through direct calls from a request target.
/// Returns the functions it saw, for [`devirtualize_derived`].
pub fn canonicalize_reachable(
    _module: Module,
    requests: &[Request],
    rules: &UserRules,
) -> Result<HashSet<Val>> {
    let mut seen = HashSet::new();
    let mut stack: Vec<Val> = requests.iter().map(|r| r.function).collect();
    loop {
        let mut canonical = Vec::new();
        while let Some(f) = stack.pop() {
            if f.is_declaration() || rules.is_inactive(&f.name()) || !seen.insert(f) {
                continue;
            }
            canonicalize(f)?;
            canonical.push(f);
            stack.extend(callees(f));
        }
        if canonical.is_empty() {
            // Floats captured by value travel as doubles, which carry derivatives.
            crate::openmp_float::widen_float_captures(&seen);
            // Reductions other than `+` by their critical method, which has derivatives.
            crate::openmp_reduce::critical_reductions(&seen)?;
            return Ok(seen);
        }
        // Once every function reached so far is canonical, so that vtable and table loads are
        // plain SSA values, and so are the callees devirtualisation reads (a function returning
        // an element's address, as `std::array::operator[]` at -O0). The dispatchers, and
        // through them their candidates, are canonicalised in the next round.
        for f in canonical {
            stack.extend(crate::devirt::devirtualize(f, rules));
        }
    }
}

/// Canonicalises the functions holding a request whose function argument is not a function
/// yet: at `-O0`, C++ helpers inlined into the caller (`always_inline`, as in
/// `<enzyme/enzyme>`) pass the function through a local variable, which mem2reg resolves.
/// Other holders are left as they are.
pub fn canonicalize_request_holders(module: Module) -> Result<()> {
    let mut holders = Vec::new();
    for f in module.functions() {
        if !crate::api::is_request(&f.name()) {
            continue;
        }
        for u in f.users() {
            if !u.is_call() || u.called_value() != f {
                continue;
            }
            let args = u.call_args();
            let k = usize::from(u.call_arg_sret_type(0).is_some());
            let function_known = args.get(k).is_some_and(|a| a.is_function());
            if let Some(holder) = u.parent_function().filter(|_| !function_known) {
                if !holders.contains(&holder) {
                    holders.push(holder);
                }
            }
        }
    }
    for h in holders {
        canonicalize(h)?;
    }
    Ok(())
}

/// Devirtualises the functions reachable from `request` that [`canonicalize_reachable`] did not
/// see (`seen`, updated): the derived functions of the requests inside it, lowered first. Their
/// helpers make indirect calls (the deferred frees' `deallocator(pointer)`), which an outer
/// request differentiating them needs dispatched like the user's own (forward over reverse
/// through a gradient that frees a block the adjoint reads). Derived code is already in the
/// canonical form, so only devirtualisation runs.
pub fn devirtualize_derived(request: &Request, rules: &UserRules, seen: &mut HashSet<Val>) {
    let mut visited = HashSet::new();
    let mut stack = vec![request.function];
    while let Some(f) = stack.pop() {
        if f.is_declaration() || rules.is_inactive(&f.name()) || !visited.insert(f) {
            continue;
        }
        stack.extend(callees(f));
        if seen.insert(f) {
            stack.extend(crate::devirt::devirtualize(f, rules));
        }
    }
}

/// The functions `f` calls directly, and the bodies of its parallel regions (which run through
/// the OpenMP runtime).
fn callees(f: Val) -> Vec<Val> {
    let mut out = Vec::new();
    for b in f.blocks() {
        for i in b.instructions() {
            if i.is_call() {
                out.extend(i.called_function());
                out.extend(crate::openmp::outlined(i));
            }
        }
    }
    out
}

/// AddressSanitizer's run-time switch for use-after-return detection, which moves a function's
/// stack frame to a "fake stack" allocated by `__asan_stack_malloc_*`, whose address comes back
/// as an integer.
const ASAN_FAKE_STACK_SWITCH: &str = "__asan_option_detect_stack_use_after_return";

pub(crate) fn canonicalize(f: Val) -> Result<()> {
    let had_optnone = f.has_fn_attr("optnone");
    if had_optnone {
        f.set_fn_attr("optnone", false);
    }
    // A frame that is either the fake stack's (an `inttoptr` of the runtime's integer) or the
    // real alloca has no shadow Umbra can tie to one pointer: in the functions requests reach,
    // the switch reads as off, so the frame is the alloca. These functions lose ASan's
    // use-after-return detection; every other check stays.
    let pipeline = if turn_off_fake_stack(f) {
        format!("instsimplify,simplifycfg,{PIPELINE}")
    } else {
        PIPELINE.to_string()
    };
    let result = run_function_passes(f, &pipeline);
    if had_optnone {
        f.set_fn_attr("optnone", true);
    }
    result.map_err(|e| Error::in_function(f, format!("canonicalisation failed: {e}")))
}

/// Replaces `f`'s loads of [`ASAN_FAKE_STACK_SWITCH`] by zero; true when there were any.
fn turn_off_fake_stack(f: Val) -> bool {
    let mut any = false;
    for b in f.blocks() {
        for i in b.instructions() {
            let reads_switch = i.opcode() == crate::ir::Opcode::LLVMLoad
                && i.operand(0).is_global_variable()
                && i.operand(0).name() == ASAN_FAKE_STACK_SWITCH;
            if reads_switch {
                i.replace_all_uses_with(i.ty().zero());
                i.erase();
                any = true;
            }
        }
    }
    any
}
