//! Candidates for a function pointer of unknown origin (an argument such as a C callback, a
//! field of an object such as `std::function`'s invoker, a local whose address escapes): the
//! functions of the module whose address is taken and whose type is exactly the call's.
//!
//! A function whose address is never taken cannot be reached through a pointer made in this
//! module, so the set is complete for every pointer that originates here; one made elsewhere
//! (another translation unit, `dlsym`) is none of them and reaches the dispatcher's fallback,
//! a run-time error. "Address taken" means any use other than being the callee of a call:
//! stored, passed as an argument, compared, in a global initializer or a vtable. Passing a
//! function to a derivative request (`__enzyme_autodiff((void *)f, ...)`) does not count: the
//! request is replaced by a call of the derivative, so no pointer to `f` survives it.
//!
//! Declarations count only when a rule differentiates them (`sin` passed as a callback): one
//! without body and rule could never have a derivative, and calling it is left to the
//! fallback's run-time error rather than turned into a compile-time error for programs that
//! never call it.

use crate::ir::{Module, Ty, Val};
use crate::rules::user::UserRules;

/// At most this many candidates for a pointer of unknown origin: above that the dispatch would
/// cost more than it is worth (each candidate's derivative is built, compared in turn) and the
/// call stays a compile-time error.
pub(super) const MAX_OPEN: usize = 16;

/// The address-taken functions of `m` of type `fty` that can be differentiated (a body or a
/// rule), in module order; `Err` says why there are none to dispatch among.
pub(super) fn address_taken(m: Module, fty: Ty, rules: &UserRules) -> Result<Vec<Val>, String> {
    let found: Vec<Val> = m
        .functions()
        .into_iter()
        .filter(|&f| {
            f.function_type() == fty
                && !f.name().starts_with(super::PREFIX)
                && (!f.is_declaration() || super::has_rule(f, rules))
                && is_address_taken(f)
        })
        .collect();
    if found.is_empty() {
        return Err(
            "no function of the call's type with a body or a rule has its address taken in this module, so it comes from elsewhere"
                .into(),
        );
    }
    if found.len() > MAX_OPEN {
        return Err(format!(
            "{} functions of the call's type have their address taken in this module, more than the {MAX_OPEN} Umbra dispatches among",
            found.len()
        ));
    }
    Ok(found)
}

/// True when `f` is used other than as the callee of a call (or as the function a derivative
/// request differentiates: the first argument of a request; a function passed among the
/// arguments it forwards is a callback like any other).
fn is_address_taken(f: Val) -> bool {
    f.users().into_iter().any(|u| {
        if !(u.is_call() || u.is_invoke()) {
            return true;
        }
        let args = u.call_args();
        let api = u.called_function().is_some_and(|g| is_api(&g.name()));
        let skip = usize::from(api);
        // Only the callee (dispatchers call their candidates directly) is no address taken.
        args.iter().skip(skip).any(|&a| a == f)
    })
}

/// True for Umbra's and Enzyme's API functions (requests, split mode, batch mode), whose
/// arguments are functions to differentiate, not callbacks.
fn is_api(name: &str) -> bool {
    name.contains("__enzyme_") || name.contains("__umbra_")
}
