//! Building derived functions: asks the [`Session`] for a declaration, then drains its worklist,
//! giving each declared function its body with the visitor of its mode ([`crate::forward`] or
//! [`crate::reverse`]). Kept apart from the cache so the cache depends on no visitor.
//!
//! A dispatcher over guessed candidates (the address-taken functions of a call's type,
//! [`crate::devirt`]) asks for the derivative of every candidate, though the program may never
//! call most of them there. When the body of a derived function reached only through such
//! dispatchers cannot be built (a candidate calling a function without body or rule, an
//! unsupported construct), that is no compile-time error: the function's body becomes the
//! error at run time ([`crate::cache::Requesters`]), so a program that never takes that path gets its
//! derivative, and one that does stops with the reason, never a wrong derivative. A derived
//! function also reached any other way (from a request, a direct call, a dispatcher whose
//! candidates are read off the pointer's origin) keeps the compile-time error.

use crate::cache::{Derived, Job, Session};
use crate::diag::{Error, ErrorKind, Result};
use crate::ir::{Builder, Val};
use crate::vocab::Activity;

/// The forward-mode derivative of `f` for `activity`, with its body and the bodies of every
/// derived function it needs built.
#[cfg(test)]
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
    // A request asked while a body is being built (a nested one) starts from no asker.
    let outer = session.requests_graph.building.take();
    let result = drain(session);
    session.requests_graph.building = outer;
    result?;
    session.requests_graph.check()
}

fn drain(session: &mut Session) -> Result<()> {
    while let Some(job) = session.next_job() {
        let open = crate::devirt::is_open_dispatcher(job.key.function);
        session.requests_graph.building = Some((job.derived.primary(), open));
        let result = build_one(session, &job);
        session.requests_graph.building = None;
        if let Err(e) = result {
            leave_out(session, &job, e)?;
        }
    }
    Ok(())
}

/// Builds the body (or bodies) of one job with the generator its function needs.
fn build_one(session: &mut Session, job: &Job) -> Result<()> {
    // The derivatives of checkpointed loops and fixed points are not differentiated again.
    if let Some(e) = crate::checkpoint::refuse_higher_order(job.key.function) {
        return Err(e);
    }
    match job.derived {
        // A fixed-point loop's tangent is iterated at the converged state.
        Derived::Forward(_) if crate::checkpoint::fixed::is_fixed_point(job.key.function) => {
            crate::checkpoint::fixed::generate_forward(session, job)
        }
        Derived::Forward(_) => crate::forward::generate(session, job),
        Derived::Reverse { .. } if crate::checkpoint::fixed::is_fixed_point(job.key.function) => {
            crate::checkpoint::fixed_reverse::generate(session, job)
        }
        // A checkpointed loop's pair drives its scheme instead of taping every step.
        Derived::Reverse { .. } if crate::checkpoint::is_loop(job.key.function) => {
            crate::checkpoint::reverse::generate(session, job)
        }
        Derived::Reverse { .. } => crate::reverse::generate(session, job),
    }
}

/// After the body of `job` failed with `e`: the error, unless only guessed candidates reach
/// the function; then its body becomes `e` at run time.
fn leave_out(session: &mut Session, job: &Job, e: Error) -> Result<()> {
    let primary = job.derived.primary();
    if e.kind != ErrorKind::Unsupported || session.requests_graph.reached_plainly(primary) {
        return Err(e);
    }
    let message = format!(
        "error: {e} (reached through a function pointer of unknown origin, so this is an error when it runs)"
    );
    let fs = match job.derived {
        Derived::Forward(f) => vec![f],
        Derived::Reverse { augmented, adjoint } => vec![augmented, adjoint],
    };
    for f in fs {
        f.delete_body();
        let entry = f.append_block("entry");
        let mut b = Builder::new(session.module);
        b.position_at_end(entry);
        crate::unwind::emit_fatal(&mut b, &message);
    }
    session.requests_graph.left_out.push((primary, e));
    Ok(())
}
