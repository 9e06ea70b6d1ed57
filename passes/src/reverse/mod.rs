//! Reverse mode: gradients.
//!
//! For a function `f` and an activity per parameter, two functions are derived and share one
//! tape ([`crate::tape`]):
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
mod alias_scopes;
mod augmented;
mod batch;
mod byte_check;
mod bytes;
mod cfg;
mod classify;
mod dead_adjoints;
mod int_pointers;
mod loop_tape;
mod needs;
mod openmp;
mod parallel;
mod partial_sums;
mod plan;
mod pred_choice;
mod tape_report;
mod trip_count;
mod unread_primal;

pub use crate::tape::{free_tape, new_tape, report_stats, settle};
pub use unread_primal::remove_unread_primal;

use crate::cache::{Derived, Job, Session};
use crate::diag::Result;

pub use crate::signature::{returns_adjoint, returns_shadow};

/// The activity the plan and both sweeps share: forward activity less the values whose adjoint
/// is always zero ([`dead_adjoints`]).
fn activity(
    session: &Session,
    f: crate::ir::Val,
    acts: &[crate::vocab::Activity],
) -> crate::analysis::activity::ActiveSet {
    let mut active = session.activity(f, acts);
    dead_adjoints::prune(f, &mut active, &session.rules);
    active
}

/// Builds the bodies of a declared reverse-mode pair.
pub fn generate(session: &mut Session, job: &Job) -> Result<()> {
    let Derived::Reverse { augmented, adjoint } = job.derived else {
        return Ok(());
    };
    session.set_context(job.key.ctx);
    // One plan for both sweeps: they must agree on it, and its overwrite analysis is the
    // costliest part of planning (index reasoning over every load and later store).
    let key = &job.key;
    let active = activity(session, key.function, &key.activity);
    let cfg = cfg::ReverseCfg::of(key.function);
    let plan = plan::ReversePlan::new(
        key.function,
        &cfg,
        &active,
        &session.rules,
        &key.caller_writes,
    );
    augmented::AugmentedFn::new(session, key, augmented, plan.clone()).run()?;
    adjoint::AdjointFn::new(session, key, adjoint, plan).run()?;
    alias_scopes::mark_pair(key.function, &key.activity, augmented, adjoint);
    Ok(())
}
