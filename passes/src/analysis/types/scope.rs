//! Which functions the type analysis needs to visit. Types flow between functions only
//! through direct calls (arguments, parameters, returned values) and derivative requests
//! ([`super::requests`]): a function that no derivation can reach and that shares no call
//! with one that can holds nothing that changes an answer there. Visiting it anyway is pure
//! cost: simple_mlp's bench module spends three quarters of its type-analysis rounds in the
//! hand-written gradient next to the function it differentiates.
//!
//! The scope is the set of functions connected, through direct calls in either direction, to
//! a seed: every function that requests reach (the ones they differentiate and the ones that
//! hold them, Umbra's and Enzyme's other API calls included), and every function whose
//! address is taken (an indirect call may reach it, a global table may hold it, a rule may
//! name it). Within the scope the fixed point is the same as over the whole module, because
//! no call connects a function in the scope to one outside it.
//!
//! Without requests (sessions that derive functions directly: rule tests, harnesses) there is
//! nothing to scope by, and every function is in.

use super::seeds::RequestSite;
use crate::ir::Val;
use std::collections::HashSet;

/// The functions of `funcs` (defined functions, in module order) that the analysis must visit
/// for `requests`, in the order of `funcs`.
pub fn in_scope(funcs: &[Val], requests: &[RequestSite]) -> Vec<Val> {
    if requests.is_empty() {
        return funcs.to_vec();
    }
    let known: HashSet<Val> = funcs.iter().copied().collect();
    let mut seeds: Vec<Val> = Vec::new();
    for s in requests {
        seeds.push(s.function);
        seeds.extend(s.call.parent_function());
    }
    for &f in funcs {
        if address_taken(f) || calls_api(f) {
            seeds.push(f);
        }
    }
    let mut reached: HashSet<Val> = HashSet::new();
    while let Some(f) = seeds.pop() {
        if !known.contains(&f) || !reached.insert(f) {
            continue;
        }
        // Callers: every use of a function that is not an address taken is a direct call.
        for u in f.users() {
            if let Some(caller) = u.parent_function() {
                seeds.push(caller);
            }
        }
        // Callees.
        for b in f.blocks() {
            for i in b.instructions() {
                if i.is_call() || i.is_invoke() {
                    seeds.extend(i.called_function());
                }
            }
        }
    }
    funcs
        .iter()
        .copied()
        .filter(|f| reached.contains(f))
        .collect()
}

/// True when `f` is used other than as the callee of a direct call: passed or stored as a
/// pointer, referenced by a constant (a global's initialiser, an alias), or the function a
/// request differentiates.
fn address_taken(f: Val) -> bool {
    f.users().into_iter().any(|u| {
        let callee =
            (u.is_call() || u.is_invoke()) && u.called_value() == f && !u.call_args().contains(&f);
        !callee
    })
}

/// True when `f` calls one of Umbra's or Enzyme's API functions (requests whose types are
/// read in `f`'s values, split mode, batch mode).
fn calls_api(f: Val) -> bool {
    f.blocks().into_iter().any(|b| {
        b.instructions().into_iter().any(|i| {
            (i.is_call() || i.is_invoke())
                && i.called_function().is_some_and(|g| {
                    let name = g.name();
                    name.contains("__enzyme_") || name.contains("__umbra_")
                })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{parse_test_module, Module};

    #[test]
    fn scope_is_what_calls_connect_to_requests_and_taken_addresses() {
        let ctx = inkwell::context::Context::create();
        let llm = parse_test_module(
            &ctx,
            r#"
            @table = global ptr @callback
            declare double @__umbra_autodiff(ptr, ...)
            define double @f(ptr %x) {
              %v = call double @helper(ptr %x)
              ret double %v
            }
            define double @helper(ptr %x) {
              %v = load double, ptr %x
              ret double %v
            }
            define double @other_caller(ptr %x) {
              %v = call double @helper(ptr %x)
              ret double %v
            }
            define double @grad(ptr %x, ptr %dx) {
              %d = call double (ptr, ...) @__umbra_autodiff(ptr @f, ptr %x, ptr %dx)
              ret double %d
            }
            define double @callback(ptr %x) {
              %v = call double @leaf(ptr %x)
              ret double %v
            }
            define double @leaf(ptr %x) {
              %v = load double, ptr %x
              ret double %v
            }
            define double @unrelated(ptr %x) {
              %v = call double @unrelated_leaf(ptr %x)
              ret double %v
            }
            define double @unrelated_leaf(ptr %x) {
              %v = load double, ptr %x
              ret double %v
            }
            "#,
        );
        let m = Module(llm.as_mut_ptr());
        let funcs: Vec<Val> = m
            .functions()
            .into_iter()
            .filter(|f| !f.is_declaration())
            .collect();
        let grad = m.function("grad").expect("grad");
        let call = grad.blocks()[0].instructions()[0];
        let site = RequestSite {
            call,
            function: m.function("f").expect("f"),
            args: Vec::new(),
            constants: Vec::new(),
        };
        let names = |fs: Vec<Val>| fs.into_iter().map(|f| f.name()).collect::<Vec<_>>();
        // `other_caller` shares `helper` with `f`, so it types `f`'s callee; `callback` and its
        // callee may be reached through the table; `unrelated` and its callee cannot matter.
        assert_eq!(
            names(in_scope(&funcs, std::slice::from_ref(&site))),
            ["f", "helper", "other_caller", "grad", "callback", "leaf"]
        );
        // Without requests nothing tells what matters: everything is in.
        assert_eq!(in_scope(&funcs, &[]).len(), funcs.len());
    }
}
