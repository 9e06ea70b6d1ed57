//! Reverse mode of a fixed-point function ([`super::fixed`]): Christianson's two-phase adjoint.
//!
//! The augmented sweep runs the primal loop to convergence and keeps the converged memory
//! (states and regions) and the last iteration's index on the tape: one snapshot, whatever the
//! number of iterations. The adjoint iterates the step's adjoint at the converged state as a
//! Neumann series: with `w0` the state's adjoint on entry, `d1 = phi_z^T w0 + psi_z^T ybar`,
//! `d(k+1) = phi_z^T d(k)`; each pass is one call of the step's reverse pair (augmented sweep
//! then adjoint, on a tape freed at once) with the state's shadow holding `d(k)`, so the
//! adjoints of the other arguments receive `phi_x^T d(k)` each pass and in all
//! `phi_x^T (w0 + d1 + d2 + ...) = phi_x^T w*`, `w*` the solution of `w = w0 + psi_z^T ybar +
//! phi_z^T w`. Outputs the step overwrites (`y`) get their adjoint used in the first pass and
//! zeroed by it. The passes stop by the rule of [`super::fixed_emit`] on the squared norm of
//! `d(k+1)`; the state's shadow is then zeroed (the converged state does not depend on the
//! initial guess) and the memory is put back as the adjoint found it.
//!
//! Guarantees: the step is differentiated with the fixed-point function's own activity (so its
//! shadows line up); the stopping rule is that of forward mode.

use super::fixed_emit::Fp;
use crate::cache::{Job, Session};
use crate::diag::{Error, Result};
use crate::ir::{Builder, Ty, Val};

/// Builds both bodies of `job`, the reverse pair of a fixed-point function.
pub fn generate(session: &mut Session, job: &Job) -> Result<()> {
    let crate::cache::Derived::Reverse { augmented, adjoint } = job.derived else {
        return Ok(());
    };
    let f = job.key.function;
    let step =
        super::step_of(f).ok_or_else(|| Error::internal(f, "a fixed point without its step"))?;
    super::refusal(job.key.function)?;
    let acts = super::fixed_emit::step_activity(job, step)?;
    let (step_aug, step_adj) = session.declare_reverse(step, &acts, true, 0)?;
    let module = session.module;
    let ctx = module.context();
    let (i64t, ptr) = (Ty::int(ctx, 64), Ty::ptr(ctx));

    // Augmented sweep: the loop, then the converged memory and the last index on the tape.
    let mut b = Builder::new(module);
    let tape = augmented.params()[0];
    b.position_at_end(augmented.append_block("entry"));
    let fp = Fp::new(&mut b, job, augmented, 1, step);
    let last = fp.primal_loop(&mut b, augmented);
    for kept in fp.keep(&mut b) {
        crate::tape::push(&mut b, tape, kept);
    }
    crate::tape::push(&mut b, tape, last);
    b.ret_void();

    // Adjoint: the passes at the converged memory.
    let tape = adjoint.params()[0];
    b.position_at_end(adjoint.append_block("entry"));
    let fp = Fp::new(&mut b, job, adjoint, 1, step);
    let last = crate::tape::pop(&mut b, tape, i64t);
    let mut converged: Vec<Val> = (0..fp.memory.len())
        .map(|_| crate::tape::pop(&mut b, tape, ptr))
        .collect();
    converged.reverse();
    let found = fp.keep(&mut b);
    let mut it = fp.iterate(&mut b, adjoint);
    fp.restore(&mut b, &converged);
    let placeholder = b.unreachable();
    let step_tape = crate::tape::new_tape(&mut b, adjoint, placeholder);
    let mut args = vec![step_tape, fp.index(&mut b, last)];
    for (a, sh) in &fp.args {
        args.push(*a);
        args.extend(sh.iter().copied());
    }
    let guarded = crate::tape::owned::guarded(module, session.personality(), step_aug, false);
    b.call_function(guarded, &args);
    // At its peak: the next gradient's step tape starts as large.
    crate::tape::settle(&mut b, step_tape);
    if session.opts.tape_stats {
        crate::tape::report_stats(&mut b, step_tape);
    }
    b.call_function(step_adj, &args);
    crate::tape::free_tape(&mut b, step_tape);
    let pass_end = b.current_block();
    placeholder.erase();
    b.position_at_end(pass_end);
    let mut cumul = Ty::double(ctx).zero();
    for m in fp.states() {
        if let Some(dz) = m.shadow {
            let part = super::fixed_emit::squared_norm(&mut b, adjoint, dz, None, m.bytes);
            cumul = b.fadd(cumul, part);
        }
    }
    it.end_pass(&mut b, &fp, adjoint, cumul);
    for m in fp.states() {
        if let Some(dz) = m.shadow {
            b.memset_zero(dz, m.bytes, 1);
        }
    }
    fp.restore(&mut b, &found);
    fp.free_all(&mut b, converged.into_iter().chain(found));
    b.ret_void();
    Ok(())
}
