//! What the derivatives of a fixed-point function ([`super::fixed`]) share: its values in the
//! derived function, the primal loop, keeping and restoring its memory, the squared norm of an
//! update, and the iteration with its stopping rule (the built-in relative test, or Tapenade's
//! control protocol, and the pass limit).
//!
//! Guarantees: the stopping rule is the one the header documents, in both modes; every buffer
//! taken with [`Fp::malloc`] is freed by the caller with [`Fp::free_all`].

use crate::cache::Job;
use crate::diag::{Error, Result};
use crate::ir::{Block, Builder, IntPred, Opcode, RealPred, Ty, Val};
use crate::vocab::Activity;

/// Name prefix of the fixed-point functions.
pub const FP_PREFIX: &str = "umbra.fp.";

/// One piece of memory of the loop: a state (in the convergence test) or a region.
#[derive(Clone, Copy)]
pub struct Mem {
    /// Its address (the derived function's copy).
    pub ptr: Val,
    /// Its size in bytes (i64).
    pub bytes: Val,
    /// Its shadow, when the pointer has one.
    pub shadow: Option<Val>,
    /// A state, not a region.
    pub state: bool,
}

/// The fixed-point function's values in a derived function.
pub struct Fp {
    /// The step.
    pub step: Val,
    /// The step's arguments after the index, each with its shadow if it has one.
    pub args: Vec<(Val, Option<Val>)>,
    /// States, then regions.
    pub memory: Vec<Mem>,
    reduction: Val,
    limit: Val,
    control: Val,
    has_control: Val,
    cumul_slot: Val,
    reduction_slot: Val,
}

/// The pass loop under construction ([`Fp::iterate`]).
pub struct Iter {
    pass: Block,
    done: Block,
    iter: Val,
    reference: Val,
}

impl Fp {
    /// Reads the values of `d` (whose first `skip` parameters are the tape) and emits the
    /// slots the control protocol needs, at the builder (the entry block).
    pub fn new(b: &mut Builder, job: &Job, d: Val, skip: usize, step: Val) -> Fp {
        let f = job.key.function;
        let ctx = b.module().context();
        let (i64t, f64t, ptr) = (Ty::int(ctx, 64), Ty::double(ctx), Ty::ptr(ctx));
        let (s, r) = counts(f);
        let pairs = crate::signature::paired_params(f, d, &job.key.activity, skip);
        let v = |k: usize| pairs[k].1;
        let memory = (0..s + r)
            .map(|k| Mem {
                ptr: v(FIXED + k),
                bytes: v(FIXED + s + r + k),
                shadow: pairs[FIXED + k].2,
                state: k < s,
            })
            .collect();
        let args = pairs[FIXED + 2 * (s + r)..]
            .iter()
            .map(|p| (p.1, p.2))
            .collect();
        let cumul_slot = b.alloca(f64t, "fp.cumul");
        let reduction_slot = b.alloca(f64t, "fp.reduction");
        let reduction = b.cast(Opcode::LLVMBitCast, v(0), f64t);
        b.store(reduction, reduction_slot, 8);
        let control = b.cast(Opcode::LLVMIntToPtr, v(2), ptr);
        let has_control = b.icmp(IntPred::LLVMIntNE, v(2), i64t.zero());
        Fp {
            step,
            args,
            memory,
            reduction,
            limit: v(1),
            control,
            has_control,
            cumul_slot,
            reduction_slot,
        }
    }

    /// The states (in the convergence test).
    pub fn states(&self) -> Vec<Mem> {
        self.memory.iter().copied().filter(|m| m.state).collect()
    }

    /// The primal loop `i = 0; while (step(i++, args));`; returns the last iteration's index,
    /// the builder in a new block after the loop.
    pub fn primal_loop(&self, b: &mut Builder, d: Val) -> Val {
        let i64t = Ty::int(b.module().context(), 64);
        let here = b.current_block();
        let body = d.append_block("fp.primal");
        let after = d.append_block("fp.converged");
        b.br(body);
        b.position_at_end(body);
        let i = b.phi(i64t);
        let plain: Vec<Val> = self.args.iter().map(|a| a.0).collect();
        let again = call_step(b, self.step, i, &plain);
        let next = b.add(i, i64t.int_const(1));
        i.add_incoming(i64t.zero(), here);
        i.add_incoming(next, body);
        b.cond_br(again, body, after);
        b.position_at_end(after);
        i
    }

    /// The step's index argument for iteration `i`.
    pub fn index(&self, b: &mut Builder, i: Val) -> Val {
        b.sext_or_trunc(i, self.step.function_type().param_types()[0])
    }

    /// `malloc(bytes)`.
    pub fn malloc(&self, b: &mut Builder, bytes: Val) -> Val {
        let ctx = b.module().context();
        let (i64t, ptr) = (Ty::int(ctx, 64), Ty::ptr(ctx));
        let malloc = b
            .module()
            .get_or_add_function("malloc", Ty::function(ptr, &[i64t], false));
        b.call_function(malloc, &[bytes])
    }

    /// Frees buffers from [`Fp::malloc`].
    pub fn free_all(&self, b: &mut Builder, buffers: impl IntoIterator<Item = Val>) {
        let ctx = b.module().context();
        let free = b
            .module()
            .get_or_add_function("free", Ty::function(Ty::void(ctx), &[Ty::ptr(ctx)], false));
        for p in buffers {
            b.call_function(free, &[p]);
        }
    }

    /// Copies of every piece of memory as it is now.
    pub fn keep(&self, b: &mut Builder) -> Vec<Val> {
        self.memory
            .iter()
            .map(|m| {
                let copy = self.malloc(b, m.bytes);
                b.memcpy(copy, 1, m.ptr, 1, m.bytes);
                copy
            })
            .collect()
    }

    /// Puts back copies from [`Fp::keep`].
    pub fn restore(&self, b: &mut Builder, kept: &[Val]) {
        for (m, k) in self.memory.iter().zip(kept) {
            b.memcpy(m.ptr, 1, *k, 1, m.bytes);
        }
    }

    /// Starts the passes: with a control function, calls it with `cumul = -1` first (0: no
    /// pass at all). The builder is left at the start of a pass.
    pub fn iterate(&self, b: &mut Builder, d: Val) -> Iter {
        let ctx = b.module().context();
        let (i64t, f64t) = (Ty::int(ctx, 64), Ty::double(ctx));
        let here = b.current_block();
        let start = d.append_block("fp.control.start");
        let pass = d.append_block("fp.pass");
        let done = d.append_block("fp.done");
        b.cond_br(self.has_control, start, pass);
        b.position_at_end(start);
        b.store(f64t.float_const(-1.0), self.cumul_slot, 8);
        let go = self.call_control(b);
        b.cond_br(go, pass, done);
        b.position_at_end(pass);
        let iter = b.phi(i64t);
        let reference = b.phi(f64t);
        for from in [here, start] {
            iter.add_incoming(i64t.zero(), from);
            reference.add_incoming(f64t.zero(), from);
        }
        Iter {
            pass,
            done,
            iter,
            reference,
        }
    }

    fn call_control(&self, b: &mut Builder) -> Val {
        let ctx = b.module().context();
        let ptr = Ty::ptr(ctx);
        let fty = Ty::function(Ty::int(ctx, 32), &[ptr, ptr], false);
        let r = b.call(fty, self.control, &[self.cumul_slot, self.reduction_slot]);
        b.icmp(IntPred::LLVMIntNE, r, r.ty().zero())
    }
}

impl Iter {
    /// Ends a pass whose update has squared norm `cumul`: another pass, or on to the block after
    /// the passes, where the builder is left.
    pub fn end_pass(&mut self, b: &mut Builder, fp: &Fp, d: Val, cumul: Val) {
        let ctx = b.module().context();
        let (i64t, f64t) = (Ty::int(ctx, 64), Ty::double(ctx));
        b.store(cumul, fp.cumul_slot, 8);
        let by_control = d.append_block("fp.control");
        let by_rule = d.append_block("fp.rule");
        let decide = d.append_block("fp.decide");
        b.cond_br(fp.has_control, by_control, by_rule);
        b.position_at_end(by_control);
        let c = fp.call_control(b);
        b.br(decide);
        // The built-in rule: the first pass sets the reference (and stops when nothing
        // changed); later ones go on while above reduction x reference.
        b.position_at_end(by_rule);
        let first = b.icmp(IntPred::LLVMIntEQ, self.iter, i64t.zero());
        let now = b.load(f64t, fp.cumul_slot, 8);
        let reference = b.select(first, now, self.reference);
        let bound = b.fmul(fp.reduction, reference);
        let above = b.fcmp(RealPred::LLVMRealOGT, now, bound);
        let moved = b.fcmp(RealPred::LLVMRealOGT, now, f64t.zero());
        let r = b.select(first, moved, above);
        b.br(decide);
        b.position_at_end(decide);
        let go = b.phi(Ty::int(ctx, 1));
        go.add_incoming(c, by_control);
        go.add_incoming(r, by_rule);
        let next_ref = b.phi(f64t);
        next_ref.add_incoming(self.reference, by_control);
        next_ref.add_incoming(reference, by_rule);
        let passes = b.add(self.iter, i64t.int_const(1));
        let unlimited = b.icmp(IntPred::LLVMIntSLE, fp.limit, i64t.zero());
        let below = b.icmp(IntPred::LLVMIntSLT, passes, fp.limit);
        let room = b.binop(Opcode::LLVMOr, unlimited, below);
        let again = b.binop(Opcode::LLVMAnd, go, room);
        b.cond_br(again, self.pass, self.done);
        self.iter.add_incoming(passes, decide);
        self.reference.add_incoming(next_ref, decide);
        b.position_at_end(self.done);
    }
}

/// `sum (a[j] - prev[j])^2` (or `sum a[j]^2`) over the `bytes / 8` doubles at `a`.
pub fn squared_norm(b: &mut Builder, d: Val, a: Val, prev: Option<Val>, bytes: Val) -> Val {
    let ctx = b.module().context();
    let (i64t, f64t) = (Ty::int(ctx, 64), Ty::double(ctx));
    let n = b.binop(Opcode::LLVMUDiv, bytes, i64t.int_const(8));
    let here = b.current_block();
    let body = d.append_block("fp.norm");
    let after = d.append_block("fp.norm.done");
    let any = b.icmp(IntPred::LLVMIntSGT, n, i64t.zero());
    b.cond_br(any, body, after);
    b.position_at_end(body);
    let j = b.phi(i64t);
    let acc = b.phi(f64t);
    let pa = b.gep(f64t, a, &[j], true);
    let mut x = b.load(f64t, pa, 8);
    if let Some(prev) = prev {
        let pb = b.gep(f64t, prev, &[j], true);
        let y = b.load(f64t, pb, 8);
        x = b.fsub(x, y);
    }
    let sq = b.fmul(x, x);
    let acc2 = b.fadd(acc, sq);
    let j2 = b.add(j, i64t.int_const(1));
    j.add_incoming(i64t.zero(), here);
    j.add_incoming(j2, body);
    acc.add_incoming(f64t.zero(), here);
    acc.add_incoming(acc2, body);
    let more = b.icmp(IntPred::LLVMIntSLT, j2, n);
    b.cond_br(more, body, after);
    b.position_at_end(after);
    let total = b.phi(f64t);
    total.add_incoming(f64t.zero(), here);
    total.add_incoming(acc2, body);
    total
}

/// Parameters before the memory: reduction (as i64 bits), max_iters, control (as i64). Then the
/// pointers of the states and the regions, their sizes, and the step's arguments.
pub const FIXED: usize = 3;

/// The numbers of states and regions of fixed-point function `f` (`umbra.fp.<S>.<R>.<step>`).
pub fn counts(f: Val) -> (usize, usize) {
    let name = f.name();
    let mut parts = name[FP_PREFIX.len()..].split('.');
    let mut next = || parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    (next(), next())
}

/// `step(i, args) != 0`.
pub fn call_step(b: &mut Builder, step: Val, i: Val, args: &[Val]) -> Val {
    let index = b.sext_or_trunc(i, step.function_type().param_types()[0]);
    let mut all = vec![index];
    all.extend(args.iter().copied());
    let r = b.call_function(step, &all);
    b.icmp(IntPred::LLVMIntNE, r, r.ty().zero())
}

/// The activity of `step`: its index constant, its arguments as the fixed-point function's.
pub fn step_activity(job: &Job, step: Val) -> Result<Vec<Activity>> {
    let f = job.key.function;
    let (s, r) = counts(f);
    let mut acts = vec![Activity::Const];
    acts.extend_from_slice(&job.key.activity[FIXED + 2 * (s + r)..]);
    if acts.contains(&Activity::Out) {
        return Err(Error::in_function(
            step,
            format!(
                "the fixed-point step {} takes a floating-point value that carries a derivative: pass it by pointer",
                step.name()
            ),
        ));
    }
    Ok(acts)
}
