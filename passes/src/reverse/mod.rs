//! Reverse mode: gradients.
//!
//! For a function `f` and an activity per parameter, two functions are derived and share one
//! tape ([`tape`]):
//! - `augfwd.f.<codes>(tape, args...)` runs `f`'s primal, keeps pointer shadows up to date
//!   (shadow allocations, shadow pointers stored into shadow memory) and, right after each
//!   instruction, pushes what that instruction's adjoint will need ([`needs`]). Blocks with
//!   several predecessors push which one was taken (Mooncake's block stack) unless the branch
//!   conditions that decided it can be evaluated again ([`pred_choice`]); functions with
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
mod batch;
mod byte_check;
mod bytes;
mod cfg;
mod classify;
mod int_pointers;
mod loop_tape;
mod needs;
mod openmp;
pub mod owned;
mod parallel;
mod plan;
mod pred_choice;
mod tape;
pub mod tape_pool;
mod tape_report;
mod trip_count;
mod unread_primal;

pub use tape::{free_tape, new_tape, report_stats, settle, tape_type};
pub use unread_primal::remove_unread_primal;

use crate::api::Activity;
use crate::cache::{Derived, Job, Session};
use crate::diag::Result;
use crate::ir::Val;

pub use crate::signature::{returns_adjoint, returns_shadow};

/// Builds the bodies of a declared reverse-mode pair.
pub fn generate(session: &mut Session, job: &Job) -> Result<()> {
    let Derived::Reverse { augmented, adjoint } = job.derived else {
        return Ok(());
    };
    session.set_context(job.key.ctx);
    // One plan for both sweeps: they must agree on it, and its overwrite analysis is the
    // costliest part of planning (index reasoning over every load and later store).
    let key = &job.key;
    let active = session.activity(key.function, &key.activity);
    let cfg = cfg::ReverseCfg::of(key.function);
    let plan = plan::ReversePlan::new(
        key.function,
        &cfg,
        &active,
        &session.rules,
        key.memory_stable,
    );
    augmented::AugmentedFn::new(session, key, augmented, plan.clone()).run()?;
    adjoint::AdjointFn::new(session, key, adjoint, plan).run()
}

/// The activity a callee parameter gets from the caller's argument `a`: pointers with shadows
/// are duplicated, floating-point values with adjoints are active (`out`), and so are integers
/// the parameter receives as float bits (`float_bits`, [`crate::signature::FloatBits`]); the
/// rest constant.
pub(crate) fn call_activity(a: Val, float_bits: bool, is_active: impl Fn(Val) -> bool) -> Activity {
    call_activity_at(None, a, float_bits, is_active)
}

/// [`call_activity`] of argument `k` of `call` to a defined callee, where a null pointer the
/// callee may store is duplicated ([`crate::analysis::activity::null_needs_shadow`]).
pub(crate) fn arg_activity(
    call: Val,
    k: usize,
    a: Val,
    float_bits: bool,
    is_active: impl Fn(Val) -> bool,
) -> Activity {
    call_activity_at(Some((call, k)), a, float_bits, is_active)
}

fn call_activity_at(
    at: Option<(Val, usize)>,
    a: Val,
    float_bits: bool,
    is_active: impl Fn(Val) -> bool,
) -> Activity {
    if at.is_some_and(|(call, k)| crate::analysis::activity::null_needs_shadow(call, k, a)) {
        return Activity::Dup;
    }
    if !is_active(a) {
        return Activity::Const;
    }
    let ty = a.ty();
    if ty.is_ptr() {
        Activity::Dup
    } else if ty.contains_float() && !ty.contains_ptr() || ty.is_int() && float_bits {
        Activity::Out
    } else {
        Activity::Const
    }
}
