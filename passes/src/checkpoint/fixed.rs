//! Fixed-point loops (`__enzyme_fixed_point`, `runtime/include/umbra/fixed_point.h`).
//!
//! [`lower_calls`] turns `__enzyme_fixed_point(step, enzyme_fp_state, z, bytes, ...
//! [enzyme_fp_reduction, r] [enzyme_fp_max_iters, n] [enzyme_fp_control, control]
//! [enzyme_checkpoint_region, p, bytes]... args...)` into a call of a *fixed-point function*
//! `umbra.fp.<S>.<R>.<step>(reduction bits, max_iters, control, state and region pointers...,
//! their sizes..., args...)` whose body is the primal loop `i = 0; while (step(i++, args...));`.
//!
//! Forward mode does not differentiate that body iteration by iteration: [`generate_forward`]
//! runs the primal loop, keeps the state it converged to, zeroes the state's tangent, then
//! iterates the tangent of one step at the converged state (the state restored before each
//! pass), `s <- phi_z s + phi_x xdot`, until the squared 2-norm of the change of the state's
//! tangent (read as doubles) falls below the reduction times its value after the first pass,
//! or `control(&cumul, &reduction)` (Tapenade's protocol: first called with `cumul = -1`)
//! says stop, or the pass limit is reached; then restores the converged state.
//!
//! Reverse mode is Christianson's two-phase adjoint ([`super::fixed_reverse`]); what both share
//! is in [`super::fixed_emit`].
//!
//! A loop marked from inside with `__enzyme_set_fixed_point` becomes a call of a fixed-point
//! function too, its body outlined into the step ([`super::outline`]).
//!
//! Guarantees: neither mode differentiates the iterations one by one; a call whose markers
//! cannot be decoded is refused at its call site.

use crate::cache::{Job, Session};
use crate::diag::{Error, Result};
use crate::ir::{Builder, Module, Opcode, Ty, Val};

use super::fixed_emit as emit;
pub use emit::FP_PREFIX;
use emit::{call_step, step_activity, FIXED};

const NAMES: [&str; 2] = ["__enzyme_fixed_point", "__umbra_fixed_point"];

/// Defaults of the stopping rule (the header documents them).
const DEFAULT_REDUCTION: f64 = 1e-12;
const DEFAULT_MAX_ITERS: u64 = 1000;

/// Whether `f` is a fixed-point function made by [`lower_calls`].
pub fn is_fixed_point(f: Val) -> bool {
    f.name().starts_with(FP_PREFIX)
}

/// Rewrites every `__enzyme_fixed_point` call of `module`.
pub fn lower_calls(module: Module) -> Result<()> {
    for name in NAMES {
        let Some(f) = module.function(name) else {
            continue;
        };
        for call in f.users() {
            if !(call.is_call() && call.called_value() == f) {
                return Err(Error::at_value(
                    call,
                    format!("{name} is used other than by calling it"),
                ));
            }
            lower_one(module, call)?;
        }
        if !f.has_uses() {
            f.delete_global();
        }
    }
    Ok(())
}

fn lower_one(module: Module, call: Val) -> Result<()> {
    let fname = call.called_value().name();
    let args = call.call_args();
    let ctx = module.context();
    let (i64t, f64t) = (Ty::int(ctx, 64), Ty::double(ctx));
    let step = args.first().map(|s| super::strip_casts(*s));
    let Some(step) = step.filter(|s| s.is_function() && !s.is_declaration()) else {
        return Err(Error::user_at(
            call,
            format!("{fname}: the step must be a function with a body, given directly"),
        ));
    };
    let mut b = Builder::new(module);
    b.position_before(call);
    let mut reduction = f64t.float_const(DEFAULT_REDUCTION);
    let mut max_iters = i64t.int_const(DEFAULT_MAX_ITERS);
    let mut control = i64t.zero();
    let mut states: Vec<(Val, Val)> = Vec::new();
    let mut regions: Vec<(Val, Val)> = Vec::new();
    let mut markers = Vec::new();
    let mut k = 1;
    while k < args.len() {
        let Some(id) = super::marker_name(args[k]) else {
            break;
        };
        let kind = id
            .strip_prefix("enzyme_")
            .or_else(|| id.strip_prefix("umbra_"))
            .unwrap_or("");
        markers.push(args[k]);
        let need = if matches!(kind, "fp_state" | "checkpoint_region") {
            2
        } else {
            1
        };
        if k + need >= args.len() {
            return Err(Error::user_at(
                call,
                format!("{fname}: {id} needs {need} argument(s) after it"),
            ));
        }
        match kind {
            "fp_state" => {
                let bytes = b.sext_or_trunc(args[k + 2], i64t);
                states.push((args[k + 1], bytes));
            }
            "checkpoint_region" => {
                let bytes = b.sext_or_trunc(args[k + 2], i64t);
                regions.push((args[k + 1], bytes));
            }
            "fp_reduction" if args[k + 1].ty().is_float() => {
                reduction = if args[k + 1].ty() == f64t {
                    args[k + 1]
                } else {
                    b.fp_cast(args[k + 1], f64t)
                }
            }
            "fp_max_iters" => max_iters = b.sext_or_trunc(args[k + 1], i64t),
            "fp_control" => control = b.cast(Opcode::LLVMPtrToInt, args[k + 1], i64t),
            _ => {
                return Err(Error::user_at(
                    call,
                    format!("{fname}: marker {id} is not one of enzyme_fp_state, enzyme_fp_reduction, enzyme_fp_max_iters, enzyme_fp_control, enzyme_checkpoint_region"),
                ))
            }
        }
        k += 1 + need;
    }
    if states.is_empty() {
        return Err(Error::user_at(
            call,
            format!("{fname} needs at least one enzyme_fp_state, pointer, bytes"),
        ));
    }
    let rest = &args[k..];
    let params = step.function_type().param_types();
    if params.len() != rest.len() + 1
        || !params[0].is_int()
        || rest.iter().zip(&params[1..]).any(|(a, p)| a.ty() != *p)
        || !step.function_type().return_type().is_int()
    {
        return Err(Error::user_at(
            call,
            format!(
                "{fname}: the step {} must return an integer (nonzero: iterate again) and take the iteration index and the {} arguments passed",
                step.name(),
                rest.len()
            ),
        ));
    }
    // Globals the step writes are kept with the state, as for checkpointed loops.
    for g in super::written_globals(step) {
        let covered = states
            .iter()
            .chain(&regions)
            .any(|m| super::strip_casts(m.0) == g);
        if !covered {
            let bytes = step.module().alloc_size(g.global_value_type());
            regions.push((g, i64t.int_const(bytes)));
        }
    }
    let (s, r) = (states.len(), regions.len());
    let memory: Vec<(Val, Val)> = states.into_iter().chain(regions).collect();
    let mut ptys = vec![i64t; FIXED];
    ptys.extend(std::iter::repeat_n(Ty::ptr(ctx), s + r));
    ptys.extend(std::iter::repeat_n(i64t, s + r));
    ptys.extend(rest.iter().map(|a| a.ty()));
    let fp = fixed_point_function(module, step, (s, r), &ptys, false);
    let red_bits = b.cast(Opcode::LLVMBitCast, reduction, i64t);
    let mut cargs = vec![red_bits, max_iters, control];
    cargs.extend(memory.iter().map(|m| m.0));
    cargs.extend(memory.iter().map(|m| m.1));
    cargs.extend(rest.iter().copied());
    let new_call = b.call_function(fp, &cargs);
    new_call.copy_debug_location(call);
    call.erase();
    super::erase_marker_loads(markers);
    Ok(())
}

/// `umbra.fp.<S>.<R>.<step>`: `i = 0; while (step(i++, args...));`. One per step and
/// signature, unless `fresh` (a call whose derivatives `state::cover_all` refuses gets its own).
pub(crate) fn fixed_point_function(
    module: Module,
    step: Val,
    (s, r): (usize, usize),
    ptys: &[Ty],
    fresh: bool,
) -> Val {
    let ctx = module.context();
    let i64t = Ty::int(ctx, 64);
    let fty = Ty::function(Ty::void(ctx), ptys, false);
    let name = format!("{FP_PREFIX}{s}.{r}.{}", step.name());
    if let Some(f) = module.function(&name) {
        let refused = f.string_fn_attr(super::REFUSE_ATTR).is_some();
        if !fresh && !refused && f.function_type() == fty {
            return f;
        }
    }
    let f = module.add_function(&name, fty);
    f.set_internal();
    // Inlined, the loop would be differentiated iteration by iteration.
    f.set_fn_attr("noinline", true);
    // Its adjoint iterates the step at the state again: the caller's frees of it must wait.
    f.set_string_fn_attr(crate::analysis::overwrite::ADJOINT_READS_ARGUMENTS, "");
    crate::signature::copy_target_attributes(step, f);
    let p = f.params();
    let entry = f.append_block("entry");
    let body = f.append_block("iterate");
    let exit = f.append_block("exit");
    let mut b = Builder::new(module);
    b.position_at_end(entry);
    b.br(body);
    b.position_at_end(body);
    let i = b.phi(i64t);
    let again = call_step(&mut b, step, i, &p[FIXED + 2 * (s + r)..]);
    let next = b.add(i, i64t.int_const(1));
    i.add_incoming(i64t.zero(), entry);
    i.add_incoming(next, body);
    b.cond_br(again, body, exit);
    b.position_at_end(exit);
    b.ret_void();
    f
}

/// The forward derivative of a fixed-point function (see the module documentation).
pub fn generate_forward(session: &mut Session, job: &Job) -> Result<()> {
    let crate::cache::Derived::Forward(d) = job.derived else {
        return Ok(());
    };
    let step = super::step_of(job.key.function)
        .ok_or_else(|| Error::internal(job.key.function, "a fixed point without its step"))?;
    // Memory the iterations carry that no snapshot holds: refused where a derivative needs it.
    super::refusal(job.key.function)?;
    let step_acts = step_activity(job, step)?;
    let fwd_step = session.declare_forward(step, &step_acts, 0)?;
    let module = session.module;
    let mut b = Builder::new(module);
    let entry = d.append_block("entry");
    b.position_at_end(entry);
    let fp = emit::Fp::new(&mut b, job, d, 0, step);
    let last = fp.primal_loop(&mut b, d);
    let kept = fp.keep(&mut b);
    for m in fp.states() {
        if let Some(dz) = m.shadow {
            b.memset_zero(dz, m.bytes, 1);
        }
    }
    let prev: Vec<Val> = fp
        .states()
        .iter()
        .map(|m| fp.malloc(&mut b, m.bytes))
        .collect();
    let mut it = fp.iterate(&mut b, d);
    // One tangent pass at the converged state: the change of the state's tangent.
    for (m, p) in fp.states().iter().zip(&prev) {
        if let Some(dz) = m.shadow {
            b.memcpy(*p, 1, dz, 1, m.bytes);
        }
    }
    fp.restore(&mut b, &kept);
    let mut fargs = vec![fp.index(&mut b, last)];
    for (a, sh) in &fp.args {
        fargs.push(*a);
        fargs.extend(sh.iter().copied());
    }
    b.call_function(fwd_step, &fargs);
    let mut cumul = Ty::double(module.context()).zero();
    for (m, p) in fp.states().iter().zip(&prev) {
        if let Some(dz) = m.shadow {
            let part = emit::squared_norm(&mut b, d, dz, Some(*p), m.bytes);
            cumul = b.fadd(cumul, part);
        }
    }
    it.end_pass(&mut b, &fp, d, cumul);
    // The primal state the loop ended in.
    fp.restore(&mut b, &kept);
    fp.free_all(&mut b, kept.into_iter().chain(prev));
    b.ret_void();
    Ok(())
}
