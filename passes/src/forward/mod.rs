//! Forward mode: tangent generation.
//!
//! For a function `f(p1, ..., pn)` and an activity per parameter, the derived function
//! `fwddiffe.f.<codes>` takes each parameter followed, when it is duplicated, by its shadow (a
//! tangent for values, shadow memory for pointers), and returns `{ret, d_ret}` when the return
//! type carries a derivative, else `f`'s own return type. Its body is `f`'s body with every
//! active instruction followed by the instructions computing its tangent.
//!
//! One visitor ([`function::ForwardFn`]) builds one derived function; its methods are split by
//! instruction family: [`arith`], [`memory`], [`calls`], [`control`], [`int_pointers`].

mod arith;
mod calls;
mod control;
mod function;
mod int_pointers;
mod memory;
mod openmp;

use crate::cache::{Job, Session};
use crate::diag::Result;

pub use crate::signature::returns_tangent;

/// Builds the body of a declared forward derivative.
pub fn generate(session: &mut Session, job: &Job) -> Result<()> {
    session.set_context(job.key.ctx);
    function::ForwardFn::new(session, job).run()
}
