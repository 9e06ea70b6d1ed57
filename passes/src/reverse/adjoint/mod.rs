//! [`AdjointFn`]: builds `adjoint.f`, the reverse sweep. Blocks are visited backwards from the
//! return; within a block, instructions in reverse order. At each instruction it pops exactly
//! what the augmented sweep pushed there ([`needs`]) and propagates the instruction's adjoint to
//! its operands. Adjoints live in entry-block stack slots (zeroed after their definition is
//! passed, so loop iterations do not leak into each other); phi adjoints travel along per-edge
//! blocks to the incoming values of the edge actually taken, chosen by the popped predecessor.

use super::bytes::ByteOp;
use super::cfg::ReverseCfg;
use super::classify::arg_activity;
use super::classify::{reverse_callee, ReverseCallee};
use super::loop_tape::{exit_record, iteration_index, ExitField, LoopTapes, RegionSlot};
use super::needs::{user_tape, Need};
use super::plan::ReversePlan;
use crate::analysis::activity::ActiveSet;
use crate::analysis::opcodes::{classify, InstClass, SignBit};
use crate::analysis::types;
use crate::analysis::types::bytes::{self, byte_copy, ByteCopy};
use crate::cache::{Key, Session};
use crate::diag::{Error, Result};
use crate::ir::{Block, Builder, Opcode, RealPred, Ty, TyKind, Val};
use crate::rules::instructions::{inputs_read, InstructionKind, InstructionRule};
use crate::rules::user::{is_float_value, UserRule};
use crate::rules::{self, linear, AdjointCall, Callee, CustomReverse, RuleKind};
use crate::signature::returns_adjoint;
use crate::tape;
use crate::vocab::Activity;
use std::collections::HashMap;

mod arith;
mod calls;
mod control;
mod memory;

pub(super) struct AdjointFn<'s> {
    pub(super) session: &'s mut Session,
    src: Val,
    dst: Val,
    activity: Vec<Activity>,
    active: ActiveSet,
    cfg: ReverseCfg,
    pub(super) plan: ReversePlan,
    pub(super) b: Builder,
    tape: Val,
    /// Structured loops' induction variables → the slot counting them down.
    counters: HashMap<Val, Val>,
    /// Structured loops' induction variables → the slot holding their start value.
    starts: HashMap<Val, Val>,
    /// Source arguments → the adjoint function's copies of them.
    args: HashMap<Val, Val>,
    /// Source arguments → their shadows.
    arg_shadows: HashMap<Val, Val>,
    dret: Option<Val>,
    /// Adjoint slots (allocas in the entry block), by source value.
    slots: HashMap<Val, Val>,
    /// The entry block's terminator: slots are created before it.
    entry_end: Option<Val>,
    /// Reverse block of each source block.
    rblocks: HashMap<Block, Block>,
    /// The entry block (adjoint slots), the dispatch to the reverse of the taken return, and
    /// the exit returning the parameters' adjoints.
    entry: Block,
    dispatch: Block,
    exit: Block,
    /// Values popped for the instruction being reversed.
    popped: HashMap<(bool, Val), Val>,
    /// Values (and shadows: `true`) rebuilt from their operands in the block being reversed:
    /// emitted in sequence, they dominate the rest of the block's adjoint, so each is built
    /// once per block (a chain of 400 products was rebuilt once per use, quadratically).
    rebuilt: HashMap<(bool, Val), Val>,
    /// What a custom rule saved, popped for the call being reversed.
    pub(super) saved: Option<Val>,
    /// Blocks whose free was deferred to this adjoint, released at its exit.
    deferred: Option<Val>,
    /// Values (and shadows: `true`) kept in this call's frame, loaded at entry.
    frame: HashMap<(bool, Val), Val>,
    /// The batches of the block being reversed, which batch each instruction is in, and the
    /// popped slot of each batch reached so far.
    batches: Vec<super::batch::Batch>,
    batch_of: HashMap<Val, usize>,
    batch_slots: HashMap<usize, Val>,
    /// The source block being reversed.
    block: Option<Block>,
    /// Loops whose iterations' batches are in one region of the tape.
    loop_tapes: LoopTapes,
    /// Structured loop → the slots holding its region's address and reserved count.
    regions: HashMap<usize, (Val, Val)>,
    /// The source instruction whose adjoint is being emitted, for `--debug-checks`.
    reversing: Option<Val>,
    /// The module's gradient logger ([`crate::grad_log`]), once looked up.
    grad_logger: Option<Option<Val>>,
    /// This thread's sums of the adjoints of variables a parallel region shares read-only
    /// (parameter, byte offset, adjoint type → slot), added into their shadows at the exit
    /// (`reverse/partial_sums.rs`).
    private_sums: Vec<(Val, u64, Ty, Val)>,
    /// In an outlined function, the captured variables its region writes when it writes no
    /// other shared memory (computed at the first load that needs it), and this thread's
    /// tables of sums by shadow address, by type (`reverse/partial_sums.rs`).
    unwritten: Option<Option<std::collections::HashSet<Val>>>,
    sum_tables: Vec<(Ty, Val)>,
    /// `contract` where the target has FMA, for the adjoint's own arithmetic.
    contract: u32,
}

impl<'s> AdjointFn<'s> {
    /// The adjoint of `key` into `dst`, following `plan` (made for `key`).
    pub(super) fn new(
        session: &'s mut Session,
        key: &Key,
        dst: Val,
        plan: ReversePlan,
    ) -> AdjointFn<'s> {
        let src = key.function;
        let active = super::activity(session, src, &key.activity);
        let b = Builder::new(session.module);
        let cfg = ReverseCfg::of(src);
        let entry = dst.append_block("entry");
        let dispatch = dst.append_block("reverse");
        let rblocks = cfg
            .order
            .iter()
            .map(|&blk| (blk, dst.append_block("")))
            .collect();
        let exit = dst.append_block("exit");
        let loop_tapes = LoopTapes::new(session.module, &cfg, &plan, &active, &session.rules);
        AdjointFn {
            session,
            src,
            dst,
            activity: key.activity.clone(),
            active,
            cfg,
            plan,
            b,
            tape: dst.params()[0],
            counters: HashMap::new(),
            starts: HashMap::new(),
            args: HashMap::new(),
            arg_shadows: HashMap::new(),
            dret: None,
            slots: HashMap::new(),
            entry_end: None,
            rblocks,
            entry,
            dispatch,
            exit,
            popped: HashMap::new(),
            rebuilt: HashMap::new(),
            saved: None,
            deferred: None,
            frame: HashMap::new(),
            batches: Vec::new(),
            batch_of: HashMap::new(),
            batch_slots: HashMap::new(),
            block: None,
            loop_tapes,
            regions: HashMap::new(),
            reversing: None,
            grad_logger: None,
            private_sums: Vec::new(),
            unwritten: None,
            sum_tables: Vec::new(),
            contract: if crate::contraction::has_fma(src) {
                crate::ir::fast_math::CONTRACT
            } else {
                0
            },
        }
    }

    pub(super) fn run(mut self) -> Result<()> {
        for (p, dp, shadow) in
            crate::signature::paired_params(self.src, self.dst, &self.activity, 1)
        {
            self.args.insert(p, dp);
            if let Some(s) = shadow {
                self.arg_shadows.insert(p, s);
            }
        }
        if returns_adjoint(
            self.src,
            &self.session.float_bits_of(self.src, self.session.context()),
        ) {
            self.dret = self.dst.params().last().copied();
        }
        let (entry, dispatch, exit) = (self.entry, self.dispatch, self.exit);
        self.b.position_at_end(entry);
        self.entry_end = Some(self.b.br(dispatch));

        // Enter the reverse of the return that was taken.
        self.b.position_at_end(dispatch);
        let returns = self.cfg.returns.clone();
        let taken = (returns.len() > 1).then(|| {
            let i32t = Ty::int(self.session.module.context(), 32);
            tape::pop(&mut self.b, self.tape, i32t)
        });
        self.load_frame();
        match returns.as_slice() {
            [] => {
                self.b.br(exit);
            }
            [r] => {
                self.b.br(self.rblocks[r]);
            }
            _ => {
                let i32t = Ty::int(self.session.module.context(), 32);
                let k = taken.unwrap_or_else(|| i32t.zero());
                let sw = self
                    .b
                    .switch(k, self.rblocks[&returns[0]], returns.len() as u32);
                for (n, r) in returns.iter().enumerate().skip(1) {
                    self.b
                        .add_case(sw, i32t.int_const(n as u64), self.rblocks[r]);
                }
            }
        }

        for b in self.cfg.order.clone() {
            self.b.position_at_end(self.rblocks[&b]);
            self.reverse_block(b)?;
        }

        self.b.position_at_end(exit);
        self.flush_private_sums()?;
        if let Some(list) = self.deferred {
            let release = tape::release_helper(self.session.module);
            self.b.call_function(release, &[list]);
        }
        self.return_adjoints();
        Ok(())
    }

    pub(super) fn is_active(&self, v: Val) -> bool {
        self.active.contains(v)
    }

    /// True when `v` is an integer the type analysis found to hold float bits: its copy on the
    /// tape stays differentiable (not typed as tape integer data).
    fn holds_float_bits(&mut self, v: Val) -> bool {
        let m = self.session.module;
        types::float_bits(self.session.types(), m, v).is_some()
    }

    /// Pops the values the augmented sweep kept in this call's frame (pushed at the return,
    /// in one slot).
    fn load_frame(&mut self) {
        let (frame, bytes) = self.plan.frame_layout(self.session.module);
        if bytes == 0 {
            return;
        }
        let slot = tape::pop_bytes(&mut self.b, self.tape, bytes);
        for (v, shadow, off) in frame {
            let bits = self.holds_float_bits(v);
            let at = tape::at_offset(&mut self.b, slot, off);
            let x = tape::load_value(&mut self.b, v.ty(), at, bits);
            self.frame.insert((shadow, v), x);
        }
    }

    // ----- adjoint slots -----

    /// The slot holding `v`'s adjoint, created zeroed in the entry block. Zero is `-0.0`
    /// ([`crate::ir::Ty::neg_zero`]): the first contribution added to it then folds to itself.
    fn slot(&mut self, v: Val) -> Val {
        if let Some(&s) = self.slots.get(&v) {
            return s;
        }
        let here = self.b.current_block();
        if let Some(end) = self.entry_end {
            self.b.position_before(end);
        }
        let t = self.adjoint_ty(v).unwrap_or(v.ty());
        let s = self.b.alloca(t, "");
        self.b.store(t.neg_zero(), s, 0);
        self.b.position_at_end(here);
        self.slots.insert(v, s);
        s
    }

    /// The slot counting structured loop `iv` down in the adjoint.
    fn counter(&mut self, iv: Val) -> Val {
        if let Some(&c) = self.counters.get(&iv) {
            return c;
        }
        let here = self.b.current_block();
        if let Some(end) = self.entry_end {
            self.b.position_before(end);
        }
        let c = self.b.alloca(iv.ty(), "counter");
        self.b.position_at_end(here);
        self.counters.insert(iv, c);
        c
    }

    /// The slot holding structured loop `iv`'s start value (when it is not a constant or an
    /// argument), popped where the adjoint enters the loop.
    fn start_slot(&mut self, iv: Val) -> Val {
        if let Some(&s) = self.starts.get(&iv) {
            return s;
        }
        let here = self.b.current_block();
        if let Some(end) = self.entry_end {
            self.b.position_before(end);
        }
        let s = self.b.alloca(iv.ty(), "start");
        self.b.position_at_end(here);
        self.starts.insert(iv, s);
        s
    }

    /// `adjoint(v) += d` for active floating-point values; constants and inactive values
    /// have no adjoint.
    pub(super) fn accumulate(&mut self, v: Val, d: Val) {
        if !(v.is_instruction() || v.is_argument()) || !self.is_active(v) {
            return;
        }
        let Some(t) = self.adjoint_ty(v) else {
            return;
        };
        let s = self.slot(v);
        let cur = self.b.load(t, s, 0);
        let sum = add_values(&mut self.b, cur, d);
        // The order in which contributions reach an adjoint is Umbra's, not the program's:
        // `reassoc` lets a long one-block sum become a tree (crate::schedule::balance_sums).
        if sum.is_instruction() && sum.opcode() == crate::ir::Opcode::LLVMFAdd {
            sum.add_fast_math_flags(sum.fast_math_flags() | crate::ir::fast_math::REASSOC);
        }
        self.b.store(sum, s, 0);
        if let Some(i) = self.reversing.filter(|_| self.session.opts.debug_checks) {
            crate::debug_checks::adjoint(&mut self.b, i, cur, sum);
        }
    }

    /// Passes adjoint `d` of source instruction `i` to the module's gradient logger, if it has
    /// one ([`crate::grad_log`]).
    fn log_gradient(&mut self, i: Val, d: Val) -> Result<()> {
        let logger = match self.grad_logger {
            Some(l) => l,
            None => *self
                .grad_logger
                .insert(crate::grad_log::logger(self.session.module)?),
        };
        if let Some(log) = logger {
            crate::grad_log::log(&mut self.b, log, i, d);
        }
        Ok(())
    }

    /// Reads and clears the adjoint of `v` (for active floating-point values).
    fn take_adjoint(&mut self, v: Val) -> Option<Val> {
        if !self.is_active(v) {
            return None;
        }
        let t = self.adjoint_ty(v)?;
        let s = self.slot(v);
        let d = self.b.load(t, s, 0);
        self.b.store(t.neg_zero(), s, 0);
        Some(d)
    }

    /// The type of `v`'s adjoint: its own for floating-point data, the float's for an integer
    /// carrying float bits ([`types::float_bits`]: integers that carry float bits are floats
    /// for differentiation), none otherwise.
    fn adjoint_ty(&self, v: Val) -> Option<Ty> {
        let t = v.ty();
        if t.contains_float() && !t.contains_ptr() {
            return Some(t);
        }
        if !t.is_int() {
            return None;
        }
        types::float_bits(self.session.types(), self.session.module, v)
    }

    fn return_adjoints(&mut self) {
        let ret_ty = self.dst.function_type().return_type();
        if ret_ty.is_void() {
            self.b.ret_void();
            return;
        }
        let mut agg = ret_ty.poison();
        let mut k = 0;
        for (p, a) in self.src.params().into_iter().zip(self.activity.clone()) {
            if a == Activity::Out {
                // An integer carrying float bits returns the float's adjoint.
                let t = self.adjoint_ty(p).unwrap_or(p.ty());
                let d = match self.slots.get(&p) {
                    // `+ 0.0` turns the empty adjoint's `-0.0` into `0.0` for the caller.
                    Some(&s) if t.is_fp_or_fp_vector() => {
                        let d = self.b.load(t, s, 0);
                        self.b.fadd(d, t.zero())
                    }
                    Some(&s) => self.b.load(t, s, 0),
                    None => t.zero(),
                };
                agg = self.b.insert_value(agg, d, k);
                k += 1;
            }
        }
        self.b.ret(agg);
    }

    // ----- values from the forward sweep -----

    /// The primal value of `v` at the instruction being reversed: popped from the tape,
    /// an argument, a constant, a structured loop's counter, or rebuilt from those.
    pub(super) fn primal(&mut self, v: Val, at: Val) -> Result<Val> {
        if let Some(&p) = self.popped.get(&(false, v)) {
            return Ok(p);
        }
        if let Some(&a) = self.args.get(&v) {
            return Ok(a);
        }
        if !v.is_instruction() && !v.is_argument() {
            // No poison lane of a constant may meet a (zero) adjoint in a partial.
            return Ok(v.defined());
        }
        if let Some(&x) = self.frame.get(&(false, v)) {
            return Ok(x);
        }
        // After its loop: from the loop's entry values (the counter is not that loop's).
        if let Some(e) = self.plan.exit_value_at(v, at.parent_block()).cloned() {
            if let Some(&r) = self.rebuilt.get(&(false, v)) {
                return Ok(r);
            }
            let init = self.primal(e.init, at)?;
            let from = self.primal(e.exit.init, at)?;
            let bound = self.primal(e.exit.bound, at)?;
            let d = self.b.sub(bound, from);
            let mut r = self.b.add(init, d);
            if e.offset != 0 {
                r = self.b.add(r, v.ty().int_const(e.offset as u64));
            }
            self.rebuilt.insert((false, v), r);
            return Ok(r);
        }
        if self.plan.is_phi_select(v) {
            if let Some(&r) = self.rebuilt.get(&(false, v)) {
                return Ok(r);
            }
            let choice = self
                .plan
                .pred_choice(v.parent_block())
                .cloned()
                .ok_or_else(|| internal(v, "a phi rebuilt without its block's choice"))?;
            let r = self.select_on_choice(v, &choice, at)?;
            self.rebuilt.insert((false, v), r);
            return Ok(r);
        }
        if self.plan.loops().iter().any(|l| l.iv == v) {
            let c = self.counter(v);
            let p = self.b.load(v.ty(), c, 0);
            self.popped.insert((false, v), p);
            return Ok(p);
        }
        if let Some(s) = self.plan.secondary_iv(v).copied() {
            let p = self.rebuild_secondary_iv(v, s, at)?;
            self.popped.insert((false, v), p);
            return Ok(p);
        }
        if v.is_instruction() && self.plan.primal_rebuildable_for(v, at) {
            if let Some(&r) = self.rebuilt.get(&(false, v)) {
                return Ok(r);
            }
            let c = v.clone_instruction();
            for k in 0..v.num_operands() {
                let o = self.primal(v.operand(k), at)?;
                c.set_operand(k, o);
            }
            self.b.insert(c);
            let c = crate::ir::with_defined_mask(&mut self.b, c);
            let c = crate::contraction::settle_copy(&mut self.b, c);
            c.strip_metadata_except_tbaa();
            if c.is_call() && crate::clone::is_pure_math(c) {
                // Its value only (no errno): rebuilt in a loop whose iterations do not change
                // its operands, the optimiser hoists it out (the plan rebuilds libm values in
                // inner loops on that ground).
                c.mark_call_pure();
            }
            self.rebuilt.insert((false, v), c);
            return Ok(c);
        }
        Err(internal(
            at,
            "primal value not available in the adjoint sweep",
        ))
    }

    /// Phi `phi`'s value as selects on its block's `choice`: the incoming value of the
    /// predecessor the rebuilt conditions pick (the plan allows this only where every arm
    /// can be computed safely).
    fn select_on_choice(
        &mut self,
        phi: Val,
        choice: &super::pred_choice::PredChoice,
        at: Val,
    ) -> Result<Val> {
        use super::pred_choice::PredChoice;
        match choice {
            PredChoice::Pred(k) => {
                let pred = self.cfg.preds(phi.parent_block())[*k];
                let (v, _) = phi
                    .incoming()
                    .into_iter()
                    .find(|(_, b)| *b == pred)
                    .ok_or_else(|| internal(phi, "a phi without an incoming value"))?;
                self.primal(v, at)
            }
            PredChoice::Branch {
                cond,
                if_true,
                if_false,
            } => {
                let c = self.primal(*cond, at)?;
                let t = self.select_on_choice(phi, if_true, at)?;
                let f = self.select_on_choice(phi, if_false, at)?;
                Ok(self.b.select(c, t, f))
            }
        }
    }

    /// A secondary induction variable in the current iteration of its loop:
    /// `init + ((counter - start) / step) * its step`.
    fn rebuild_secondary_iv(
        &mut self,
        v: Val,
        s: super::plan::SecondaryIv,
        at: Val,
    ) -> Result<Val> {
        let l = self.plan.loops()[s.lp].clone();
        let cur = self.primal(l.iv, at)?;
        let start = if l.start.is_instruction() {
            let slot = self.start_slot(l.iv);
            self.b.load(l.start.ty(), slot, 0)
        } else {
            self.primal(l.start, at)?
        };
        let dist = self.b.sub(cur, start);
        let n = self.b.binop(Opcode::LLVMSDiv, dist, l.step);
        let init = self.primal(s.init, at)?;
        let ty = v.ty();
        let scalar = ty.scalar();
        let n = self.b.sext_or_trunc(n, scalar);
        let n = if ty.is_vector() {
            let mut splat = ty.poison();
            for k in 0..ty.vector_len() {
                let idx = Ty::int(self.session.module.context(), 32).int_const(k as u64);
                splat = self.b.insert_element(splat, n, idx);
            }
            splat
        } else {
            n
        };
        let offset = self.b.mul(n, s.step);
        Ok(self.b.add(init, offset))
    }

    /// The shadow of pointer `v` at the instruction being reversed: popped, an argument's
    /// shadow, a constant's substitute, or rebuilt (a GEP or cast of a rebuildable shadow, a
    /// pointer read again from shadow memory).
    pub(super) fn shadow(&mut self, v: Val, at: Val) -> Result<Val> {
        if let Some(&p) = self.popped.get(&(true, v)) {
            return Ok(p);
        }
        if let Some(&s) = self.arg_shadows.get(&v) {
            return Ok(s);
        }
        if let Some(&x) = self.frame.get(&(true, v)) {
            return Ok(x);
        }
        if !v.is_instruction() && !v.is_argument() {
            return crate::clone::substitute_shadow(self.session, v, at);
        }
        if v.is_instruction() && self.plan.shadow_rebuildable_for(v, at) {
            if let Some(&r) = self.rebuilt.get(&(true, v)) {
                return Ok(r);
            }
            let shadowed = self
                .plan
                .shadow_rebuild_operands(v)
                .ok_or_else(|| internal(at, "a rebuilt shadow of an unexpected instruction"))?;
            let c = v.clone_instruction();
            for k in 0..v.num_operands() {
                let o = if shadowed.contains(&k) {
                    self.shadow(v.operand(k), at)?
                } else {
                    self.primal(v.operand(k), at)?
                };
                c.set_operand(k, o);
            }
            self.b.insert(c);
            c.strip_metadata_except_tbaa();
            self.rebuilt.insert((true, v), c);
            return Ok(c);
        }
        Err(internal(at, "shadow not available in the adjoint sweep"))
    }
}

fn internal(at: Val, what: &str) -> Error {
    Error::internal(at, format!("reverse mode: {what}"))
}

/// `a + b` for floating-point data; non-float parts (integers, pointers) keep `a`'s value.
fn add_values(b: &mut Builder, x: Val, y: Val) -> Val {
    let ty = x.ty();
    match ty.kind() {
        TyKind::Float => b.fadd(x, y),
        TyKind::Vector if ty.is_fp_or_fp_vector() => b.fadd(x, y),
        TyKind::Struct | TyKind::Array => {
            let n = match ty.kind() {
                TyKind::Struct => ty.struct_fields().len() as u32,
                _ => ty.array_len() as u32,
            };
            let mut out = x;
            for k in 0..n {
                let (xe, ye) = (b.extract_value(x, k), b.extract_value(y, k));
                if xe.ty().contains_float() {
                    let s = add_values(b, xe, ye);
                    out = b.insert_value(out, s, k);
                }
            }
            out
        }
        _ => x,
    }
}

/// `insertvalue` along a path of indices.
fn insert_path(b: &mut Builder, agg: Val, v: Val, idx: &[u32]) -> Val {
    match idx {
        [] => v,
        [k] => b.insert_value(agg, v, *k),
        [k, rest @ ..] => {
            let inner = b.extract_value(agg, *k);
            let inner = insert_path(b, inner, v, rest);
            b.insert_value(agg, inner, *k)
        }
    }
}

/// `extractvalue` along a path of indices.
fn extract_path(b: &mut Builder, agg: Val, idx: &[u32]) -> Val {
    idx.iter().fold(agg, |a, &k| b.extract_value(a, k))
}
