//! OpenMP parallel regions in reverse mode. The augmented sweep runs the outlined function's
//! augmented sweep through `__kmpc_fork_call`, every thread on a tape of its own; the adjoint
//! sweep forks again and runs the outlined function's adjoint on each of those tapes, in
//! parallel.
//!
//! - *Per-thread tapes*: the caller allocates `{i64 capacity, i64 team, tape[capacity]}` with
//!   capacity `omp_get_max_threads()`; thread `t` of the team (`omp_get_thread_num`) pushes onto
//!   tape `t`, and thread 0 records the team size. A team larger than that (a `num_threads` clause) stops with a run-time error.
//! - *Adjoint*: the adjoint team is asked for the same size (`__kmpc_push_num_threads`); its
//!   thread `t` reverses tapes `t, t + size, ...`, so every tape is reversed exactly once even if
//!   the runtime grants fewer threads. A tape holds everything its thread's adjoint needs (the
//!   static schedule's bounds included), so which thread reverses it does not matter.
//! - *Races*: adjoints a thread adds into memory other threads may share are atomic adds
//!   (`adjoint.rs`, [`crate::openmp::parallel_functions`]); a store's adjoint clears the shadow
//!   of memory only that thread wrote (the primal would race otherwise); a reduction's critical
//!   section is reversed in ticket order ([`crate::openmp`]); barriers are mirrored, critical
//!   sections reversed in the reverse of their tickets' order ([`AdjointFn::reverse_sync`]);
//!   an adjoint whose threads wait for each other runs one tape per thread, on a team of the
//!   primal's size; other synchronisation is refused.
//! - *Captures by value*: a `double` captured by value is active (`out`); each thread's
//!   adjoint of it is added atomically into a sum the caller adds to its own adjoint (a
//!   `float` was widened to a `double` before, [`crate::openmp_float`]).
//! - *Shared reads*: see `partial_sums.rs` for the loads
//!   whose adjoints need no atomic add.

use super::adjoint::AdjointFn;
use super::augmented::AugmentedFn;
use super::classify::call_activity;
use crate::diag::{Error, Result};
use crate::ir::{Builder, IntPred, Module, Ty, Val};
use crate::openmp::Sync;
use crate::tape::{free_tape, tape_type};
use crate::vocab::Activity;

/// Bytes before the first tape in the per-thread tape block: the capacity and the team size.
const HEADER: u64 = 16;

/// Bytes per sum of a captured variable's adjoint (room for any scalar floating-point type).
const SUM: u64 = 16;

/// The activities of the outlined function's parameters for call `i`: the runtime's thread ids
/// carry nothing; captured variables with shadows are duplicated; a `double` captured by value
/// is active (its adjoint summed over the threads, [`microtask`]); integers never are.
fn activities(
    session: &crate::cache::Session,
    i: Val,
    is_active: impl Fn(Val) -> bool,
) -> Result<Vec<Activity>> {
    let mut acts = vec![Activity::Const, Activity::Const];
    for (k, a) in i.call_args().into_iter().enumerate().skip(3) {
        let active = is_active(a);
        let float = crate::openmp::captured_float(session.module, i, k, active, |a, p| {
            session.capture_bits(a, p)
        })?;
        let act = if a.ty().is_ptr() {
            call_activity(a, false, &is_active)
        } else if float.is_some() {
            Activity::Out
        } else {
            Activity::Const
        };
        acts.push(act);
    }
    Ok(acts)
}

/// `__kmpc_fork_call(loc, argc, micro, tapes, args...)`.
fn fork(b: &mut Builder, i: Val, micro: Val, tapes: Val, args: &[Val]) {
    let loc = i.call_args()[0];
    let i32t = Ty::int(b.module().context(), 32);
    let mut all = vec![loc, i32t.int_const(args.len() as u64 + 1), micro, tapes];
    all.extend_from_slice(args);
    b.call(i.call_function_type(), i.called_value(), &all);
}

/// `omp_*` query returning `i32`.
fn query(b: &mut Builder, name: &str) -> Val {
    let m = b.module();
    let i32t = Ty::int(m.context(), 32);
    let f = m.get_or_add_function(name, Ty::function(i32t, &[], false));
    b.call_function(f, &[])
}

/// Address of tape `t` (an `i64`) in the block `tapes`.
fn tape_at(b: &mut Builder, tapes: Val, t: Val) -> Val {
    let m = b.module();
    let i64t = Ty::int(m.context(), 64);
    let size = i64t.int_const(m.alloc_size(tape_type(m)));
    let off = b.mul(t, size);
    let off = b.add(off, i64t.int_const(HEADER));
    b.gep(Ty::int(m.context(), 8), tapes, &[off], true)
}

/// A microtask `name(gtid, btid, tapes, args...)` that calls `sweep(tape, gtid, btid, args...)`
/// with the calling thread's tape: `augment` (record the team size, check the capacity) or the
/// adjoint (every tape `t, t + team, ...`; exactly its own with `strict`, for threads that wait
/// for each other, else a run-time error). An adjoint returning the adjoints of variables
/// captured by value (a struct) gets a last parameter, a block of [`SUM`]-byte sums, into which
/// every tape's adjoints are added atomically: the caller's adjoint of the variable is their
/// total over the threads.
fn microtask(m: Module, name: &str, sweep: Val, augment: bool, strict: bool) -> Val {
    if let Some(f) = m.function(name) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let ret = sweep.function_type().return_type();
    let sums = !augment && !ret.is_void();
    let mut params = vec![ptr, ptr, ptr];
    params.extend(sweep.function_type().param_types().into_iter().skip(3));
    if sums {
        params.push(ptr);
    }
    let f = m.add_function(name, Ty::function(Ty::void(ctx), &params, false));
    f.set_internal();
    let p = f.params();
    let (gtid, btid, tapes) = (p[0], p[1], p[2]);
    let (rest, sums) = if sums {
        (&p[3..p.len() - 1], p.last().copied())
    } else {
        (&p[3..], None)
    };
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    b.position_at_end(entry);
    let t = query(&mut b, "omp_get_thread_num");
    let t = b.sext_or_trunc(t, i64t);
    let team = query(&mut b, "omp_get_num_threads");
    let team = b.sext_or_trunc(team, i64t);
    let call_sweep = |b: &mut Builder, j: Val| {
        let tape = tape_at(b, tapes, j);
        let mut args = vec![tape, gtid, btid];
        args.extend_from_slice(rest);
        let r = b.call_function(sweep, &args);
        if let Some(sums) = sums {
            for k in 0..ret.struct_fields().len() as u32 {
                let d = b.extract_value(r, k);
                let at = b.gep(
                    Ty::int(ctx, 8),
                    sums,
                    &[i64t.int_const(SUM * u64::from(k))],
                    true,
                );
                b.atomic_fadd(at, d);
            }
        }
        tape
    };
    if augment {
        let cap = b.load(i64t, tapes, 8);
        let (fits, over) = (f.append_block("fits"), f.append_block("over"));
        let inside = b.icmp(IntPred::LLVMIntULT, t, cap);
        b.cond_br(inside, fits, over);
        b.position_at_end(over);
        crate::unwind::emit_fatal_call(
            &mut b,
            "umbra: an OpenMP parallel region ran with more threads than omp_get_max_threads() (a num_threads clause?), which its gradient cannot record",
        );
        b.unreachable();
        b.position_at_end(fits);
        // Thread 0 records the team size (the others store to a slot of their own).
        let is0 = b.icmp(IntPred::LLVMIntEQ, t, i64t.zero());
        let team_slot = b.gep(Ty::int(ctx, 8), tapes, &[i64t.int_const(8)], true);
        let own = b.alloca(i64t, "");
        let at = b.select(is0, team_slot, own);
        b.store(team, at, 8);
        // Each thread's tape starts as large as the region's tapes have grown (a hint of the
        // region's own): filled in one chunk, the pool's spare of the last call, it takes no
        // fresh pages from the system (per-thread tapes grown chunk by chunk took half their
        // bytes fresh on every call: docking's gradient spent 9-22% of its time in the kernel).
        let hint = crate::tape::region_hint(m, &format!("{name}.hint"));
        let own = tape_at(&mut b, tapes, t);
        crate::tape::start_from(&mut b, own, hint);
        let tape = call_sweep(&mut b, t);
        crate::tape::settle_into(&mut b, tape, hint);
        b.ret_void();
    } else {
        let team_slot = b.gep(Ty::int(ctx, 8), tapes, &[i64t.int_const(8)], true);
        let count = b.load(i64t, team_slot, 8);
        if strict {
            // Threads that wait for each other (barriers, critical sections' turns) must
            // all run at once, one tape each: a thread reversing two tapes would wait for
            // itself.
            let (full, short) = (f.append_block("full"), f.append_block("short"));
            let same = b.icmp(IntPred::LLVMIntEQ, team, count);
            b.cond_br(same, full, short);
            b.position_at_end(short);
            crate::unwind::emit_fatal_call(
                &mut b,
                "umbra: the gradient of an OpenMP parallel region with barriers, critical sections or reductions got fewer threads than the region ran with; it needs as many (raise OMP_THREAD_LIMIT, or set OMP_DYNAMIC=false)",
            );
            b.unreachable();
            b.position_at_end(full);
        }
        let (head, body, done) = (
            f.append_block("head"),
            f.append_block("body"),
            f.append_block("done"),
        );
        let pre = b.current_block();
        b.br(head);
        b.position_at_end(head);
        let j = b.phi(i64t);
        j.add_incoming(t, pre);
        let more = b.icmp(IntPred::LLVMIntSLT, j, count);
        b.cond_br(more, body, done);
        b.position_at_end(body);
        let tape = call_sweep(&mut b, j);
        free_tape(&mut b, tape);
        let next = b.add(j, team);
        j.add_incoming(next, b.current_block());
        b.br(head);
        b.position_at_end(done);
        b.ret_void();
    }
    f
}

/// `void umbra.omp.tapes.discard(ptr tapes)`: frees every chunk of every per-thread tape in
/// the block (however much is still on them), then the block.
fn discard_tapes(m: Module) -> Val {
    const NAME: &str = "umbra.omp.tapes.discard";
    if let Some(f) = m.function(NAME) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = m.add_function(NAME, Ty::function(Ty::void(ctx), &[ptr], false));
    f.set_internal();
    let tapes = f.params()[0];
    let mut b = Builder::new(m);
    let (entry, head, body, done) = (
        f.append_block("entry"),
        f.append_block("head"),
        f.append_block("body"),
        f.append_block("done"),
    );
    b.position_at_end(entry);
    let cap = b.load(i64t, tapes, 8);
    b.br(head);
    b.position_at_end(head);
    let t = b.phi(i64t);
    t.add_incoming(i64t.zero(), entry);
    let more = b.icmp(IntPred::LLVMIntULT, t, cap);
    b.cond_br(more, body, done);
    b.position_at_end(body);
    let tape = tape_at(&mut b, tapes, t);
    b.call_function(crate::tape::discard_helper(m), &[tape]);
    let next = b.add(t, i64t.int_const(1));
    t.add_incoming(next, body);
    b.br(head);
    b.position_at_end(done);
    let free = m.get_or_add_function("free", Ty::function(Ty::void(ctx), &[ptr], false));
    b.call_function(free, &[tapes]);
    b.ret_void();
    f
}

impl AugmentedFn<'_> {
    /// The region's augmented sweep on per-thread tapes; the tape block is saved for the
    /// adjoint.
    pub(super) fn fork_augmented(&mut self, i: Val, g: Val) -> Result<()> {
        let acts = activities(self.session, i, |v| self.is_active(v))?;
        let mut args = Vec::new();
        for (a, act) in i.call_args().into_iter().skip(3).zip(&acts[2..]) {
            args.push(self.vals.map(a));
            if act.has_shadow() {
                args.push(self.shadow(a, i)?);
            }
        }
        let writes = self.plan.fork_writes(i, g);
        let (aug, _) = self.session.declare_reverse_for(g, &acts, writes, 0)?;
        let m = self.session.module;
        let micro = microtask(m, &format!("{}.omp", aug.name()), aug, true, false);
        let ctx = m.context();
        let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
        let max = query(&mut self.b, "omp_get_max_threads");
        let max = self.b.sext_or_trunc(max, i64t);
        let size = i64t.int_const(m.alloc_size(tape_type(m)));
        let bytes = self.b.mul(max, size);
        let bytes = self.b.add(bytes, i64t.int_const(HEADER));
        let calloc = m.get_or_add_function("calloc", Ty::function(ptr, &[i64t, i64t], false));
        let tapes = self.b.call_function(calloc, &[i64t.int_const(1), bytes]);
        self.b.store(max, tapes, 8);
        // Should an exception unwind through the sweep after the region, its tapes go too.
        crate::tape::owned::record(&mut self.b, tapes, discard_tapes(m), &[]);
        fork(&mut self.b, i, micro, tapes, &args);
        self.saved.insert(i, tapes);
        Ok(())
    }
}

impl AdjointFn<'_> {
    /// The region's adjoint: a team of the recorded size reverses every thread's tape.
    pub(super) fn reverse_fork(&mut self, i: Val, g: Val) -> Result<()> {
        let acts = activities(self.session, i, |v| self.is_active(v))?;
        let Some(tapes) = self.saved.take() else {
            return Err(Error::at(
                i,
                "internal error: the parallel region's tapes were not saved",
            ));
        };
        let mut args = Vec::new();
        for (a, act) in i.call_args().into_iter().skip(3).zip(&acts[2..]) {
            args.push(self.primal(a, i)?);
            if act.has_shadow() {
                args.push(self.shadow(a, i)?);
            }
        }
        let writes = self.plan.fork_writes(i, g);
        let (_, adj) = self.session.declare_reverse_for(g, &acts, writes, 0)?;
        let m = self.session.module;
        let strict = crate::openmp::waits_for_others(g);
        let micro = microtask(m, &format!("{}.omp", adj.name()), adj, false, strict);
        let ctx = m.context();
        let (ptr, i32t, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 32), Ty::int(ctx, 64));
        let loc = i.call_args()[0];
        let team_slot = self
            .b
            .gep(Ty::int(ctx, 8), tapes, &[i64t.int_const(8)], true);
        let count = self.b.load(i64t, team_slot, 8);
        let count = self.b.sext_or_trunc(count, i32t);
        let thread = m.get_or_add_function(
            "__kmpc_global_thread_num",
            Ty::function(i32t, &[ptr], false),
        );
        let gtid = self.b.call_function(thread, &[loc]);
        let push = m.get_or_add_function(
            "__kmpc_push_num_threads",
            Ty::function(Ty::void(ctx), &[ptr, i32t, i32t], false),
        );
        self.b.call_function(push, &[loc, gtid, count]);
        let free = m.get_or_add_function("free", Ty::function(Ty::void(ctx), &[ptr], false));
        let outs: Vec<Val> = i
            .call_args()
            .into_iter()
            .skip(3)
            .zip(&acts[2..])
            .filter(|(_, &act)| act == Activity::Out)
            .map(|(a, _)| a)
            .collect();
        if outs.is_empty() {
            fork(&mut self.b, i, micro, tapes, &args);
        } else {
            // The threads add their adjoints of the variables captured by value into zeroed sums.
            let calloc = m.get_or_add_function("calloc", Ty::function(ptr, &[i64t, i64t], false));
            let n = i64t.int_const(outs.len() as u64);
            let sums = self.b.call_function(calloc, &[n, i64t.int_const(SUM)]);
            args.push(sums);
            fork(&mut self.b, i, micro, tapes, &args);
            for (k, &a) in outs.iter().enumerate() {
                let Some(t) = adj
                    .function_type()
                    .return_type()
                    .struct_fields()
                    .get(k)
                    .copied()
                else {
                    return Err(Error::internal(
                        i,
                        "an adjoint of a parallel region returns fewer adjoints than it captures variables by value",
                    ));
                };
                let at = self.b.gep(
                    Ty::int(ctx, 8),
                    sums,
                    &[i64t.int_const(SUM * k as u64)],
                    true,
                );
                let d = self.b.load(t, at, 8);
                self.accumulate(a, d);
            }
            self.b.call_function(free, &[sums]);
        }
        self.b.call_function(free, &[tapes]);
        Ok(())
    }
}

impl AdjointFn<'_> {
    /// `atomicrmw fadd p, v` adds `v` to `*p`: `v` receives `*p`'s adjoint, which it leaves as
    /// it is (so every thread reads it unchanged).
    pub(super) fn reverse_atomic_fadd(&mut self, i: Val) -> Result<()> {
        let (p, v) = (i.operand(0), i.operand(1));
        if !self.is_active(v) || !self.is_active(p) {
            return Ok(());
        }
        let sp = self.shadow(p, i)?;
        let d = self.b.load(v.ty(), sp, i.alignment().max(1));
        self.accumulate(v, d);
        Ok(())
    }
}

impl AdjointFn<'_> {
    /// The adjoint's side of a runtime call that orders the threads: a barrier where the
    /// primal had one, a critical section entered once every section with a later ticket is
    /// reversed and left by handing the turn on, a blocking reduction's barrier and lock.
    pub(super) fn reverse_sync(&mut self, i: Val, sync: Sync) -> Result<()> {
        let loc = i.call_args()[0];
        match sync {
            Sync::Barrier => crate::openmp::barrier(&mut self.b, loc),
            Sync::EndCritical => {
                let Some(ticket) = self.saved.take() else {
                    return Err(Error::internal(
                        i,
                        "the ticket of an OpenMP critical section was not taped",
                    ));
                };
                crate::openmp::wait_turn(&mut self.b, i, ticket)?;
            }
            Sync::Critical => crate::openmp::release_turn(&mut self.b, i)?,
            Sync::EndReduce => {
                crate::openmp::barrier(&mut self.b, loc);
                self.reduction_turn_begin(i)?;
            }
        }
        Ok(())
    }
}

impl AdjointFn<'_> {
    /// Going backwards into a reduction's critical section at its end (`i`, a
    /// `__kmpc_end_reduce[_nowait]`): once every section with a later ticket is reversed (a
    /// maximum, a minimum or a product over the threads needs that order).
    pub(super) fn reduction_turn_begin(&mut self, i: Val) -> Result<()> {
        let Some(ticket) = self.saved.take() else {
            return Err(Error::internal(
                i,
                "the ticket of an OpenMP reduction's critical section was not taped",
            ));
        };
        crate::openmp::wait_turn(&mut self.b, i, ticket)
    }
}

impl AugmentedFn<'_> {
    /// After the primal's copy of a critical section's bounds: the thread's ticket, taken
    /// inside the section and taped where it ends, so the adjoint reverses the sections in the
    /// reverse of the order the threads ran them (a product or a maximum over the threads
    /// needs that order; a sum would not).
    pub(super) fn augment_sync(&mut self, i: Val) -> Result<()> {
        match crate::openmp::sync_kind(i) {
            Some(Sync::Critical) => {
                let ticket = crate::openmp::take_ticket(&mut self.b, i)?;
                self.tickets.insert(i.call_args()[2], ticket);
            }
            Some(Sync::EndCritical) => {
                let Some(&ticket) = self.tickets.get(&i.call_args()[2]) else {
                    return Err(Error::at(
                        i,
                        "reverse mode cannot differentiate this OpenMP critical section: its end is not reached from its start in the same function",
                    ));
                };
                self.saved.insert(i, ticket);
            }
            // A reduction's critical section: the ticket is taken just before it ends, still
            // under the runtime's lock (the section began inside `__kmpc_reduce[_nowait]`).
            Some(Sync::EndReduce) => self.reduction_ticket(i)?,
            _ if crate::openmp::ends_critical(i) => self.reduction_ticket(i)?,
            _ => {}
        }
        Ok(())
    }

    /// Takes and tapes the ticket of the reduction's critical section `end` ends, before the
    /// primal's copy of `end` (the last instruction emitted).
    fn reduction_ticket(&mut self, end: Val) -> Result<()> {
        let here = self.b.current_block();
        let copy = here.instructions().last().copied();
        let Some(copy) = copy.filter(|c| c.is_call() && c.called_value() == end.called_value())
        else {
            return Err(Error::internal(
                end,
                "the copy of a reduction's end is missing",
            ));
        };
        self.b.position_before(copy);
        let ticket = crate::openmp::take_ticket(&mut self.b, end)?;
        self.b.position_at_end(here);
        self.saved.insert(end, ticket);
        Ok(())
    }
}
