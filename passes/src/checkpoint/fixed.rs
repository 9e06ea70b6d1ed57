//! Fixed-point loops (`__enzyme_fixed_point`, `runtime/include/umbra/fixed_point.h`).
//!
//! [`lower_calls`] turns `__enzyme_fixed_point(step, enzyme_fp_state, z, bytes, ...
//! [enzyme_fp_reduction, r] [enzyme_fp_max_iters, n] [enzyme_fp_control, control]
//! [enzyme_checkpoint_region, p, bytes]... args...)` into a call of a *fixed-point function*
//! `umbra.fp.<S>.<step>(reduction bits, max_iters, control, state pointers..., state sizes...,
//! args...)` whose body is the primal loop `i = 0; while (step(i++, args...));`.
//!
//! Forward mode does not differentiate that body iteration by iteration: [`generate_forward`]
//! runs the primal loop, keeps the state it converged to, zeroes the state's tangent, then
//! iterates the tangent of one step at the converged state (the state restored before each
//! pass), `s <- phi_z s + phi_x xdot`, until the squared 2-norm of the change of the state's
//! tangent (read as doubles) falls below the reduction times its value after the first pass,
//! or `control(&cumul, &reduction)` (Tapenade's protocol: first called with `cumul = -1`)
//! says stop, or the pass limit is reached; then restores the converged state.
//!
//! Guarantees: reverse mode of a fixed-point loop is refused with a one-line error (the
//! two-phase adjoint is not implemented), never differentiated as the plain loop silently; a
//! call whose markers cannot be decoded is refused at its call site.

use crate::cache::{Job, Session};
use crate::diag::{Error, Result};
use crate::ir::{Builder, IntPred, Module, Opcode, RealPred, Ty, Val};
use crate::vocab::Activity;

/// Name prefix of the fixed-point functions.
pub const FP_PREFIX: &str = "umbra.fp.";

/// Parameters before the states: reduction (as i64 bits), max_iters, control (as i64), the
/// number of states.
const FIXED: usize = 4;

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
    if let Some(f) = module.function("__enzyme_set_fixed_point") {
        if let Some(call) = f.users().into_iter().find(|u| u.is_call()) {
            return Err(Error::at(
                call,
                "__enzyme_set_fixed_point (a loop marked from inside) is not supported by Umbra: pass the iteration as a step function to __enzyme_fixed_point",
            ));
        }
    }
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
            // Forward mode keeps only the state; the regions matter to the reverse pass.
            "checkpoint_region" => {}
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
    let s = states.len();
    let mut ptys = vec![i64t; FIXED];
    ptys.extend(std::iter::repeat_n(Ty::ptr(ctx), s));
    ptys.extend(std::iter::repeat_n(i64t, s));
    ptys.extend(rest.iter().map(|a| a.ty()));
    let fp = fixed_point_function(module, step, s, &ptys);
    let red_bits = b.cast(Opcode::LLVMBitCast, reduction, i64t);
    let mut cargs = vec![red_bits, max_iters, control, i64t.int_const(s as u64)];
    cargs.extend(states.iter().map(|st| st.0));
    cargs.extend(states.iter().map(|st| st.1));
    cargs.extend(rest.iter().copied());
    let new_call = b.call_function(fp, &cargs);
    new_call.copy_debug_location(call);
    call.erase();
    super::erase_marker_loads(markers);
    Ok(())
}

/// `umbra.fp.<s>.<step>`: `i = 0; while (step(i++, args...));`.
fn fixed_point_function(module: Module, step: Val, s: usize, ptys: &[Ty]) -> Val {
    let ctx = module.context();
    let i64t = Ty::int(ctx, 64);
    let fty = Ty::function(Ty::void(ctx), ptys, false);
    let name = format!("{FP_PREFIX}{s}.{}", step.name());
    if let Some(f) = module.function(&name) {
        if f.function_type() == fty {
            return f;
        }
    }
    let f = module.add_function(&name, fty);
    f.set_internal();
    // Inlined, the loop would be differentiated iteration by iteration.
    f.set_fn_attr("noinline", true);
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
    let again = call_step(&mut b, step, i, &p[FIXED + 2 * s..]);
    let next = b.add(i, i64t.int_const(1));
    i.add_incoming(i64t.zero(), entry);
    i.add_incoming(next, body);
    b.cond_br(again, body, exit);
    b.position_at_end(exit);
    b.ret_void();
    f
}

/// `step(i, args) != 0`.
fn call_step(b: &mut Builder, step: Val, i: Val, args: &[Val]) -> Val {
    let index = b.sext_or_trunc(i, step.function_type().param_types()[0]);
    let mut all = vec![index];
    all.extend(args.iter().copied());
    let r = b.call_function(step, &all);
    b.icmp(IntPred::LLVMIntNE, r, r.ty().zero())
}

/// The reverse pair of a fixed-point function: refused.
pub fn refuse_reverse(job: &Job) -> Error {
    let step = super::step_of(job.key.function).unwrap_or(job.key.function);
    Error::in_function(
        step,
        format!(
            "reverse mode of __enzyme_fixed_point (step {}) is not implemented by Umbra (forward mode is)",
            step.name()
        ),
    )
}

/// The forward derivative of a fixed-point function (see the module documentation).
pub fn generate_forward(session: &mut Session, job: &Job) -> Result<()> {
    let crate::cache::Derived::Forward(d) = job.derived else {
        return Ok(());
    };
    let f = job.key.function;
    let module = session.module;
    let ctx = module.context();
    let (i64t, f64t, ptr) = (Ty::int(ctx, 64), Ty::double(ctx), Ty::ptr(ctx));
    let step =
        super::step_of(f).ok_or_else(|| Error::internal(f, "a fixed point without its step"))?;
    let nparams = f.function_type().param_types().len();
    let nstep = step.function_type().param_types().len() - 1;
    let s = (nparams - FIXED - nstep) / 2;
    let acts = &job.key.activity;
    let mut step_acts = vec![Activity::Const];
    step_acts.extend_from_slice(&acts[FIXED + 2 * s..]);
    if step_acts.contains(&Activity::Out) {
        return Err(Error::in_function(
            step,
            "a fixed-point step cannot take an `out` argument",
        ));
    }
    let fwd_step = session.declare_forward(step, &step_acts, 0)?;
    let pairs = crate::signature::paired_params(f, d, acts, 0);
    let v = |k: usize| pairs[k].1;
    let args: Vec<(Val, Option<Val>)> = pairs[FIXED + 2 * s..].iter().map(|p| (p.1, p.2)).collect();
    let states: Vec<(Val, Val, Option<Val>)> = (0..s)
        .map(|k| (v(FIXED + k), v(FIXED + s + k), pairs[FIXED + k].2))
        .collect();

    let mut b = Builder::new(module);
    let entry = d.append_block("entry");
    let primal = d.append_block("fp.primal");
    let converged = d.append_block("fp.converged");
    b.position_at_end(entry);
    let cumul_slot = b.alloca(f64t, "fp.cumul");
    let reduction_slot = b.alloca(f64t, "fp.reduction");
    let reduction = b.cast(Opcode::LLVMBitCast, v(0), f64t);
    b.store(reduction, reduction_slot, 8);
    b.br(primal);
    // The primal loop, as the plain body runs it.
    b.position_at_end(primal);
    let i = b.phi(i64t);
    let plain: Vec<Val> = args.iter().map(|a| a.0).collect();
    let again = call_step(&mut b, step, i, &plain);
    let next = b.add(i, i64t.int_const(1));
    i.add_incoming(i64t.zero(), entry);
    i.add_incoming(next, primal);
    b.cond_br(again, primal, converged);

    // Keep the converged state; start the tangent from zero.
    b.position_at_end(converged);
    let malloc = module.get_or_add_function("malloc", Ty::function(ptr, &[i64t], false));
    let free = module.get_or_add_function("free", Ty::function(Ty::void(ctx), &[ptr], false));
    let mut kept = Vec::new();
    for (z, bytes, dz) in &states {
        let saved = b.call_function(malloc, &[*bytes]);
        b.memcpy(saved, 1, *z, 1, *bytes);
        let prev = b.call_function(malloc, &[*bytes]);
        if let Some(dz) = dz {
            b.memset_zero(*dz, *bytes, 1);
        }
        kept.push((saved, prev));
    }
    let control = b.cast(Opcode::LLVMIntToPtr, v(2), ptr);
    let has_control = b.icmp(IntPred::LLVMIntNE, v(2), i64t.zero());
    let control_ty = Ty::function(Ty::int(ctx, 32), &[ptr, ptr], false);
    let start_ctl = d.append_block("fp.control.start");
    let pass = d.append_block("fp.pass");
    let done = d.append_block("fp.done");
    b.cond_br(has_control, start_ctl, pass);
    b.position_at_end(start_ctl);
    b.store(f64t.float_const(-1.0), cumul_slot, 8);
    let go = b.call(control_ty, control, &[cumul_slot, reduction_slot]);
    let go = b.icmp(IntPred::LLVMIntNE, go, go.ty().zero());
    b.cond_br(go, pass, done);

    // One tangent pass at the converged state.
    b.position_at_end(pass);
    let iter = b.phi(i64t);
    let reference = b.phi(f64t);
    for ((z, bytes, dz), (saved, prev)) in states.iter().zip(&kept) {
        if let Some(dz) = dz {
            b.memcpy(*prev, 1, *dz, 1, *bytes);
        }
        b.memcpy(*z, 1, *saved, 1, *bytes);
    }
    // The step is called with the index of the loop's last iteration.
    let index = b.sext_or_trunc(i, step.function_type().param_types()[0]);
    let mut fargs = vec![index];
    for (a, sh) in &args {
        fargs.push(*a);
        if let Some(sh) = sh {
            fargs.push(*sh);
        }
    }
    b.call_function(fwd_step, &fargs);
    // cumul: the squared norm of the tangent's change, over the states' doubles.
    let mut cumul = f64t.zero();
    for ((_, bytes, dz), (_, prev)) in states.iter().zip(&kept) {
        let Some(dz) = dz else { continue };
        let n = b.binop(Opcode::LLVMUDiv, *bytes, i64t.int_const(8));
        let here = b.current_block();
        let body = d.append_block("fp.norm");
        let after = d.append_block("fp.norm.done");
        let any = b.icmp(IntPred::LLVMIntSGT, n, i64t.zero());
        b.cond_br(any, body, after);
        b.position_at_end(body);
        let j = b.phi(i64t);
        let acc = b.phi(f64t);
        let pa = b.gep(f64t, *dz, &[j], true);
        let pb = b.gep(f64t, *prev, &[j], true);
        let xa = b.load(f64t, pa, 8);
        let xb = b.load(f64t, pb, 8);
        let diff = b.fsub(xa, xb);
        let sq = b.fmul(diff, diff);
        let acc2 = b.fadd(acc, sq);
        let j2 = b.add(j, i64t.int_const(1));
        j.add_incoming(i64t.zero(), here);
        j.add_incoming(j2, body);
        acc.add_incoming(cumul, here);
        acc.add_incoming(acc2, body);
        let more = b.icmp(IntPred::LLVMIntSLT, j2, n);
        b.cond_br(more, body, after);
        b.position_at_end(after);
        let total = b.phi(f64t);
        total.add_incoming(cumul, here);
        total.add_incoming(acc2, body);
        cumul = total;
    }
    let iter2 = b.add(iter, i64t.int_const(1));
    b.store(cumul, cumul_slot, 8);
    let by_control = d.append_block("fp.control");
    let by_rule = d.append_block("fp.rule");
    let decide = d.append_block("fp.decide");
    b.cond_br(has_control, by_control, by_rule);
    b.position_at_end(by_control);
    let c = b.call(control_ty, control, &[cumul_slot, reduction_slot]);
    let c = b.icmp(IntPred::LLVMIntNE, c, c.ty().zero());
    b.br(decide);
    // Built-in rule: the first pass sets the reference; later ones go on while above
    // reduction x reference.
    b.position_at_end(by_rule);
    let first = b.icmp(IntPred::LLVMIntEQ, iter, i64t.zero());
    let cumul_now = b.load(f64t, cumul_slot, 8);
    let new_ref = b.select(first, cumul_now, reference);
    let bound = b.fmul(reduction, new_ref);
    let above = b.fcmp(RealPred::LLVMRealOGT, cumul_now, bound);
    let positive = b.fcmp(RealPred::LLVMRealOGT, cumul_now, f64t.zero());
    let r = b.select(first, positive, above);
    b.br(decide);
    b.position_at_end(decide);
    let cont = b.phi(Ty::int(ctx, 1));
    cont.add_incoming(c, by_control);
    cont.add_incoming(r, by_rule);
    let next_ref = b.phi(f64t);
    next_ref.add_incoming(reference, by_control);
    next_ref.add_incoming(new_ref, by_rule);
    let limit = v(1);
    let unlimited = b.icmp(IntPred::LLVMIntSLE, limit, i64t.zero());
    let below = b.icmp(IntPred::LLVMIntSLT, iter2, limit);
    let room = b.binop(Opcode::LLVMOr, unlimited, below);
    let again = b.binop(Opcode::LLVMAnd, cont, room);
    b.cond_br(again, pass, done);
    iter.add_incoming(i64t.zero(), converged);
    iter.add_incoming(i64t.zero(), start_ctl);
    iter.add_incoming(iter2, decide);
    reference.add_incoming(f64t.zero(), converged);
    reference.add_incoming(f64t.zero(), start_ctl);
    reference.add_incoming(next_ref, decide);

    // The primal state the loop ended in.
    b.position_at_end(done);
    for ((z, bytes, _), (saved, prev)) in states.iter().zip(&kept) {
        b.memcpy(*z, 1, *saved, 1, *bytes);
        b.call_function(free, &[*saved]);
        b.call_function(free, &[*prev]);
    }
    b.ret_void();
    Ok(())
}
