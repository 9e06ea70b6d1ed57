//! Building derived functions: asks the [`Session`] for a declaration, then drains its worklist,
//! giving each declared function its body with the visitor of its mode ([`crate::forward`] or
//! [`crate::reverse`]). Kept apart from the cache so the cache depends on no visitor.

use crate::api::Activity;
use crate::cache::{Derived, Session};
use crate::diag::Result;
use crate::ir::Val;

/// The forward-mode derivative of `f` for `activity`, with its body and the bodies of every
/// derived function it needs built.
pub fn forward_function(session: &mut Session, f: Val, activity: &[Activity]) -> Result<Val> {
    forward_function_wide(session, f, activity, 1, 0)
}

/// [`forward_function`] carrying `width` tangents per call (batched forward mode): every
/// shadow parameter and the result's tangent are `[width x T]`; `f` is derived in type context
/// `ctx` (that of the request asking).
pub fn forward_function_wide(
    session: &mut Session,
    f: Val,
    activity: &[Activity],
    width: u32,
    ctx: u32,
) -> Result<Val> {
    let derived = session.declare_forward_wide(f, activity, width, ctx)?;
    build_pending(session)?;
    Ok(derived)
}

/// The reverse-mode pair (augmented forward, adjoint) of `f` for `activity`, with bodies built
/// for it and everything it needs; `f` is derived in type context `ctx` (that of the request
/// asking).
pub fn reverse_functions(
    session: &mut Session,
    f: Val,
    activity: &[Activity],
    memory_stable: bool,
    ctx: u32,
) -> Result<(Val, Val)> {
    let pair = session.declare_reverse(f, activity, memory_stable, ctx)?;
    build_pending(session)?;
    Ok(pair)
}

fn build_pending(session: &mut Session) -> Result<()> {
    let result = build_all(session);
    // Requests and reports ask about the functions they name, in their default type context.
    session.set_context(0);
    result
}

fn build_all(session: &mut Session) -> Result<()> {
    while let Some(job) = session.next_job() {
        match job.derived {
            Derived::Forward(_) => crate::forward::generate(session, &job)?,
            Derived::Reverse { .. } => crate::reverse::generate(session, &job)?,
        }
    }
    Ok(())
}
