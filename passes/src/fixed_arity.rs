//! Variadic functions that never read their variable arguments (no `va_start`), called in
//! the functions the requests reach, become fixed-arity copies: derived functions have fixed
//! parameters, and Umbra refuses to differentiate a variadic function. libstdc++'s
//! `std::visit` at `-O0` names its variant with such a lambda,
//! `[](_V0& v, ...) -> _V0& { return v; }(variants...)`.
//!
//! Guarantees: the copy computes what the original computes (it cannot read what is dropped);
//! the original stays for every other caller; functions that call `va_start` stay variadic,
//! and are refused as before; functions with a rule (the user's, or inactive: rules go by
//! name, which a copy does not have) are called as they are.

use crate::ir::{copy_fixed_arity, fresh_name, ignores_variable_arguments, Builder, Val};
use crate::rules::user::UserRules;
use crate::rules::Callee;
use std::collections::HashMap;

/// The copies made so far, by original callee, so that each callee is copied once.
#[derive(Default)]
pub struct Copies(HashMap<Val, Val>);

/// Redirects `f`'s calls of variadic functions that ignore their variable arguments to
/// fixed-arity copies. True when `f` changed.
pub fn redirect_calls(f: Val, copies: &mut Copies, rules: &UserRules) -> bool {
    let mut changed = false;
    for b in f.blocks() {
        for i in b.instructions() {
            changed |= i.is_call() && fixed_arity(i, copies, rules);
        }
    }
    changed
}

/// Redirects call `call`, when its callee ignores its variable arguments, to the callee's
/// fixed-arity copy, dropping the extra arguments.
fn fixed_arity(call: Val, copies: &mut Copies, rules: &UserRules) -> bool {
    let Some(callee) = call.called_function() else {
        return false;
    };
    // Only a callee differentiated from its body: a rule (the user's, or inactive) is looked
    // up by the callee's name, which the copy does not have.
    let from_body = matches!(crate::rules::classify(call, rules), Callee::Defined(_));
    if !from_body || call.is_musttail() || !ignores_variable_arguments(callee) {
        return false;
    }
    let copy = *copies.0.entry(callee).or_insert_with(|| {
        let name = fresh_name(callee, &format!("{}.umbra.fixed", callee.name()));
        copy_fixed_arity(callee, &name)
    });
    let n = copy.params().len();
    let args: Vec<Val> = call.call_args().into_iter().take(n).collect();
    let mut b = Builder::new(callee.module());
    b.position_before(call);
    let new_call = b.call_like(call, copy, &args);
    new_call.copy_call_site_args(call, 0, n as u32);
    if !call.ty().is_void() {
        let name = call.name();
        call.set_name("");
        new_call.set_name(&name);
        call.replace_all_uses_with(new_call);
    }
    call.erase();
    true
}
