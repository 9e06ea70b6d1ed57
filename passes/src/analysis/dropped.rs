//! Derivatives the user's own declarations drop: a function declared inactive (`--inactive`,
//! `UMBRA_INACTIVE_FN`, `__enzyme_inactivefn`, `annotate("umbra_inactive")`) runs in the primal
//! only, so whatever derivative flows into it at a call in differentiated code is lost. That is
//! right for logging and wrong for anything feeding the result, and only the user can tell which:
//! each such call site gets a warning rather than an error.
//!
//! Runs after the requests are lowered, over exactly the (function, activity) pairs that were
//! differentiated, with the same activity analysis both modes use, so a warning means a
//! derivative really reached the call.

use super::cfg::reverse_post_order;
use crate::cache::Session;
use crate::diag::Location;
use std::collections::HashSet;

/// One line per call site where a derivative flows into a user-declared inactive function, in a
/// stable order (by function name, then position).
pub fn dropped_derivatives(session: &Session) -> Vec<String> {
    if session.rules.inactive.is_empty() {
        return Vec::new();
    }
    let mut keys: Vec<_> = session.keys().collect();
    keys.sort_by_key(|k| (k.function.name(), format!("{:?}{:?}", k.mode, k.activity)));
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for key in keys {
        let f = key.function;
        if f.is_declaration() {
            continue;
        }
        let active = session.activity(f, &key.activity);
        for i in reverse_post_order(f)
            .into_iter()
            .flat_map(|b| b.instructions())
        {
            if !i.is_call() {
                continue;
            }
            let Some(callee) = i.called_function() else {
                continue;
            };
            let name = callee.name();
            if !session.rules.is_inactive(&name) {
                continue;
            }
            let flows = active.call_receives(i);
            if flows && seen.insert(i) {
                out.push(format!(
                    "{}'{name}' is declared inactive but differentiable values flow into it here: the derivative through this call is dropped (counted as zero). Harmless if it only observes them (logging); if its effect reaches the result, remove the inactive declaration and give it a body or register a rule for it",
                    Location::of_instruction(i)
                ));
            }
        }
    }
    out
}
