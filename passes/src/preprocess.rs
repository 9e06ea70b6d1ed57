//! Canonicalisation before differentiation, as Enzyme does: SROA and mem2reg turn the stack
//! traffic of `-O0` code into SSA values, so the derivative of a local is an SSA tangent instead
//! of a store/load pair through shadow memory.
//!
//! Only functions reachable from a request are touched, and only with semantics-preserving
//! passes. `optnone` is lifted for the passes and put back afterwards, so the primal keeps its
//! `-O0` treatment in the rest of the pipeline.

use crate::api::Request;
use crate::diag::{Error, Result};
use crate::ir::{run_function_passes, sys, Module, Val};
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
    while let Some(f) = stack.pop() {
        if f.is_declaration() || rules.is_inactive(&f.name()) || !seen.insert(f) {
            continue;
        }
        canonicalize(f)?;
        for b in f.blocks() {
            for i in b.instructions() {
                if i.is_call() {
                    if let Some(callee) = i.called_function() {
                        stack.push(callee);
                    }
                }
            }
        }
    }
    Ok(())
}

fn canonicalize(f: Val) -> Result<()> {
    let optnone = attribute_kind("optnone");
    let had_optnone = has_fn_attribute(f, optnone);
    if had_optnone {
        remove_fn_attribute(f, optnone);
    }
    let result = run_function_passes(f, PIPELINE);
    if had_optnone {
        add_fn_attribute(f, optnone);
    }
    result.map_err(|e| Error::in_function(f, format!("canonicalisation failed: {e}")))
}

fn attribute_kind(name: &str) -> u32 {
    unsafe { sys::core::LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len()) }
}

const FN_INDEX: u32 = u32::MAX; // LLVMAttributeFunctionIndex

fn has_fn_attribute(f: Val, kind: u32) -> bool {
    unsafe { !sys::core::LLVMGetEnumAttributeAtIndex(f.0, FN_INDEX, kind).is_null() }
}

fn remove_fn_attribute(f: Val, kind: u32) {
    unsafe { sys::core::LLVMRemoveEnumAttributeAtIndex(f.0, FN_INDEX, kind) }
}

fn add_fn_attribute(f: Val, kind: u32) {
    unsafe {
        let ctx = sys::core::LLVMGetTypeContext(sys::core::LLVMTypeOf(f.0));
        let a = sys::core::LLVMCreateEnumAttribute(ctx, kind, 0);
        sys::core::LLVMAddAttributeAtIndex(f.0, FN_INDEX, a);
    }
}
