//! Keeping functions with user rules out of line until their rules have been applied, and
//! giving them their inlining back afterwards.
//!
//! A rule (a registered derivative or gradient, `function_like`, an inactive function) applies
//! to calls: once the optimiser inlines the body, the rule is gone and the body would be
//! differentiated in its place. [`protect_from_inlining`] runs at the start of the host's
//! pipeline (the pass plugin's `umbra-protect`, or the clang plugin without its pass) and marks
//! such functions `noinline` and `nobuiltin`, recording in [`MARK`] which attributes it added or
//! removed. [`release_protection`] undoes exactly those changes once a module's requests are
//! differentiated, so that the re-optimisation may inline the functions into the program and
//! into the derived code, as it would have without Umbra.
//!
//! Guarantees: attributes the user wrote are never removed (only those [`MARK`] lists); a
//! function is protected at most once; a module without requests keeps its protection (its
//! functions may still be differentiated after a later link with the module that holds the
//! requests).

use super::user::registered_functions;
use crate::ir::{Module, Val};

/// String attribute on a protected function: the comma-separated changes to undo
/// (`noinline`, `nobuiltin`: added; `alwaysinline`: removed).
pub const MARK: &str = "umbra-protected";

/// Keeps the calls to functions that have rules: marks the functions `noinline` (dropping an
/// `alwaysinline` that would contradict it) and `nobuiltin`. The latter because LLVM treats a
/// `nobuiltin` definition as one that may be replaced at link time, so it infers nothing
/// interprocedurally from the body: without it, `double f(double x) { return x; }` gets a
/// `returned` parameter and its callers use `x` instead of the call. The body itself is still
/// optimised. Run early in the pipeline (the plugin does, at pipeline start) so the rules still
/// find calls to replace. Returns how many functions it changed.
pub fn protect_from_inlining(module: Module) -> usize {
    let mut changed = 0;
    for (f, _) in registered_functions(module) {
        if f.is_declaration() || f.string_fn_attr(MARK).is_some() {
            continue;
        }
        let mut undo = Vec::new();
        if f.has_fn_attr("alwaysinline") {
            f.set_fn_attr("alwaysinline", false);
            undo.push("alwaysinline");
        }
        for added in ["noinline", "nobuiltin"] {
            if !f.has_fn_attr(added) {
                f.set_fn_attr(added, true);
                undo.push(added);
            }
        }
        if undo.is_empty() {
            continue;
        }
        f.set_string_fn_attr(MARK, &undo.join(","));
        changed += 1;
    }
    changed
}

/// Undoes [`protect_from_inlining`] on every function it marked; returns those functions.
/// Call once the module's requests are differentiated (their rules are applied).
pub fn release_protection(module: Module) -> Vec<Val> {
    let mut released = Vec::new();
    for f in module.functions() {
        let Some(undo) = f.string_fn_attr(MARK) else {
            continue;
        };
        f.remove_string_fn_attr(MARK);
        for change in undo.split(',') {
            match change {
                "alwaysinline" => f.set_fn_attr("alwaysinline", true),
                "noinline" | "nobuiltin" => f.set_fn_attr(change, false),
                _ => {}
            }
        }
        released.push(f);
    }
    released
}

/// True when `f`'s body calls one of `released` directly: re-optimising `f` may inline it.
pub fn calls_any(f: Val, released: &[Val]) -> bool {
    f.blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .any(|i| i.is_call() && i.called_function().is_some_and(|g| released.contains(&g)))
}

#[cfg(test)]
mod tests;
