//! Indirect calls: virtual calls (a function pointer loaded from an object's vtable), calls
//! through a table of functions (a pointer loaded from a global array such as
//! `double (*ops[])(double)`), and calls through pointers of unknown origin (callbacks passed
//! as arguments, `std::function`), whose candidates are the module's address-taken functions of
//! the call's type.
//!
//! Before differentiation, such a call `%r = call %p(args)` becomes a direct call of a
//! dispatcher, `%r = call @umbra.dispatch.<f>.<n>(args, %p)`, whose body compares `%p` with
//! each candidate and calls the match directly:
//!
//! ```text
//! if (p == @A::f) return A::f(args); else if (p == @B::f) return B::f(args); ...
//! else return p(args);   // the fallback: a target outside the candidates
//! ```
//!
//! For the primal this is the same call. Both modes then differentiate the dispatcher like any
//! function with a body: forward mode calls the matching candidate's forward derivative, and
//! reverse mode's block stack records which candidate ran, so the adjoint dispatches to the
//! matching adjoint. The fallback cannot be differentiated (its target is unknown): the derived
//! code stops there with a run-time error naming the original call site ([`is_fallback`],
//! [`fallback_message`]), never a wrong derivative.
//!
//! Candidates are the functions of the call's exact type that the pointer may be, as
//! [`targets`] reads them off its origin: a table of functions (a global with an initializer)
//! it is loaded from, the module's vtables (`_ZTV*`, Itanium ABI) for a pointer loaded through
//! another loaded pointer (an object's vtable slot), the functions a `select` or `phi` chooses
//! among, and what is written into a local table (stores, copies of constant tables).
//! Declarations count only when a rule can differentiate them (`sin` in a table of
//! `double (*)(double)`).
//!
//! A pointer from anywhere else (an argument such as a C callback, a field of an object such as
//! `std::function`'s invoker and manager, a local table whose address escapes, the result of a
//! function defined elsewhere) has an *open* set of candidates ([`open`]): the functions of the
//! module of the call's exact type whose address is taken, with a body or a rule. A pointer
//! made in this module is one of them; any other (a function of another object file) reaches
//! the fallback's run-time error. The set is bounded ([`open::MAX_OPEN`]); with none, or too
//! many, the call keeps the compile-time error, which says where the pointer came from and why
//! there is no dispatch ([`unknown_origin`]). Such a dispatcher is marked
//! ([`is_open_dispatcher`]): the type analysis passes no types across its calls (each
//! candidate is a guess, and another's parameters say nothing about the caller's memory), and a
//! candidate whose derivative cannot be built, reached through such dispatchers only, becomes
//! that error at run time instead of failing the compilation ([`crate::derive`]).

mod open;
mod targets;

use crate::ir::{Builder, IntPred, Module, Ty, Val};
use crate::rules::user::UserRules;

/// The name prefix of dispatchers.
const PREFIX: &str = "umbra.dispatch.";

/// The attribute of a dispatcher whose candidates are the address-taken functions of the
/// call's type ([`open`]), not read off the pointer's origin.
const OPEN_ATTR: &str = crate::analysis::types::OPEN_DISPATCHER;

/// The possible targets of indirect call `i`, or why there are none to be had: those its
/// pointer's origin tells ([`targets`]), else, when the origin is unknown, the address-taken
/// functions of the call's type ([`open`]).
/// The flag is true for the latter (an open set).
fn candidates(i: Val, rules: &UserRules) -> Result<(Vec<Val>, bool), String> {
    let fty = i.call_function_type();
    let mut found = match targets::possible_targets(i.called_value()) {
        Ok(found) => found,
        Err(why) => {
            let m = i.parent_function().expect("in a function").module();
            return match open::address_taken(m, fty, rules) {
                Ok(found) => Ok((found, true)),
                Err(none) => Err(format!("{why}; {none}")),
            };
        }
    };
    found.retain(|&f| f.function_type() == fty && (!f.is_declaration() || has_rule(f, rules)));
    if found.is_empty() {
        // What the origin suggested does not fit (a pointer loaded through a loaded pointer is
        // taken for a vtable slot, but a recursive std::function's invoker, read through the
        // reference its lambda captured, is a field): the open set, which holds every function
        // a pointer made in this module can be, stands in.
        let m = i.parent_function().expect("in a function").module();
        return match open::address_taken(m, fty, rules) {
            Ok(found) => Ok((found, true)),
            Err(none) => Err(format!(
                "none of the functions it may be (from the tables, vtables or values it comes from) has the call's type; {none}"
            )),
        };
    }
    Ok((found, false))
}

/// True when declaration `f` has a rule (built in or the user's) that differentiates it.
fn has_rule(f: Val, rules: &UserRules) -> bool {
    let name = f.name();
    crate::rules::lookup(&name).is_some()
        || rules.function_like.contains_key(&name)
        || rules.derivatives.contains_key(&name)
        || rules.gradients.contains_key(&name)
}

/// Why the target of indirect call `i` is unknown, for the compile-time error (`None` when the
/// call is a dispatcher's fallback or has candidates after all).
pub fn unknown_origin(i: Val, rules: &UserRules) -> Option<String> {
    if i.called_function().is_some() || is_fallback(i) {
        return None;
    }
    candidates(i, rules).err()
}

/// The missing-rule error for call `i` ([`crate::rules::missing_rule_error`]), saying for an
/// indirect call why its targets are unknown (an argument, unknown memory, ...) when it can.
pub fn missing_rule_error(
    i: Val,
    mode: crate::vocab::Mode,
    rules: &UserRules,
) -> crate::diag::Error {
    let mut e = crate::rules::missing_rule_error(i, mode);
    if let Some(why) = unknown_origin(i, rules) {
        e.message = e.message.replacen(
            "is not known at compile time",
            &format!("is not known at compile time (the function pointer: {why})"),
            1,
        );
    }
    e
}

/// Replaces every indirect call in `f` whose targets are known by a call of a dispatcher (see
/// the module documentation). Returns the dispatchers made, whose candidates the caller should
/// canonicalise as it does direct callees.
pub fn devirtualize(f: Val, rules: &UserRules) -> Vec<Val> {
    if f.name().starts_with(PREFIX) {
        return Vec::new();
    }
    let mut made = Vec::new();
    for block in f.blocks() {
        for i in block.instructions() {
            if !i.is_call() || i.called_function().is_some() || i.call_conv() != 0 {
                continue;
            }
            let called = i.called_value();
            // Inline assembly is not a function pointer (nor a constant in LLVM's terms).
            if called.is_constant() || i.calls_inline_asm() || i.call_function_type().is_var_arg() {
                continue;
            }
            let Ok((cands, open)) = candidates(i, rules) else {
                continue;
            };
            made.push(dispatch(f.module(), i, &cands, open));
        }
    }
    made
}

/// Builds the dispatcher for call (or invoke) `i` over `cands` and calls it in place of `i`.
fn dispatch(m: Module, i: Val, cands: &[Val], open: bool) -> Val {
    let ctx = m.context();
    let fty = i.call_function_type();
    let ret = fty.return_type();
    let mut params = fty.param_types();
    params.push(Ty::ptr(ctx));
    let n = m.functions().len();
    let caller = i.parent_function().expect("in a function").name();
    let d = m.add_function(
        &format!("{PREFIX}{caller}.{n}"),
        Ty::function(ret, &params, false),
    );
    d.set_internal();
    // The dispatcher is compiled for the same target as its caller.
    d.copy_string_fn_attrs(
        i.parent_function().expect("in a function"),
        &["target-cpu", "target-features"],
    );
    let args: Vec<Val> = d.params();
    let (call_args, fp) = args.split_at(args.len() - 1);
    let fp = fp[0];
    let mut b = Builder::new(m);
    let mut at = d.append_block("entry");
    for (k, &cand) in cands.iter().enumerate() {
        let hit = d.append_block(&format!("call.{k}"));
        let next = d.append_block(&format!("next.{k}"));
        b.position_at_end(at);
        let same = b.icmp(IntPred::LLVMIntEQ, fp, cand);
        b.cond_br(same, hit, next);
        b.position_at_end(hit);
        let call = b.call_function(cand, call_args);
        call.copy_call_site(i);
        call.clear_debug_location();
        if ret.is_void() {
            b.ret_void();
        } else {
            b.ret(call);
        }
        at = next;
    }
    // The fallback: a target outside the candidates, still right for the primal.
    b.position_at_end(at);
    let call = b.call(fty, fp, call_args);
    call.copy_call_site(i);
    call.clear_debug_location();
    if ret.is_void() {
        b.ret_void();
    } else {
        b.ret(call);
    }
    // Where the original call was, for the fallback's run-time error.
    let here = i.debug_location().unwrap_or_else(|| caller.clone());
    d.set_string_fn_attr("umbra-dispatch-site", &here);
    if open {
        d.set_string_fn_attr(OPEN_ATTR, "");
    }
    // The call of the dispatcher, in place of `i`.
    let mut new_args = i.call_args();
    new_args.push(i.called_value());
    b.position_before(i);
    let new = if i.is_invoke() {
        b.invoke(
            d.function_type(),
            d,
            &new_args,
            i.normal_dest(),
            i.unwind_dest(),
        )
    } else {
        b.call_function(d, &new_args)
    };
    new.copy_call_site(i);
    let name = i.name();
    i.replace_all_uses_with(new);
    i.erase();
    new.set_name(&name);
    d
}

/// True for a dispatcher whose candidates are the address-taken functions of the call's type
/// (guessed, not read off the pointer's origin).
pub fn is_open_dispatcher(f: Val) -> bool {
    f.string_fn_attr(OPEN_ATTR).is_some()
}

/// True for the fallback call of a dispatcher: an indirect call of the dispatcher's last
/// parameter, reached only when the target is none of the candidates.
pub fn is_fallback(i: Val) -> bool {
    if i.called_function().is_some() {
        return false;
    }
    let Some(f) = i.parent_function() else {
        return false;
    };
    f.name().starts_with(PREFIX) && f.params().last() == Some(&i.called_value())
}

/// The run-time error of a dispatcher's fallback in derived code.
pub fn fallback_message(i: Val) -> String {
    let f = i.parent_function().expect("in a function");
    let site = f
        .string_fn_attr("umbra-dispatch-site")
        .unwrap_or_else(|| f.name());
    if f.string_fn_attr(OPEN_ATTR).is_some() {
        return format!(
            "error: {site}: indirect call through a function pointer of unknown origin reached a function that is none of the functions of its type with a body or a rule whose address this module takes (one defined in another module, or declared here without body or rule), so it has no derivative; call it directly, or define it in the module being differentiated"
        );
    }
    format!(
        "error: {site}: indirect call reached a function that is in none of the vtables or tables of functions Umbra found in the module, so it has no derivative; call it directly, or define it in the module being differentiated"
    )
}
