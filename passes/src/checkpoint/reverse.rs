//! The reverse-mode pair of a loop function ([`super::lower_calls`]): bodies that drive the
//! checkpointing scheme instead of differentiating the plain loop.
//!
//! Augmented sweep: `state = scheme->init(config, n, bytes)`, then actions until the first
//! turn: STORE and RESTORE copy the regions through the scheme, FORWARD runs steps untaped,
//! FIRSTUTURN stores slot -2 (the state before the last step) and runs the last step; DONE
//! (n = 0) finalizes at once. Only `state` goes on the tape.
//!
//! Adjoint: pop `state` (null: nothing to do); store slot -1 (the memory as the adjoint found
//! it), restore slot -2, differentiate the last step; then actions until DONE, where UTURN
//! differentiates one step; finally restore slot -1 and finalize. "Differentiate a step" is its
//! augmented sweep then its adjoint on a fresh tape, freed at once: one step's tape at a time.
//!
//! Snapshots go through the scheme's `store`/`restore` with the regions, or, when those are
//! NULL, through its `save_state`/`load_state` with Enzyme's `env` (the step's arguments, each
//! followed by its shadow): the scheme copies the state itself.
//!
//! Guarantees: the step is differentiated with exactly the activity the loop function has for
//! its arguments (so shadows line up); an unknown action flag, or a scheme with neither way to
//! copy a snapshot, stops the program with a message rather than being skipped.

use crate::cache::{Job, Session};
use crate::diag::{Error, Result};
use crate::ir::{Builder, IntPred, Ty, Val};
use crate::vocab::Activity;

use super::FIXED_PARAMS;

/// Byte offsets of the scheme's function pointers (`EnzymeCheckpointScheme`).
const INIT: u64 = 8;
const NEXT_ACTION: u64 = 16;
const STORE: u64 = 24;
const RESTORE: u64 = 32;
const SET_NSTEPS: u64 = 40;
const FINALIZE: u64 = 48;
const SAVE_STATE: u64 = 56;
const LOAD_STATE: u64 = 64;

/// Action flags (`ENZYME_CKPT_*`).
const FLAG_STORE: u64 = 1;
const FLAG_RESTORE: u64 = 2;
const FLAG_FORWARD: u64 = 3;
const FLAG_FIRSTUTURN: u64 = 4;
const FLAG_UTURN: u64 = 5;
const FLAG_DONE: u64 = 7;

/// The primal values a body works with (the derived function's copies of the parameters).
struct Loop {
    start: Val,
    n: Val,
    scheme: Val,
    config: Val,
    /// The `EnzymeCkptRegion` array, built in the derived function's entry.
    regions: Val,
    nregions: Val,
    bytes: Val,
    /// The step's arguments after the index, each with its shadow if it has one.
    args: Vec<(Val, Option<Val>)>,
    /// The same as an array of 8-byte words (integers widened to 64 bits), built in the
    /// entry: the `env` of a scheme's `save_state`/`load_state`.
    env: Val,
    /// The derived function being built.
    func: Val,
}

/// Builds both bodies of `job`, the reverse pair of a loop function.
pub fn generate(session: &mut Session, job: &Job) -> Result<()> {
    let crate::cache::Derived::Reverse { augmented, adjoint } = job.derived else {
        return Ok(());
    };
    let f = job.key.function;
    // State the snapshots would not hold: refused here, where the gradient needs them.
    super::refusal(f)?;
    let step = super::step_of(f)
        .ok_or_else(|| Error::internal(f, "a checkpointed loop without its step"))?;
    let r = super::regions_of(f, step);
    let mut step_acts = vec![Activity::Const];
    for a in &job.key.activity[FIXED_PARAMS + 2 * r..] {
        if *a == Activity::Out {
            return Err(Error::in_function(
                step,
                format!(
                    "the checkpointed step {} takes a floating-point value that carries a derivative: pass it by pointer (a step's adjoint accumulates into memory only)",
                    step.name()
                ),
            ));
        }
        step_acts.push(*a);
    }
    let (step_aug, step_adj) = session.declare_reverse(step, &step_acts, true, 0)?;
    augmented_body(
        session,
        f,
        augmented,
        &job.key.activity,
        step,
        r,
        super::is_while(f),
    )?;
    adjoint_body(
        session,
        f,
        adjoint,
        &job.key.activity,
        step,
        r,
        (step_aug, step_adj),
    )
}

/// The loop's values in `derived`, with the regions' array built at the builder (the entry).
fn loop_values(b: &mut Builder, f: Val, derived: Val, activity: &[Activity], r: usize) -> Loop {
    let ctx = b.module().context();
    let (i32t, i64t, ptr) = (Ty::int(ctx, 32), Ty::int(ctx, 64), Ty::ptr(ctx));
    let pairs = crate::signature::paired_params(f, derived, activity, 1);
    let v = |k: usize| pairs[k].1;
    let region_ty = Ty::literal_struct(ctx, &[ptr, i64t, i32t, i32t]);
    let array_ty = Ty::array(region_ty, r.max(1) as u64);
    let regions = b.alloca(array_ty, "ckpt.regions");
    for k in 0..r {
        let idx = [i64t.zero(), i32t.int_const(k as u64)];
        let slot = b.gep(array_ty, regions, &idx, true);
        b.store(v(FIXED_PARAMS + k), slot, 8);
        let size = crate::tape::at_offset(b, slot, 8);
        b.store(v(FIXED_PARAMS + r + k), size, 8);
        let spaces = crate::tape::at_offset(b, slot, 16);
        b.store(i64t.zero(), spaces, 8);
    }
    let scheme = b.cast(crate::ir::Opcode::LLVMIntToPtr, v(2), ptr);
    let config = b.cast(crate::ir::Opcode::LLVMIntToPtr, v(3), ptr);
    let args: Vec<(Val, Option<Val>)> = pairs[FIXED_PARAMS + 2 * r..]
        .iter()
        .map(|p| (p.1, p.2))
        .collect();
    // Enzyme's `env`: the arguments after the index, each followed by its shadow.
    let words: Vec<Val> = args
        .iter()
        .flat_map(|(a, s)| std::iter::once(*a).chain(*s))
        .collect();
    let env_ty = Ty::array(i64t, words.len().max(1) as u64);
    let env = b.alloca(env_ty, "ckpt.env");
    for (k, w) in words.iter().enumerate() {
        let slot = crate::tape::at_offset(b, env, 8 * k as u64);
        let w = if w.ty().is_int() {
            b.sext_or_trunc(*w, i64t)
        } else {
            *w
        };
        b.store(w, slot, 8);
    }
    Loop {
        start: v(0),
        n: v(1),
        scheme,
        config,
        regions,
        nregions: v(4),
        bytes: v(5),
        args,
        env,
        func: derived,
    }
}

/// Loads the scheme's function pointer at `offset` and calls it.
fn scheme_call(b: &mut Builder, l: &Loop, offset: u64, ret: Ty, args: &[Val]) -> Val {
    let ctx = b.module().context();
    let ptr = Ty::ptr(ctx);
    let at = crate::tape::at_offset(b, l.scheme, offset);
    let fp = b.load(ptr, at, 8);
    let tys: Vec<Ty> = args.iter().map(|a| a.ty()).collect();
    b.call(Ty::function(ret, &tys, false), fp, args)
}

/// Stores (`offset` STORE) or restores (RESTORE) the snapshot of slot `slot`, the state before
/// step `step`: through the scheme's `store`/`restore` with the regions, or when the scheme has
/// none, through its `save_state`/`load_state` with the step's arguments (Enzyme's `env`: the
/// scheme copies what they lead to itself); a scheme with neither stops the program with a
/// message.
fn copy_regions(b: &mut Builder, l: &Loop, state: Val, offset: u64, slot: Val, step: Val) {
    let ctx = b.module().context();
    let (void, ptr) = (Ty::void(ctx), Ty::ptr(ctx));
    let at = crate::tape::at_offset(b, l.scheme, offset);
    let direct = b.load(ptr, at, 8);
    let by_regions = l.func.append_block("ckpt.copy.regions");
    let by_state = l.func.append_block("ckpt.copy.state");
    let neither = l.func.append_block("ckpt.copy.none");
    let join = l.func.append_block("ckpt.copy.done");
    let missing = b.icmp(IntPred::LLVMIntEQ, direct, ptr.zero());
    b.cond_br(missing, by_state, by_regions);
    b.position_at_end(by_regions);
    let args = [state, slot, step, l.regions, l.nregions];
    let tys: Vec<Ty> = args.iter().map(|a| a.ty()).collect();
    b.call(Ty::function(void, &tys, false), direct, &args);
    b.br(join);
    b.position_at_end(by_state);
    let hook = if offset == STORE {
        SAVE_STATE
    } else {
        LOAD_STATE
    };
    let at = crate::tape::at_offset(b, l.scheme, hook);
    let hook_fp = b.load(ptr, at, 8);
    let none = b.icmp(IntPred::LLVMIntEQ, hook_fp, ptr.zero());
    let call_hook = l.func.append_block("ckpt.copy.hook");
    b.cond_br(none, neither, call_hook);
    b.position_at_end(call_hook);
    let args = [state, slot, step, l.env];
    let tys: Vec<Ty> = args.iter().map(|a| a.ty()).collect();
    b.call(Ty::function(void, &tys, false), hook_fp, &args);
    b.br(join);
    b.position_at_end(neither);
    crate::unwind::emit_fatal(
        b,
        "umbra checkpoint: the scheme has neither store/restore nor save_state/load_state",
    );
    b.position_at_end(join);
}

/// Calls the primal step for steps `from..to`, leaving the builder in the block after.
fn run_steps(b: &mut Builder, func: Val, l: &Loop, step: Val, from: Val, to: Val) {
    let i64t = Ty::int(b.module().context(), 64);
    let here = b.current_block();
    let body = func.append_block("ckpt.steps");
    let after = func.append_block("ckpt.steps.done");
    let any = b.icmp(IntPred::LLVMIntSLT, from, to);
    b.cond_br(any, body, after);
    b.position_at_end(body);
    let j = b.phi(i64t);
    call_step(b, l, step, j);
    let next = b.add(j, i64t.int_const(1));
    let more = b.icmp(IntPred::LLVMIntSLT, next, to);
    b.cond_br(more, body, after);
    j.add_incoming(from, here);
    j.add_incoming(next, body);
    b.position_at_end(after);
}

/// A while loop's forward sweep: steps `from..to` until one returns 0, which ends the loop:
/// its number of steps goes to `slot` and to the scheme (`set_nsteps`). The builder is left in
/// the block after.
fn run_steps_while(
    b: &mut Builder,
    func: Val,
    l: &Loop,
    step: Val,
    (from, to): (Val, Val),
    (state, slot): (Val, Val),
) {
    let ctx = b.module().context();
    let i64t = Ty::int(ctx, 64);
    let here = b.current_block();
    let body = func.append_block("ckpt.while.step");
    let go_on = func.append_block("ckpt.while.more");
    let ended = func.append_block("ckpt.while.ended");
    let after = func.append_block("ckpt.while.done");
    let any = b.icmp(IntPred::LLVMIntSLT, from, to);
    b.cond_br(any, body, after);
    b.position_at_end(body);
    let j = b.phi(i64t);
    let result = call_step(b, l, step, j);
    let stop = b.icmp(IntPred::LLVMIntEQ, result, result.ty().zero());
    b.cond_br(stop, ended, go_on);
    b.position_at_end(go_on);
    let next = b.add(j, i64t.int_const(1));
    let more = b.icmp(IntPred::LLVMIntSLT, next, to);
    b.cond_br(more, body, after);
    j.add_incoming(from, here);
    j.add_incoming(next, go_on);
    b.position_at_end(ended);
    let n = b.add(j, i64t.int_const(1));
    b.store(n, slot, 8);
    scheme_call(b, l, SET_NSTEPS, Ty::void(ctx), &[state, n]);
    b.br(after);
    b.position_at_end(after);
}

fn call_step(b: &mut Builder, l: &Loop, step: Val, j: Val) -> Val {
    let index_ty = step.function_type().param_types()[0];
    let i = b.add(l.start, j);
    let i = b.sext_or_trunc(i, index_ty);
    let mut args = vec![i];
    args.extend(l.args.iter().map(|a| a.0));
    b.call_function(step, &args)
}

/// The action loop's head: asks for the next action; returns (head, flag, iteration,
/// startiteration, cpnum), the builder in the head after the loads.
fn next_action(b: &mut Builder, func: Val, l: &Loop, state: Val, action: Val) -> [Val; 5] {
    let ctx = b.module().context();
    let (i32t, i64t) = (Ty::int(ctx, 32), Ty::int(ctx, 64));
    let head = func.append_block("ckpt.next");
    b.br(head);
    b.position_at_end(head);
    scheme_call(b, l, NEXT_ACTION, Ty::void(ctx), &[state, action]);
    let flag = b.load(i32t, action, 8);
    let at = |b: &mut Builder, off| {
        let p = crate::tape::at_offset(b, action, off);
        b.load(i64t, p, 8)
    };
    let iteration = at(b, 8);
    let start = at(b, 16);
    let cpnum = at(b, 24);
    [head.as_value(), flag, iteration, start, cpnum]
}

/// Blocks for STORE, RESTORE and FORWARD, each going back to `head`; the builder is left at
/// the end of the head with the switch (default: a fatal error) still to receive the turn and
/// done cases, which the caller adds.
fn common_actions(
    b: &mut Builder,
    func: Val,
    l: &Loop,
    step: Val,
    (state, steps_seen): (Val, Option<Val>),
    a: &[Val; 5],
) -> Val {
    let ctx = b.module().context();
    let i32t = Ty::int(ctx, 32);
    let head = a[0].as_block();
    let bad = func.append_block("ckpt.bad");
    let store = func.append_block("ckpt.store");
    let restore = func.append_block("ckpt.restore");
    let forward = func.append_block("ckpt.forward");
    let sw = b.switch(a[1], bad, 5);
    b.add_case(sw, i32t.int_const(FLAG_STORE), store);
    b.add_case(sw, i32t.int_const(FLAG_RESTORE), restore);
    b.add_case(sw, i32t.int_const(FLAG_FORWARD), forward);
    b.position_at_end(bad);
    crate::unwind::emit_fatal(
        b,
        "umbra checkpoint: the scheme gave an action this sweep cannot take",
    );
    b.position_at_end(store);
    copy_regions(b, l, state, STORE, a[4], a[2]);
    b.br(head);
    b.position_at_end(restore);
    copy_regions(b, l, state, RESTORE, a[4], a[2]);
    b.br(head);
    b.position_at_end(forward);
    match steps_seen {
        Some(slot) => run_steps_while(b, func, l, step, (a[3], a[2]), (state, slot)),
        None => run_steps(b, func, l, step, a[3], a[2]),
    }
    b.br(head);
    sw
}

fn augmented_body(
    session: &mut Session,
    f: Val,
    aug: Val,
    activity: &[Activity],
    step: Val,
    r: usize,
    is_while: bool,
) -> Result<()> {
    let module = session.module;
    let ctx = module.context();
    let (i32t, i64t, ptr) = (Ty::int(ctx, 32), Ty::int(ctx, 64), Ty::ptr(ctx));
    let tape = aug.params()[0];
    let mut b = Builder::new(module);
    let entry = aug.append_block("entry");
    b.position_at_end(entry);
    let l = loop_values(&mut b, f, aug, activity, r);
    let action = b.alloca(Ty::array(i64t, 4), "ckpt.action");
    // The number of steps: a while loop's is found when a step returns 0.
    let steps_seen = b.alloca(i64t, "ckpt.steps");
    b.store(l.n, steps_seen, 8);
    if is_while {
        // A while loop needs a scheme that can be told where the loop ended.
        let at = crate::tape::at_offset(&mut b, l.scheme, SET_NSTEPS);
        let set = b.load(ptr, at, 8);
        let missing = b.icmp(IntPred::LLVMIntEQ, set, ptr.zero());
        let bad = aug.append_block("ckpt.no.set_nsteps");
        let fine = aug.append_block("ckpt.init");
        b.cond_br(missing, bad, fine);
        b.position_at_end(bad);
        crate::unwind::emit_fatal(
            &mut b,
            "umbra checkpoint: __enzyme_checkpoint_while needs a scheme with set_nsteps (EnzymeCkptStoreAll)",
        );
        b.position_at_end(fine);
    }
    let state = scheme_call(&mut b, &l, INIT, ptr, &[l.config, l.n, l.bytes]);
    let a = next_action(&mut b, aug, &l, state, action);
    let seen = is_while.then_some(steps_seen);
    let sw = common_actions(&mut b, aug, &l, step, (state, seen), &a);
    let turn = aug.append_block("ckpt.firstuturn");
    let done = aug.append_block("ckpt.done");
    let out = aug.append_block("ckpt.out");
    b.add_case(sw, i32t.int_const(FLAG_FIRSTUTURN), turn);
    b.add_case(sw, i32t.int_const(FLAG_DONE), done);
    b.position_at_end(turn);
    let last = b.sub(a[2], i64t.int_const(1));
    copy_regions(
        &mut b,
        &l,
        state,
        STORE,
        i64t.int_const((-2i64) as u64),
        last,
    );
    call_step(&mut b, &l, step, last);
    // Copying the regions adds blocks: the phi's edge comes from the last one.
    let turn_end = b.current_block();
    b.br(out);
    b.position_at_end(done);
    scheme_call(&mut b, &l, FINALIZE, Ty::void(ctx), &[state]);
    b.br(out);
    b.position_at_end(out);
    let kept = b.phi(ptr);
    kept.add_incoming(state, turn_end);
    kept.add_incoming(ptr.zero(), done);
    crate::tape::push(&mut b, tape, kept);
    let n = b.load(i64t, steps_seen, 8);
    crate::tape::push(&mut b, tape, n);
    b.ret_void();
    Ok(())
}

fn adjoint_body(
    session: &mut Session,
    f: Val,
    adj: Val,
    activity: &[Activity],
    step: Val,
    r: usize,
    (step_aug, step_adj): (Val, Val),
) -> Result<()> {
    let module = session.module;
    let ctx = module.context();
    let (i32t, i64t, ptr) = (Ty::int(ctx, 32), Ty::int(ctx, 64), Ty::ptr(ctx));
    let tape = adj.params()[0];
    let mut b = Builder::new(module);
    let entry = adj.append_block("entry");
    let begin = adj.append_block("ckpt.begin");
    let finish = adj.append_block("ckpt.finish");
    let exit = adj.append_block("exit");
    b.position_at_end(entry);
    let l = loop_values(&mut b, f, adj, activity, r);
    let action = b.alloca(Ty::array(i64t, 4), "ckpt.action");
    // The number of steps (a while loop's as its forward sweep found it), then the scheme.
    let n = crate::tape::pop(&mut b, tape, i64t);
    let state = crate::tape::pop(&mut b, tape, ptr);
    let none = b.icmp(IntPred::LLVMIntEQ, state, ptr.zero());
    b.cond_br(none, exit, begin);

    // The memory as found, kept for the end; then the state before the last step.
    b.position_at_end(begin);
    let last = b.sub(n, i64t.int_const(1));
    copy_regions(&mut b, &l, state, STORE, i64t.int_const((-1i64) as u64), n);
    copy_regions(
        &mut b,
        &l,
        state,
        RESTORE,
        i64t.int_const((-2i64) as u64),
        last,
    );
    let grad = adj.append_block("ckpt.grad");
    let begin_end = b.current_block();
    b.br(grad);

    // One step differentiated: its augmented sweep and adjoint on a tape of their own.
    b.position_at_end(grad);
    let j = b.phi(i64t);
    j.add_incoming(last, begin_end);
    let back = b.br(grad); // placeholder terminator, retargeted below
    let step_tape = crate::tape::new_tape(&mut b, adj, back);
    let index_ty = step.function_type().param_types()[0];
    let i = b.add(l.start, j);
    let i = b.sext_or_trunc(i, index_ty);
    let mut args = vec![step_tape, i];
    for (v, s) in &l.args {
        args.push(*v);
        if let Some(s) = s {
            args.push(*s);
        }
    }
    let guarded = crate::tape::owned::guarded(module, session.personality(), step_aug, false);
    b.call_function(guarded, &args);
    // At its peak: the next step's tape starts as large.
    crate::tape::settle(&mut b, step_tape);
    // `--tape-stats`: one step's tape at its peak is what this gradient holds on the tape.
    if session.opts.tape_stats {
        crate::tape::report_stats(&mut b, step_tape);
    }
    // A step returning a floating-point value: its result is not the loop's, so its adjoint is 0.
    let want = step_adj.function_type().param_types();
    if want.len() > args.len() {
        args.push(want[args.len()].zero());
    }
    b.call_function(step_adj, &args);
    crate::tape::free_tape(&mut b, step_tape);
    back.erase();
    b.position_at_end(grad);
    let a = next_action(&mut b, adj, &l, state, action);
    let sw = common_actions(&mut b, adj, &l, step, (state, None), &a);
    let uturn = adj.append_block("ckpt.uturn");
    b.add_case(sw, i32t.int_const(FLAG_UTURN), uturn);
    b.add_case(sw, i32t.int_const(FLAG_DONE), finish);
    b.position_at_end(uturn);
    let jj = b.sub(a[2], i64t.int_const(1));
    b.br(grad);
    j.add_incoming(jj, uturn);

    b.position_at_end(finish);
    copy_regions(
        &mut b,
        &l,
        state,
        RESTORE,
        i64t.int_const((-1i64) as u64),
        n,
    );
    scheme_call(&mut b, &l, FINALIZE, Ty::void(ctx), &[state]);
    b.br(exit);
    b.position_at_end(exit);
    b.ret_void();
    Ok(())
}
