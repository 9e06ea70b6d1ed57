//! Forward mode: tangent generation.
//!
//! For a function `f(p1, ..., pn)` and an activity per parameter, the derived function
//! `fwddiffe.f.<codes>` takes each parameter followed, when it is duplicated, by its shadow (a
//! tangent for values, shadow memory for pointers), and returns `{ret, d_ret}` when the return
//! type carries a derivative, else `f`'s own return type. Its body is `f`'s body with every
//! active instruction followed by the instructions computing its tangent.
//!
//! One visitor ([`function::ForwardFn`]) builds one derived function; its methods are split by
//! instruction family: [`arith`], [`memory`], [`calls`], [`control`].

mod arith;
mod calls;
mod control;
mod function;
mod memory;

use crate::api::Activity;
use crate::cache::{Job, Session};
use crate::diag::{Error, Result};
use crate::ir::{sys, Module, Ty, Val};

/// True when the forward derivative of `f` returns `{ret, d_ret}`.
pub fn returns_tangent(f: Val) -> bool {
    f.function_type().return_type().carries_derivative()
}

/// Declares the forward derivative of `f` for `activity` (no body yet).
pub fn declare(module: Module, f: Val, activity: &[Activity]) -> Result<Val> {
    let fty = f.function_type();
    if fty.is_var_arg() {
        return Err(Error::in_function(
            f,
            "cannot differentiate a variadic function",
        ));
    }
    let ret = fty.return_type();
    let mut params = Vec::new();
    for (p, a) in fty.param_types().into_iter().zip(activity) {
        params.push(p);
        if a.has_shadow() {
            params.push(p);
        }
    }
    let new_ret = if returns_tangent(f) {
        Ty::literal_struct(module.context(), &[ret, ret])
    } else {
        ret
    };
    let codes: String = activity.iter().map(|a| a.code()).collect();
    let d = module.add_function(
        &format!("fwddiffe.{}.{}", f.name(), codes),
        Ty::function(new_ret, &params, false),
    );
    d.set_internal();
    copy_target_attributes(f, d);
    crate::clone::name_params(f, d, activity, 0);
    Ok(d)
}

/// Builds the body of a declared forward derivative.
pub fn generate(session: &mut Session, job: &Job) -> Result<()> {
    function::ForwardFn::new(session, job).run()
}

/// The derived function is compiled for the same target as the primal, so it vectorises alike.
pub(crate) fn copy_target_attributes(from: Val, to: Val) {
    const FN_INDEX: u32 = u32::MAX;
    for key in ["target-cpu", "target-features", "tune-cpu"] {
        unsafe {
            let a = sys::core::LLVMGetStringAttributeAtIndex(
                from.0,
                FN_INDEX,
                key.as_ptr() as *const _,
                key.len() as u32,
            );
            if !a.is_null() {
                sys::core::LLVMAddAttributeAtIndex(to.0, FN_INDEX, a);
            }
        }
    }
}
