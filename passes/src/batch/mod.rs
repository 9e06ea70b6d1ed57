//! Batch mode (`__enzyme_batch`): a function run on N argument sets at once, its lanes in
//! lockstep like the lanes of a SIMD unit.
//!
//! For a function `f` and the set of its parameters that receive one value per lane, the
//! batched function `batch.f.<codes>.w<N>` (`v` for a lane-varying parameter, `s` for a shared
//! one) takes each varying parameter as an `[N x T]` of lanes and returns an `[N x R]` of
//! results (or nothing for a `void` `f`). Its body is `f`'s: the work that depends on no
//! varying parameter ([`varying`]) is emitted once and shared, every other instruction once per
//! lane, so the lanes' arithmetic sits side by side for the vectoriser. Callees with a body
//! that receive lane-varying arguments are batched in turn (one batched function per callee and
//! varying set, cached in the session); declarations are called once per lane.
//!
//! Lockstep has consequences the code checks rather than gets wrong:
//! - every lane takes the same path: a branch or switch on a lane-varying value is an error
//!   (write it as a selection, `fmax`/`fmin`, or branch on a shared value);
//! - memory every lane sees (globals, `enzyme_scalar` pointers) is shared: a lane-varying value
//!   stored there (directly, or by a declaration called once per lane) would be overwritten by
//!   the next lane, so that is an error; each lane gets its own stack slots and heap
//!   allocations;
//! - work that depends on no lane runs once, so a side effect of it (a counter incremented, a
//!   message printed with shared arguments) happens once, not N times.

mod function;
pub mod varying;

use crate::cache::Session;
use crate::diag::{Error, Result};
use crate::ir::Ty;
use crate::ir::Val;

/// The batched function of `f` for `varies` (per parameter: one value per lane) and `width`
/// lanes, with its body and the bodies of every batched function it calls built.
pub fn batch_function(session: &mut Session, f: Val, varies: &[bool], width: u32) -> Result<Val> {
    let batched = declare(session, f, varies, width)?;
    while let Some(job) = session.next_batch_job() {
        function::BatchFn::new(session, &job).run()?;
    }
    Ok(batched)
}

/// Declares (or finds) the batched function of `f`; its body is built from the session's
/// queue.
pub(crate) fn declare(session: &mut Session, f: Val, varies: &[bool], width: u32) -> Result<Val> {
    if let Some(d) = session.batched(f, varies, width) {
        return Ok(d);
    }
    let fty = f.function_type();
    if fty.is_var_arg() {
        return Err(Error::in_function(f, "cannot batch a variadic function"));
    }
    let params: Vec<Ty> = fty
        .param_types()
        .into_iter()
        .zip(varies)
        .map(|(t, &v)| if v { lanes(t, width) } else { t })
        .collect();
    let ret = fty.return_type();
    let ret = if ret.is_void() {
        ret
    } else {
        lanes(ret, width)
    };
    let codes: String = varies.iter().map(|&v| if v { 'v' } else { 's' }).collect();
    let d = session.module.add_function(
        &format!("batch.{}.{codes}.w{width}", f.name()),
        Ty::function(ret, &params, false),
    );
    d.set_internal();
    crate::signature::copy_target_attributes(f, d);
    for (p, dp) in f.params().into_iter().zip(d.params()) {
        dp.set_name(&p.name());
    }
    session.add_batched(f, varies, width, d);
    Ok(d)
}

/// The type carrying `width` lanes of a `ty` value across a batched function's boundary.
pub fn lanes(ty: Ty, width: u32) -> Ty {
    Ty::array(ty, width as u64)
}
