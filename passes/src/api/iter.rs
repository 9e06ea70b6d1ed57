//! Enzyme's `__enzyme_iter(n, step)`: an iteration count that grows with the derivative order.
//! The primal program gets `n`; code Umbra derives from a function holding the call gets
//! `n + step`, a derivative of that derivative `n + 2 step`, and so on (Enzyme adds `step` to
//! the first argument in each function it clones for differentiation), so that a truncated
//! series keeps its accuracy in every derivative (Enzyme's `ReverseMode/mycos.c`).
//!
//! Derived functions are built from their source instruction by instruction, by several
//! visitors and recomputation paths; rather than teach each of them, every function a request
//! creates is visited once when the request is lowered ([`bump_new`]): its calls are copies of
//! the source's, so adding `step` there is adding it once per derivation, and a function
//! derived from a derived function adds it again. [`finish`] then replaces each remaining call
//! by its first argument and removes the declaration, which the program must not link against.
//!
//! Guarantees: after [`finish`] no call to `__enzyme_iter` is left; a use other than a direct
//! call with two integer arguments of the result's type is refused by name.

use crate::diag::{Error, Result};
use crate::ir::{Builder, Module, Val};
use std::collections::HashSet;

/// The `__enzyme_iter` declarations of `module` (C, and C++ without `extern "C"`, which
/// [`super::names`] recognises by containment).
fn declarations(module: Module) -> Vec<Val> {
    module
        .functions()
        .into_iter()
        .filter(|f| {
            matches!(
                super::names::classify(&f.name()),
                Some(super::names::ApiName::Iter)
            )
        })
        .collect()
}

/// The calls of the `__enzyme_iter` declarations, each checked to be `iN f(iN, iN)`.
fn calls(module: Module) -> Result<Vec<Val>> {
    let mut out = Vec::new();
    for f in declarations(module) {
        for u in f.users() {
            if !u.is_call() || u.called_value() != f {
                return Err(Error::user_at(
                    u,
                    format!("'{}' is used other than as a direct call", f.name()),
                ));
            }
            let args = u.call_args();
            let ty = u.ty();
            if !ty.is_int() || args.len() != 2 || args.iter().any(|a| a.ty() != ty) {
                return Err(Error::user_at(
                    u,
                    format!(
                        "'{}' takes two integers and returns one of their type (the iteration count and its step per derivative order)",
                        f.name()
                    ),
                ));
            }
            out.push(u);
        }
    }
    Ok(out)
}

/// Refuses a call that is not `iN __enzyme_iter(iN, iN)`, or another use of the function.
pub fn check(module: Module) -> Result<()> {
    calls(module).map(|_| ())
}

/// The defined functions of `module`, to tell afterwards which ones a request created.
pub fn snapshot(module: Module) -> HashSet<Val> {
    module
        .functions()
        .into_iter()
        .filter(|f| !f.is_declaration())
        .collect()
}

/// Adds each call's step to its count in every function defined now but not in `before`: the
/// functions derived while lowering one request.
pub fn bump_new(module: Module, before: &HashSet<Val>) -> Result<()> {
    let mut b = Builder::new(module);
    for call in calls(module)? {
        let Some(f) = call.parent_function() else {
            continue;
        };
        if before.contains(&f) {
            continue;
        }
        let args = call.call_args();
        b.position_before(call);
        let grown = b.add(args[0], args[1]);
        call.set_operand(0, grown);
    }
    Ok(())
}

/// Replaces every call by its count and removes the declarations.
pub fn finish(module: Module) -> Result<()> {
    for call in calls(module)? {
        call.replace_all_uses_with(call.call_args()[0]);
        call.erase();
    }
    for f in declarations(module) {
        if !f.has_uses() {
            f.delete_global();
        }
    }
    Ok(())
}
