//! Reverse mode: gradients.
//!
//! For a function `f` and an activity per parameter, two functions are derived and share one
//! tape ([`tape`]):
//! - `augfwd.f.<codes>(tape, args...)` runs `f`'s primal, keeps pointer shadows up to date
//!   (shadow allocations, shadow pointers stored into shadow memory) and, right after each
//!   instruction, pushes what that instruction's adjoint will need ([`needs`]). Blocks with
//!   several predecessors push which one was taken (Mooncake's block stack); functions with
//!   several returns push which one returned. It returns `f`'s result (with its shadow when it
//!   is a pointer).
//! - `adjoint.f.<codes>(tape, args..., [dret])` walks the blocks backwards from the return,
//!   popping at each instruction exactly what the forward sweep pushed there, accumulating
//!   adjoints in stack slots (promoted to SSA by the optimiser) and into shadow memory. It
//!   returns the adjoints of the `out` (active scalar) parameters, as a struct in order.
//!
//! Parameters are followed by their shadow when duplicated, exactly as in forward mode; the
//! adjoint receives every primal argument and shadow again, so arguments never go on the tape.
//! Callees get their own pair and push onto the same tape, so calls nest without allocation.
//! A gradient request calls the two in sequence ([`crate::api`]).

mod adjoint;
mod augmented;
mod cfg;
mod classify;
pub(crate) mod memcopy;
mod needs;
mod plan;
mod tape;

pub use tape::{free_tape, new_tape, tape_type};

use crate::api::Activity;
use crate::cache::{Derived, Job, Session};
use crate::diag::{Error, Result};
use crate::ir::{Module, Ty, Val};

/// True when `f`'s adjoint takes the adjoint of its result (floating-point data, no pointers).
pub fn returns_adjoint(f: Val) -> bool {
    let r = f.function_type().return_type();
    r.contains_float() && !r.contains_ptr()
}

/// True when `f`'s augmented forward sweep returns `{result, shadow}` (a pointer result).
pub fn returns_shadow(f: Val) -> bool {
    f.function_type().return_type().is_ptr()
}

/// Declares the augmented forward and adjoint functions of `f` for `activity`.
pub fn declare(
    module: Module,
    f: Val,
    activity: &[Activity],
    memory_stable: bool,
) -> Result<(Val, Val)> {
    let fty = f.function_type();
    if fty.is_var_arg() {
        return Err(Error::in_function(
            f,
            "cannot differentiate a variadic function",
        ));
    }
    let ret = fty.return_type();
    if ret.contains_float() && ret.contains_ptr() {
        return Err(Error::in_function(
            f,
            format!(
                "reverse mode cannot differentiate a function returning {}, which mixes floating-point data and pointers",
                ret.print()
            ),
        ));
    }
    let ctx = module.context();
    let ptr = Ty::ptr(ctx);
    let mut params = vec![ptr];
    let mut outs = Vec::new();
    for (p, a) in fty.param_types().into_iter().zip(activity) {
        params.push(p);
        if a.has_shadow() {
            params.push(p);
        }
        if *a == Activity::Out {
            outs.push(p);
        }
    }
    let aug_ret = if returns_shadow(f) {
        Ty::literal_struct(ctx, &[ret, ret])
    } else {
        ret
    };
    let mut codes: String = activity.iter().map(|a| a.code()).collect();
    if memory_stable {
        codes.push_str(".s");
    }
    let aug = module.add_function(
        &format!("augfwd.{}.{}", f.name(), codes),
        Ty::function(aug_ret, &params, false),
    );
    let mut adj_params = params.clone();
    if returns_adjoint(f) {
        adj_params.push(ret);
    }
    let adj_ret = if outs.is_empty() {
        Ty::void(ctx)
    } else {
        Ty::literal_struct(ctx, &outs)
    };
    let adj = module.add_function(
        &format!("adjoint.{}.{}", f.name(), codes),
        Ty::function(adj_ret, &adj_params, false),
    );
    for d in [aug, adj] {
        d.set_internal();
        crate::forward::copy_target_attributes(f, d);
        name_params(f, d, activity);
    }
    Ok((aug, adj))
}

fn name_params(f: Val, d: Val, activity: &[Activity]) {
    let params = d.params();
    params[0].set_name("tape");
    crate::clone::name_params(f, d, activity, 1);
    let used = 1 + activity.len() + activity.iter().filter(|a| a.has_shadow()).count();
    if let Some(dret) = params.get(used) {
        dret.set_name("dret");
    }
}

/// Builds the bodies of a declared reverse-mode pair.
pub fn generate(session: &mut Session, job: &Job) -> Result<()> {
    let Derived::Reverse { augmented, adjoint } = job.derived else {
        return Ok(());
    };
    augmented::AugmentedFn::new(session, &job.key, augmented).run()?;
    adjoint::AdjointFn::new(session, &job.key, adjoint).run()
}

/// The activity a callee parameter gets from the caller's argument `a`: pointers with shadows
/// are duplicated, floating-point values with adjoints are active (`out`), the rest constant.
pub(crate) fn call_activity(a: Val, is_active: impl Fn(Val) -> bool) -> Activity {
    if !is_active(a) {
        return Activity::Const;
    }
    let ty = a.ty();
    if ty.is_ptr() {
        Activity::Dup
    } else if ty.contains_float() && !ty.contains_ptr() {
        Activity::Out
    } else {
        Activity::Const
    }
}
