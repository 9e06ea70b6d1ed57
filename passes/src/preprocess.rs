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
pub fn canonicalize_reachable(
    _module: Module,
    requests: &[Request],
    rules: &UserRules,
) -> Result<()> {
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
            for b in f.blocks() {
                for i in b.instructions() {
                    if i.is_call() {
                        if let Some(callee) = i.called_function() {
                            stack.push(callee);
                        }
                        // A parallel region's body runs through the OpenMP runtime.
                        stack.extend(crate::openmp::outlined(i));
                    }
                }
            }
        }
        if canonical.is_empty() {
            return Ok(());
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

pub(crate) fn canonicalize(f: Val) -> Result<()> {
    let had_optnone = f.has_fn_attr("optnone");
    if had_optnone {
        f.set_fn_attr("optnone", false);
    }
    let result = run_function_passes(f, PIPELINE);
    if had_optnone {
        f.set_fn_attr("optnone", true);
    }
    result.map_err(|e| Error::in_function(f, format!("canonicalisation failed: {e}")))
}
