//! Lowering one request: by its kind (forward, reverse, split sweeps, batch), then, for a request that
//! was an `invoke`, the unwinding edges of the code that replaced it.

use super::{batch, lower, split, Mode, Request};

/// Lowers one request: generates (or reuses) its derived function and rewrites the call.
pub fn lower_request(
    session: &mut crate::cache::Session,
    req: &Request,
) -> crate::diag::Result<()> {
    // A request inside `try` (an `invoke`): the derived calls unwind to its landing pad.
    let span = req
        .call
        .is_invoke()
        .then(|| crate::unwind::Span::before(req.call));
    // The caller's memory must be what the function reads it as. Judged before the request's
    // call goes away, reported after lowering: a refusal of the derivation itself names the
    // instruction at fault, which says more (a byte copy splitting doubles).
    let mut view = Ok(());
    if session.has_request(req.call) {
        let m = session.module;
        let name = req.call.called_value().name();
        if session.opts.print_types {
            let lines =
                crate::analysis::types::requests::describe(session.types(), m, req.call, &name);
            session.report.extend(lines);
        }
        view = crate::analysis::types::check_request(session.types(), m, req.call, &name);
        // The user's type hints (`__enzyme_double`, ...) hold, or the request goes no further.
        crate::analysis::types::check_hints(session.types(), m)?;
    }
    let lowered = match req.mode {
        _ if req.split.is_some() => split::lower_split(session, req),
        _ if req.batch.is_some() => batch::lower_batch(session, req),
        Mode::Forward => lower::lower_forward(session, req),
        Mode::Reverse => lower::lower_reverse(session, req),
    };
    // Its call is gone: an analysis that has not run yet must not look for it.
    session.forget_request(req.call);
    lowered?;
    view?;
    if let Some(span) = span {
        lower::finish_invoked(session.module, req, &span);
    }
    Ok(())
}
