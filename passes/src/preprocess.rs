//! Canonicalisation before differentiation, as Enzyme does: SROA and mem2reg turn the stack
//! traffic of `-O0` code into SSA values, so the derivative of a local is an SSA tangent instead
//! of a store/load pair through shadow memory.
//!
//! A pointer loaded as an integer and cast back (`inttoptr (load i64, ptr q)`, as InstCombine
//! leaves libstdc++'s `std::tuple<std::string&&>` read in `std::map::operator[]`) becomes a
//! pointer load ([`pointers_loaded_as_integers`]), whose shadow is loaded from the shadow of
//! `q` like any other pointer's.
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
    let mut copies = crate::mixed_returns::Copies::default();
    let mut fixed = crate::fixed_arity::Copies::default();
    loop {
        let mut canonical = Vec::new();
        while let Some(f) = stack.pop() {
            if f.is_declaration() || rules.is_inactive(&f.name()) || !seen.insert(f) {
                continue;
            }
            canonicalize(f)?;
            // Variadic helpers that ignore their variable arguments become fixed-arity copies,
            // and structs of pointers and floats returned by value go through memory (a second
            // round folds what the rewrite leaves, an `extractvalue` of a struct just built).
            let redirected = crate::fixed_arity::redirect_calls(f, &mut fixed, rules);
            if crate::mixed_returns::split_mixed_values(f, &mut copies, rules) || redirected {
                canonicalize(f)?;
            }
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

/// AddressSanitizer's calls that poison the redzones around a variable-length array after its
/// `alloca`, and unpoison the stack at the function's exits from the last such array up to a
/// slot of the frame.
const ASAN_VLA_POISON: &str = "__asan_alloca_poison";
const ASAN_VLA_UNPOISON: &str = "__asan_allocas_unpoison";

pub(crate) fn canonicalize(f: Val) -> Result<()> {
    let had_optnone = f.has_fn_attr("optnone");
    if had_optnone {
        f.set_fn_attr("optnone", false);
    }
    drop_vla_redzones(f);
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
    pointers_loaded_as_integers(f);
    if had_optnone {
        f.set_fn_attr("optnone", true);
    }
    result.map_err(|e| Error::in_function(f, format!("canonicalisation failed: {e}")))
}

/// Removes ASan's poisoning of the redzones around `f`'s variable-length arrays (and the
/// unpoisoning at its exits). The exit's range, from the last array up to a frame slot, covers
/// the arrays only while they are dynamic allocas, each below the one before; in a derived
/// function specialised for a constant length, re-optimisation makes them fixed-size slots of
/// the frame, laid out in any order, and the poison of those the range misses outlives the
/// frame: a later function's in-bounds stack write is reported as an overflow. So the
/// functions requests reach lose the VLA redzone checks (all of ASan's other checks stay).
fn drop_vla_redzones(f: Val) {
    let calls: Vec<Val> = f
        .blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .filter(|i| {
            i.is_call()
                && i.called_function()
                    .is_some_and(|g| [ASAN_VLA_POISON, ASAN_VLA_UNPOISON].contains(&&*g.name()))
        })
        .collect();
    for c in calls {
        c.erase();
    }
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

/// Rewrites `%p = inttoptr (load i64, ptr %q)` into `%p = load ptr, ptr %q` in `f`, the new
/// load placed at the integer load (so it reads the same memory at the same point). Both read
/// the same 8 bytes; as a pointer load, its shadow is the pointer stored in the shadow of `q`,
/// where the engine stores the shadow of every pointer it stores (an integer made from a
/// pointer otherwise has no shadow Umbra can find, and such a pointer is refused where a
/// derivative flows through it). The integer load stays for its other users. Volatile and
/// atomic loads, vectors and other widths are left alone.
fn pointers_loaded_as_integers(f: Val) {
    use crate::ir::{Builder, Opcode, Ty};
    let m = f.module();
    let ptr = Ty::ptr(m.context());
    let casts: Vec<Val> = f
        .blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .filter(|i| i.opcode() == Opcode::LLVMIntToPtr && i.ty() == ptr)
        .filter(|i| {
            let ld = i.operand(0);
            ld.is_instruction()
                && ld.opcode() == Opcode::LLVMLoad
                && ld.ty() == Ty::int(m.context(), 64)
                && !ld.is_volatile()
                && !ld.is_atomic_access()
        })
        .collect();
    let mut b = Builder::new(m);
    for cast in casts {
        let ld = cast.operand(0);
        let Some(next) = ld.next_instruction() else {
            continue;
        };
        b.position_before(next);
        let p = b.load(ptr, ld.operand(0), ld.alignment());
        p.copy_debug_location(ld);
        cast.replace_all_uses_with(p);
        cast.erase();
        if ld.users().is_empty() {
            ld.erase();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::pointers_loaded_as_integers;
    use crate::ir::{parse_test_module, Module};
    use inkwell::context::Context;

    /// `f` after the rewrite, as text.
    fn rewritten(body: &str) -> String {
        let ctx = Context::create();
        let ir = format!("define ptr @f(ptr %q) {{\n{body}\n}}");
        let module = parse_test_module(&ctx, &ir);
        let m = Module(module.as_mut_ptr());
        let f = m.function("f").expect("f");
        pointers_loaded_as_integers(f);
        f.print()
    }

    #[test]
    fn a_pointer_loaded_as_an_integer_is_loaded_as_a_pointer() {
        let out = rewritten(
            "  %i = load i64, ptr %q, align 8\n  %p = inttoptr i64 %i to ptr\n  ret ptr %p",
        );
        assert!(out.contains("load ptr, ptr %q, align 8"), "{out}");
        assert!(!out.contains("inttoptr"), "{out}");
        assert!(
            !out.contains("load i64"),
            "the integer load had no other user: {out}"
        );
    }

    #[test]
    fn the_integer_load_stays_for_its_other_users_and_reads_at_the_same_point() {
        // The pointer load goes where the integer load is, before the store that follows it.
        let out = rewritten(
            "  %i = load i64, ptr %q, align 8\n  store i64 0, ptr %q, align 8\n  \
             %p = inttoptr i64 %i to ptr\n  %k = getelementptr i8, ptr %p, i64 %i\n  ret ptr %k",
        );
        let (ld, st) = (
            out.find("load ptr").expect(&out),
            out.find("store i64").expect(&out),
        );
        assert!(ld < st, "{out}");
        assert!(out.contains("load i64"), "{out}");
    }

    #[test]
    fn volatile_atomic_and_narrow_loads_are_left_alone() {
        for body in [
            "  %i = load volatile i64, ptr %q, align 8\n  %p = inttoptr i64 %i to ptr\n  ret ptr %p",
            "  %i = load atomic i64, ptr %q acquire, align 8\n  %p = inttoptr i64 %i to ptr\n  ret ptr %p",
            "  %i = load i32, ptr %q, align 4\n  %p = inttoptr i32 %i to ptr\n  ret ptr %p",
        ] {
            assert!(rewritten(body).contains("inttoptr"), "{body}");
        }
    }
}
