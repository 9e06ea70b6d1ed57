//! [`AdjointFn`]: builds `adjoint.f`, the reverse sweep. Blocks are visited backwards from the
//! return; within a block, instructions in reverse order. At each instruction it pops exactly
//! what the augmented sweep pushed there ([`needs`]) and propagates the instruction's adjoint to
//! its operands. Adjoints live in entry-block stack slots (zeroed after their definition is
//! passed, so loop iterations do not leak into each other); phi adjoints travel along per-edge
//! blocks to the incoming values of the edge actually taken, chosen by the popped predecessor.

use super::bytes::ByteOp;
use super::cfg::ReverseCfg;
use super::classify::{reverse_callee, ReverseCallee};
use super::loop_tape::{exit_record, iteration_index, ExitField, LoopTapes, RegionSlot};
use super::needs::{user_tape, Need};
use super::plan::ReversePlan;
use super::{arg_activity, returns_adjoint, tape};
use crate::analysis::activity::ActiveSet;
use crate::analysis::types;
use crate::analysis::types::bytes::{self, byte_copy, ByteCopy};
use crate::api::Activity;
use crate::cache::{Key, Session};
use crate::diag::{Error, Result};
use crate::ir::{Block, Builder, Opcode, RealPred, Ty, TyKind, Val};
use crate::rules::instructions::{inputs_read, instruction_rule, InstructionKind, InstructionRule};
use crate::rules::user::{is_float_value, UserRule};
use crate::rules::{self, linear, AdjointCall, Callee, CustomReverse, RuleKind};
use std::collections::HashMap;

pub(super) struct AdjointFn<'s> {
    pub(super) session: &'s mut Session,
    src: Val,
    dst: Val,
    activity: Vec<Activity>,
    active: ActiveSet,
    cfg: ReverseCfg,
    plan: ReversePlan,
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
        let active = session.activity(src, &key.activity);
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
        self.b.store(sum, s, 0);
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
        if v.is_instruction() && self.plan.primal_recomputable(v, at.parent_block()) {
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
    /// shadow, a constant's substitute, or rebuilt (a GEP or cast of a rebuildable shadow).
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
        if v.is_instruction() && self.plan.shadow_recomputable(v, at.parent_block()) {
            if let Some(&r) = self.rebuilt.get(&(true, v)) {
                return Ok(r);
            }
            let shadowed = super::plan::shadow_operands(v)
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

    // ----- blocks -----

    fn reverse_block(&mut self, b: Block) -> Result<()> {
        let (batches, batch_of) = super::batch::batches(
            self.session.module,
            b,
            &self.active,
            &self.session.rules,
            &self.plan,
        );
        self.batches = batches;
        self.batch_of = batch_of;
        self.block = Some(b);
        self.batch_slots.clear();
        self.rebuilt.clear();
        let insts = b.instructions();
        if let Some(&term) = insts.last() {
            if term.opcode() == Opcode::LLVMRet && term.num_operands() == 1 {
                if let Some(dret) = self.dret {
                    self.accumulate(term.operand(0), dret);
                }
            }
        }
        for &i in insts.iter().rev() {
            // An invoke terminates its block but is a call to reverse.
            let branch = Some(i) == b.terminator() && !i.is_invoke();
            if matches!(i.opcode(), Opcode::LLVMPHI) || branch {
                continue;
            }
            self.b.clear_fast_math();
            self.b.set_fast_math_from(i);
            self.reverse_instruction(i)?;
        }
        self.b.clear_fast_math();
        self.popped.clear();
        self.rebuilt.clear();
        // Entering structured loops backwards: each counter starts at its last iteration.
        let (fields, bytes) = exit_record(self.session.module, &self.plan, &self.loop_tapes, b);
        if bytes > 0 {
            // Where the forward sweep put it: the slot of the loop around `b`, or the tape.
            let slot = match self
                .loop_tapes
                .place(b)
                .and_then(|p| p.exit.map(|o| (p.lp, o)))
            {
                Some((k, off)) => self.region_slot(k, off, bytes),
                None => tape::pop_bytes(&mut self.b, self.tape, bytes),
            };
            for (k, field, ty, off) in fields {
                let iv = self.plan.loops()[k].iv;
                let at = tape::at_offset(&mut self.b, slot, off);
                let v = tape::load(&mut self.b, ty, at);
                let (to, int) = match field {
                    ExitField::Start => (self.start_slot(iv), false),
                    ExitField::Last => (self.counter(iv), false),
                    ExitField::Base => (self.region_slots(k).0, false),
                    ExitField::Count => (self.region_slots(k).1, true),
                };
                let st = self.b.store(v, to, 0);
                if int {
                    // Integer data for an outer gradient (see `tape::INT_TBAA`).
                    st.set_tbaa_scalar(tape::INT_TBAA);
                }
            }
        }
        // Loops whose last induction value is known, a constant or rebuilt from the exit
        // test: their counters start there.
        for k in self.plan.exits_at(b).to_vec() {
            let iv = self.plan.loops()[k].iv;
            let last = match self.plan.constant_last_iv(k) {
                Some(c) => c,
                None if self.plan.rebuilds_last_iv(k) => {
                    let at = b
                        .terminator()
                        .ok_or_else(|| internal(self.src, "a block without a terminator"))?;
                    let v = self.primal(iv, at)?;
                    self.popped.clear();
                    self.rebuilt.clear();
                    v
                }
                None => continue,
            };
            let c = self.counter(iv);
            self.b.store(last, c, 0);
        }
        let preds = self.cfg.preds(b).to_vec();
        let which = if self.plan.records_predecessor(&self.cfg, b) {
            let i32t = Ty::int(self.session.module.context(), 32);
            let place = self.loop_tapes.place(b);
            Some(
                match place.and_then(|p| p.predecessor.map(|off| (p.lp, off))) {
                    Some((k, off)) => {
                        let slot = self.region_slot(k, off, 4);
                        tape::load(&mut self.b, i32t, slot)
                    }
                    None => tape::pop(&mut self.b, self.tape, i32t),
                },
            )
        } else {
            None
        };
        // Else the branches that decided it, evaluated again (the forward sweep recorded
        // nothing): emitted once the edges exist.
        let choice = match self.plan.pred_choice(b) {
            Some(c) if which.is_none() => Some(c.clone()),
            _ => None,
        };
        let phis: Vec<(Val, Val)> = insts
            .iter()
            .filter(|i| i.opcode() == Opcode::LLVMPHI)
            .filter_map(|&p| self.take_adjoint(p).map(|d| (p, d)))
            .collect();
        if preds.is_empty() {
            self.b.br(self.exit);
            return Ok(());
        }
        let from = self.b.current_block();
        let mut edges = Vec::new();
        for &p in &preds {
            let e = self.dst.append_block("");
            self.b.position_at_end(e);
            for &(phi, d) in &phis {
                if let Some((v, _)) = phi.incoming().into_iter().find(|(_, blk)| *blk == p) {
                    self.accumulate(v, d);
                }
            }
            let back = self.b.br(self.rblocks[&p]);
            if self
                .plan
                .loop_at_header(b)
                .is_some_and(|l| l.latch == p && self.plan.unrolled_loop(b))
            {
                // The adjoint loop's back edge (see `count_down`).
                back.set_loop_no_vectorize();
            }
            edges.push(e);
        }
        self.b.position_at_end(from);
        if let Some(l) = self.plan.loop_at_header(b).cloned() {
            return self.count_down(&l, &preds, &edges);
        }
        match which {
            None => match choice {
                Some(c) => self.branch_to_predecessor(b, &c, &edges)?,
                None => {
                    self.b.br(edges[0]);
                }
            },
            Some(k) => {
                let i32t = Ty::int(self.session.module.context(), 32);
                let sw = self.b.switch(k, edges[0], edges.len() as u32);
                for (n, &e) in edges.iter().enumerate().skip(1) {
                    self.b.add_case(sw, i32t.int_const(n as u64), e);
                }
            }
        }
        Ok(())
    }

    /// Branches from the current block to the edge back to the predecessor `choice` decides,
    /// rebuilding each condition only where the decisions before it hold (its operands were
    /// computed on the path the forward sweep took only then).
    fn branch_to_predecessor(
        &mut self,
        b: Block,
        choice: &super::pred_choice::PredChoice,
        edges: &[Block],
    ) -> Result<()> {
        use super::pred_choice::PredChoice;
        let PredChoice::Branch {
            cond,
            if_true,
            if_false,
        } = choice
        else {
            return Err(internal(self.src, "a choice of one predecessor"));
        };
        let at = b
            .terminator()
            .ok_or_else(|| internal(self.src, "a block without a terminator"))?;
        // Rebuilt in this block alone: nothing in the other blocks may reuse them.
        self.popped.clear();
        self.rebuilt.clear();
        let c = self.primal(*cond, at)?;
        self.popped.clear();
        self.rebuilt.clear();
        // An edge back, or a block deciding further.
        let target = |next: &PredChoice| match next {
            PredChoice::Pred(k) => (edges[*k], None),
            PredChoice::Branch { .. } => {
                let nb = self.dst.append_block("");
                (nb, Some(nb))
            }
        };
        let (t, t_new) = target(if_true);
        let (f, f_new) = target(if_false);
        self.b.cond_br(c, t, f);
        for (nb, next) in [(t_new, if_true), (f_new, if_false)] {
            if let Some(nb) = nb {
                self.b.position_at_end(nb);
                self.branch_to_predecessor(b, next, edges)?;
            }
        }
        Ok(())
    }

    /// The reverse of a structured loop's header: back to the preheader when the counter is
    /// at its start, else one iteration down and back to the latch.
    fn count_down(
        &mut self,
        l: &super::plan::StructuredLoop,
        preds: &[Block],
        edges: &[Block],
    ) -> Result<()> {
        let edge_to = |p: Block| preds.iter().position(|&q| q == p).map(|k| edges[k]);
        let (Some(to_pre), Some(to_latch)) = (edge_to(l.preheader), edge_to(l.latch)) else {
            return Err(internal(l.iv, "structured loop without its two edges"));
        };
        let start = if l.start.is_instruction() {
            let s = self.start_slot(l.iv);
            self.b.load(l.start.ty(), s, 0)
        } else {
            self.primal(l.start, l.iv)?
        };
        let c = self.counter(l.iv);
        let cur = self.b.load(l.iv.ty(), c, 0);
        let at_start = self.b.icmp(crate::ir::IntPred::LLVMIntEQ, cur, start);
        let down = self.dst.append_block("");
        let k = self.plan.loop_index(l.header);
        match k.filter(|&k| self.loop_tapes.is_root(k)) {
            Some(k) => {
                // Leaving the root of a nest: the nest's regions are released.
                let release = self.dst.append_block("release.region");
                self.b.cond_br(at_start, release, down);
                self.b.position_at_end(release);
                let i64t = Ty::int(self.session.module.context(), 64);
                let mut counts = HashMap::new();
                for &n in self.loop_tapes.nest(k).to_vec().iter() {
                    let (_, count_slot) = self.region_slots(n);
                    counts.insert(n, tape::load(&mut self.b, i64t, count_slot));
                }
                let slots = self.loop_tapes.slots(k, &mut self.b, |n| counts[&n]);
                let (_, bytes) = self.loop_tapes.layout(k, &mut self.b, &slots);
                let pop = tape::pop_helper(self.session.module);
                self.b.call_function(pop, &[self.tape, bytes]);
                self.b.br(to_pre);
            }
            None => {
                self.b.cond_br(at_start, to_pre, down);
            }
        }
        self.b.position_at_end(down);
        let prev = self.b.sub(cur, l.step);
        self.b.store(prev, c, 0);
        // When the primal loop was unrolled, the adjoint's accesses in one iteration are
        // consecutive, which the SLP vectoriser packs into vector loads and stores, where the
        // loop vectoriser would make gathers and scatters across iterations: the back edge
        // (the edge block into the reversed latch) says so.
        self.b.br(to_latch);
        Ok(())
    }

    // ----- instructions -----

    fn reverse_instruction(&mut self, i: Val) -> Result<()> {
        self.popped.clear();
        self.saved = None;
        if let Some(&k) = self.batch_of.get(&i) {
            self.read_batched_needs(i, k);
        } else {
            self.pop_needs(i);
        }
        self.reverse_instruction_body(i)
    }

    /// The needs of `i`, batched with its neighbours: the batch is popped where the adjoint
    /// reaches its last member, and each value read at its offset.
    fn read_batched_needs(&mut self, i: Val, k: usize) {
        let (bytes, last) = (self.batches[k].bytes, self.batches[k].last());
        let slot = match self.batch_slots.get(&k) {
            Some(&s) => s,
            None => {
                debug_assert_eq!(last, Some(i));
                let before: u64 = self.batches[..k].iter().map(|x| x.bytes).sum();
                let s = self.batch_slot(before, bytes);
                self.batch_slots.insert(k, s);
                s
            }
        };
        let layout = self.batches[k]
            .layout
            .iter()
            .find(|(m, _)| *m == i)
            .map(|(_, l)| l.clone())
            .unwrap_or_default();
        for (n, off) in layout {
            let at = tape::at_offset(&mut self.b, slot, off);
            match n {
                Need::Primal(v) | Need::Shadow(v) => {
                    let bits = self.holds_float_bits(v);
                    let x = tape::load_value(&mut self.b, v.ty(), at, bits);
                    self.popped.insert((matches!(n, Need::Shadow(_)), v), x);
                }
                Need::Saved(_) => {
                    let ptr = Ty::ptr(self.session.module.context());
                    self.saved = Some(self.b.load(ptr, at, 1));
                }
            }
        }
    }

    /// Where the batch of `bytes` at offset `before` among the reversed block's batches is: in
    /// the region of the block's loop (see [`super::loop_tape`]), or popped.
    fn batch_slot(&mut self, before: u64, bytes: u64) -> Val {
        match self.block.and_then(|b| self.loop_tapes.place(b)) {
            Some(p) => self.region_slot(p.lp, p.batches + before, bytes),
            None => tape::pop_bytes(&mut self.b, self.tape, bytes),
        }
    }

    /// The slot of `bytes` at offset `off` in the current iteration's bytes of loop `k`'s
    /// region (or popped, past the reserved count).
    fn region_slot(&mut self, k: usize, off: u64, bytes: u64) -> Val {
        let tape = self.tape;
        let stride = self.loop_tapes.region(k).map_or(0, |r| r.stride);
        let ctx = self.session.module.context();
        let (base_slot, _) = self.region_slots(k);
        let base = self.b.load(Ty::ptr(ctx), base_slot, 0);
        let mut chain = Vec::new();
        for a in self.loop_tapes.chain(k) {
            let l = self.plan.loops()[a].clone();
            let (_, count_slot) = self.region_slots(a);
            let count = tape::load(&mut self.b, Ty::int(ctx, 64), count_slot);
            let c = self.counter(l.iv);
            let iv = self.b.load(l.iv.ty(), c, 0);
            let start = if l.start.is_instruction() {
                let s = self.start_slot(l.iv);
                self.b.load(l.start.ty(), s, 0)
            } else {
                // A constant or an argument: always at hand.
                self.args.get(&l.start).copied().unwrap_or(l.start)
            };
            let index = iteration_index(&mut self.b, &l, iv, start);
            chain.push((index, count, self.loop_tapes.slope(a)));
        }
        let slot = RegionSlot {
            base,
            chain,
            stride,
            offset: off,
        };
        slot.emit(&mut self.b, |b| tape::pop_bytes(b, tape, bytes))
    }

    /// The slots holding structured loop `k`'s region address and reserved count.
    fn region_slots(&mut self, k: usize) -> (Val, Val) {
        if let Some(&s) = self.regions.get(&k) {
            return s;
        }
        let here = self.b.current_block();
        if let Some(end) = self.entry_end {
            self.b.position_before(end);
        }
        let ctx = self.session.module.context();
        let base = self.b.alloca(Ty::ptr(ctx), "region");
        let count = self.b.alloca(Ty::int(ctx, 64), "region.count");
        self.b.position_at_end(here);
        self.regions.insert(k, (base, count));
        (base, count)
    }

    /// Pops the needs of `i`, one push each, in reverse order.
    fn pop_needs(&mut self, i: Val) {
        for n in self
            .plan
            .taped_needs(i, &self.active, &self.session.rules)
            .into_iter()
            .rev()
        {
            let (is_shadow, v) = match n {
                Need::Primal(v) => (false, v),
                Need::Shadow(v) => (true, v),
                Need::Saved(_) => {
                    let ptr = Ty::ptr(self.session.module.context());
                    self.saved = Some(tape::pop(&mut self.b, self.tape, ptr));
                    continue;
                }
            };
            let bits = self.holds_float_bits(v);
            let val = tape::pop_value(&mut self.b, self.tape, v.ty(), bits);
            self.popped.insert((is_shadow, v), val);
        }
    }

    /// The adjoint of `i`, its taped values at hand.
    fn reverse_instruction_body(&mut self, i: Val) -> Result<()> {
        use Opcode::*;
        match i.opcode() {
            LLVMLoad => return self.reverse_load(i),
            LLVMStore => return self.reverse_store(i),
            LLVMAlloca => {
                if self.is_active(i) {
                    let s = self.shadow(i, i)?;
                    self.free(s);
                }
                return Ok(());
            }
            LLVMCall | LLVMInvoke => return self.reverse_call(i),
            LLVMAtomicRMW if i.is_atomic_fadd() => return self.reverse_atomic_fadd(i),
            _ => {}
        }
        let Some(d) = self.take_adjoint(i) else {
            return Ok(());
        };
        let op = |k| i.operand(k);
        if let Some(rule) = instruction_rule(i.opcode()) {
            return self.reverse_instruction_rule(i, rule, d);
        }
        match i.opcode() {
            // Same element type (vector <-> vector of the same lanes): adjoints move as they
            // are. Reinterpreting floats as another float type would add adjoints in the wrong
            // format, so that is refused.
            LLVMBitCast if op(0).ty().contains_float() => {
                if op(0).ty().scalar() != d.ty().scalar() {
                    return Err(Error::at(
                        i,
                        "bitcast reinterprets floating-point data as another floating-point type; reverse mode cannot add adjoints across it",
                    ));
                }
                let c = self.b.cast(LLVMBitCast, d, op(0).ty());
                self.accumulate(op(0), c);
            }
            // Float bits moving between an integer and a float: the adjoint keeps the float's
            // format on both sides.
            LLVMBitCast if self.adjoint_ty(op(0)) == Some(d.ty()) => self.accumulate(op(0), d),
            // An integer fabs (clearing the sign bit): the adjoint flips where x was negative.
            LLVMAnd if sign_bit_op(i) == Some(false) && !d.ty().is_vector() => {
                let x = self.primal(op(0), i)?;
                let xf = self.b.cast(LLVMBitCast, x, d.ty());
                let neg = self.b.fcmp(RealPred::LLVMRealOLT, xf, d.ty().zero());
                let flipped = self.b.fneg(d);
                let dx = self.b.select(neg, flipped, d);
                self.accumulate(op(0), dx);
            }
            // An integer negation (flipping the sign bit).
            LLVMXor if sign_bit_op(i) == Some(true) && !d.ty().is_vector() => {
                let flipped = self.b.fneg(d);
                self.accumulate(op(0), flipped);
            }
            LLVMFreeze => self.accumulate(op(0), d),
            LLVMExtractValue => {
                let idx = i.aggregate_indices();
                let agg_ty = op(0).ty();
                let spread = insert_path(&mut self.b, agg_ty.zero(), d, &idx);
                self.accumulate(op(0), spread);
            }
            LLVMInsertValue => {
                let idx = i.aggregate_indices();
                let part = extract_path(&mut self.b, d, &idx);
                self.accumulate(op(1), part);
                let rest = insert_path(&mut self.b, d, op(1).ty().zero(), &idx);
                self.accumulate(op(0), rest);
            }
            LLVMExtractElement => {
                let idx = self.primal(op(1), i)?;
                let spread = self.b.insert_element(op(0).ty().zero(), d, idx);
                self.accumulate(op(0), spread);
            }
            LLVMInsertElement => {
                let idx = self.primal(op(2), i)?;
                let part = self.b.extract_element(d, idx);
                self.accumulate(op(1), part);
                let zero = op(1).ty().zero();
                let rest = self.b.insert_element(d, zero, idx);
                self.accumulate(op(0), rest);
            }
            LLVMShuffleVector => self.reverse_shuffle(i, d),
            // Any other integer operation on float bits (shifts, masks, arithmetic) has no
            // derivative reverse mode knows: refused rather than dropped.
            _ if i.ty().is_int() => {
                // Say what to write instead: packing floats into one integer (shifts, or,
                // extensions, truncations) differs from bit tricks on one float.
                let advice = match i.opcode() {
                    LLVMShl | LLVMLShr | LLVMAShr | LLVMOr | LLVMZExt | LLVMTrunc => "it packs or unpacks floats in one integer: keep them as floating-point values (separate arguments, or a struct or array of floats), or let the call passing the packed integer be inlined",
                    _ => "use floating-point operations such as fabs or copysign",
                };
                return Err(Error::at(
                    i,
                    format!(
                        "'{}' operates on the bits of floating-point data ({}) as an integer; reverse mode cannot carry a derivative through it ({advice})",
                        crate::clone::short(i),
                        d.ty().print()
                    ),
                ));
            }
            _ => {}
        }
        Ok(())
    }

    /// An instruction with a row in [`crate::rules::instructions`].
    fn reverse_instruction_rule(&mut self, i: Val, rule: &InstructionRule, d: Val) -> Result<()> {
        let ops = i.operands();
        match rule.kind {
            InstructionKind::Linear(partials) => {
                let active: Vec<bool> = ops.iter().map(|&o| self.is_active(o)).collect();
                let read = inputs_read(rule, i, &active);
                self.apply_partials(i, &ops, partials, &read, d, |k| k == 0)
            }
            InstructionKind::Conversion => {
                let c = self.b.fp_cast(d, ops[0].ty());
                self.accumulate(ops[0], c);
                Ok(())
            }
            InstructionKind::Selection => {
                // Exactly zero to the operand not chosen, whatever `d` holds (`-0.0`: adding
                // it changes nothing, so LLVM can drop the addition).
                let c = self.primal(ops[0], i)?;
                let z = d.ty().neg_zero();
                let t = self.b.select(c, d, z);
                let f = self.b.select(c, z, d);
                self.accumulate(ops[1], t);
                self.accumulate(ops[2], f);
                Ok(())
            }
        }
    }

    fn reverse_shuffle(&mut self, i: Val, d: Val) {
        let (a, bv) = (i.operand(0), i.operand(1));
        let n = a.ty().vector_len();
        // Sums start at `-0.0`, which the first lane's addition folds away.
        let mut da = a.ty().neg_zero();
        let mut db = bv.ty().neg_zero();
        let mask = i.shuffle_mask();
        // A broadcast (every lane reads one source lane: how the vectorisers splat a scalar)
        // gathers all of `d` into that lane. The order of that sum is the adjoint's own, so it
        // is summed as a tree: one reduction, where the loop below would build a chain of an
        // extract, an insert and a dependent addition per lane (unrolled loops hold dozens of
        // such broadcasts, and the chains dominated their code generation time).
        if let [Some(m), rest @ ..] = mask.as_slice() {
            if !rest.is_empty()
                && rest.iter().all(|x| *x == Some(*m))
                && d.ty().is_fp_or_fp_vector()
            {
                let sum = self.b.sum_lanes_any_order(d);
                let (target, k) = if *m < n {
                    (&mut da, *m)
                } else {
                    (&mut db, *m - n)
                };
                let idx = Ty::int(self.session.module.context(), 32).int_const(k as u64);
                *target = self.b.insert_element(*target, sum, idx);
                self.accumulate(a, da);
                self.accumulate(bv, db);
                return;
            }
        }
        for (lane, m) in mask.into_iter().enumerate() {
            let Some(m) = m else { continue };
            let e = self.b.extract_lane(d, lane as u32);
            let (target, k) = if m < n {
                (&mut da, m)
            } else {
                (&mut db, m - n)
            };
            let cur = self.b.extract_lane(*target, k);
            let sum = self.b.fadd(cur, e);
            let idx = Ty::int(self.session.module.context(), 32).int_const(k as u64);
            *target = self.b.insert_element(*target, sum, idx);
        }
        self.accumulate(a, da);
        self.accumulate(bv, db);
    }

    /// `v = load p`: the shadow at `p` receives `v`'s adjoint.
    fn reverse_load(&mut self, i: Val) -> Result<()> {
        let Some(d) = self.take_adjoint(i) else {
            return Ok(());
        };
        let sp = self.shadow(i.operand(0), i)?;
        if self.session.runs_in_parallel(self.src) && !crate::openmp::thread_private(i.operand(0)) {
            // Other threads may add into the same adjoint.
            return super::parallel::atomic_add(&mut self.b, sp, d, i);
        }
        let align = i.alignment();
        let cur = self.b.load(d.ty(), sp, align);
        let sum = add_values(&mut self.b, cur, d);
        self.b.store(sum, sp, align);
        Ok(())
    }

    /// `store v, p`: `v` receives the adjoint waiting at `p`, which the store overwrote, and
    /// that shadow is cleared.
    fn reverse_store(&mut self, i: Val) -> Result<()> {
        let (v, p) = (i.operand(0), i.operand(1));
        // A pointer, also one stored as an integer, has no adjoint; its shadow stays.
        let pointer = v.ty().contains_ptr() || super::augmented::pointer_as_integer(v).is_some();
        if !self.is_active(p) || pointer {
            return Ok(());
        }
        if super::augmented::is_integer_data(v.ty()) {
            if let Some(bc) = byte_copy(i).filter(|bc| self.is_active(bc.load.operand(0))) {
                return self.reverse_byte_copy(i, &bc);
            }
        }
        let sp = self.shadow(p, i)?;
        let align = i.alignment();
        if let Some(t) = self.is_active(v).then(|| self.adjoint_ty(v)).flatten() {
            let d = self.b.load(t, sp, align);
            self.accumulate(v, d);
        }
        if !self.plan.zeroing_dead(i) {
            self.b.store(v.ty().zero(), sp, align);
        }
        Ok(())
    }

    /// A byte-wise copy from differentiable memory: the adjoint of every float its bytes
    /// touch moves whole from the destination's shadow into the source's ([`super::bytes`]).
    /// Pointer and integer bytes keep their shadows, as after a memcpy.
    fn reverse_byte_copy(&mut self, i: Val, bc: &ByteCopy) -> Result<()> {
        let m = self.session.module;
        let layout = bytes::byte_layout(self.session.types(), m, i, bc)?;
        if layout.floats.is_empty() {
            return Ok(());
        }
        let sd = self.shadow(i.operand(1), i)?;
        let ss = self.shadow(bc.load.operand(0), i)?;
        let index = match bc.index {
            Some(x) => Some(self.primal(x, i)?),
            None => None,
        };
        let x = super::bytes::position(&mut self.b, m, bc, index);
        let w = Ty::int(m.context(), 64).int_const(bc.width);
        let helper = super::bytes::helper(m, &layout, ByteOp::Transfer);
        self.b.call_function(helper, &[sd, ss, x, w]);
        Ok(())
    }

    fn reverse_call(&mut self, i: Val) -> Result<()> {
        if crate::openmp::ends_critical(i) {
            // Going backwards, a reduction's critical section starts here.
            crate::openmp::adjoint_critical_begin(&mut self.b, i.call_args()[0]);
        }
        if self.plan.defers_free(i) {
            return self.defer_free(i);
        }
        match reverse_callee(i, &self.active, &self.session.rules) {
            ReverseCallee::Primal | ReverseCallee::Free => Ok(()),
            ReverseCallee::Math => self.reverse_math(i),
            ReverseCallee::Derived(g) => self.reverse_derived(i, g),
            ReverseCallee::Parallel(g) => self.reverse_fork(i, g),
            ReverseCallee::Custom(_, custom) => self.reverse_custom(i, custom),
            ReverseCallee::User(u) => self.reverse_user(i, u),
            // The augmented sweep stopped at a dispatcher's fallback with a run-time error.
            ReverseCallee::NoRule if crate::devirt::is_fallback(i) => Ok(()),
            ReverseCallee::NoRule => Err(crate::devirt::missing_rule_error(
                i,
                crate::api::Mode::Reverse,
                &self.session.rules,
            )),
            ReverseCallee::Unsupported(why) => Err(super::augmented::unsupported_call(i, why)),
        }
    }

    fn reverse_math(&mut self, i: Val) -> Result<()> {
        let Some(d) = self.take_adjoint(i) else {
            return Ok(());
        };
        let Callee::Rule(rule) = rules::classify(i, &self.session.rules) else {
            return Ok(());
        };
        let RuleKind::Math(partials) = rule.kind else {
            return Ok(());
        };
        let src_args = i.call_args();
        let active: Vec<bool> = src_args.iter().map(|&a| self.is_active(a)).collect();
        let read = rules::partials_read(rule, i, &active);
        self.apply_partials(i, &src_args, partials, &read, d, |_| true)
    }

    /// Adds `partial · d` to the adjoint of each active operand in `ops` of `i`. Only the inputs
    /// in `read` were taped or can be rebuilt; the rest are placeholders the needed partials
    /// ignore, and the partials of inactive operands are erased unused.
    fn apply_partials(
        &mut self,
        i: Val,
        ops: &[Val],
        partials: rules::Partials,
        read: &[bool],
        d: Val,
        d_first: impl Fn(usize) -> bool,
    ) -> Result<()> {
        let mut args = Vec::new();
        for (k, &a) in ops.iter().enumerate() {
            args.push(if read.get(k).copied().unwrap_or(false) {
                self.primal(a, i)?
            } else {
                a.ty().poison()
            });
        }
        let r = if read.get(ops.len()).copied().unwrap_or(false) {
            self.primal(i, i)?
        } else {
            i.ty().poison()
        };
        let before = linear::mark(&self.b);
        let ps = partials(&mut self.b, &args, r);
        let built = linear::built_since(&self.b, &before);
        let mut quotients = linear::Quotients::of_rule(&built);
        let pairs: Vec<(Val, Option<Val>)> = ops.iter().copied().zip(ps).collect();
        for (k, &(a, p)) in pairs.iter().enumerate() {
            let Some(p) = p else { continue };
            if !self.is_active(a) || pairs[..k].contains(&(a, Some(p))) {
                continue;
            }
            // A square `x · x` (or `fmuladd(x, x, c)`): both partials are `x`, so the
            // adjoint is `x · (d + d)`, one product; in a loop where `d` does not change (a sum
            // of squares) `d + d` is computed once before it.
            let twice = pairs[k + 1..].contains(&(a, Some(p)));
            let dk = if twice { self.b.fadd(d, d) } else { d };
            let t = linear::scale_sharing(&mut self.b, p, dk, d_first(k), &mut quotients);
            self.accumulate(a, t);
        }
        linear::erase_unused(built);
        Ok(())
    }

    /// A user-registered gradient: `grad(args with pointer shadows, [d_result], [tape])`
    /// returns the adjoints of the floating-point arguments (none, one, or a struct).
    fn reverse_user(&mut self, i: Val, u: UserRule) -> Result<()> {
        let Some((_, grad)) = u.gradient else {
            return Err(crate::devirt::missing_rule_error(
                i,
                crate::api::Mode::Reverse,
                &self.session.rules,
            ));
        };
        let d = self.take_adjoint(i);
        let src_args = i.call_args();
        let mut args = Vec::new();
        for &a in &src_args {
            args.push(self.primal(a, i)?);
            if a.ty().is_ptr() {
                let s = if self.is_active(a) {
                    self.shadow(a, i)?
                } else {
                    a.ty().zero()
                };
                args.push(s);
            }
        }
        if is_float_value(i.ty()) {
            args.push(d.unwrap_or_else(|| i.ty().zero()));
        }
        if user_tape(u) {
            let Some(tape) = self.saved else {
                return Err(internal(i, "the user rule's tape was not saved"));
            };
            args.push(tape);
        }
        let res = self.b.call_function(grad, &args);
        let floats: Vec<Val> = src_args
            .into_iter()
            .filter(|a| is_float_value(a.ty()))
            .collect();
        match floats.as_slice() {
            [] => {}
            [one] => self.accumulate(*one, res),
            many => {
                for (k, &a) in many.iter().enumerate() {
                    let da = self.b.extract_value(res, k as u32);
                    self.accumulate(a, da);
                }
            }
        }
        Ok(())
    }

    /// A rule with hand-written sweeps: its adjoint half, then the scalar adjoints it returns.
    fn reverse_custom(&mut self, i: Val, custom: &CustomReverse) -> Result<()> {
        let d_result = self.take_adjoint(i);
        let src_args = i.call_args();
        let (mut args, mut shadows, mut active) = (Vec::new(), Vec::new(), Vec::new());
        let n = src_args.len();
        for (k, &a) in src_args.iter().enumerate() {
            let act = self.is_active(a);
            let needed = custom.needs.args.includes(k, n);
            args.push(if needed {
                self.primal(a, i)?
            } else {
                a.ty().poison()
            });
            let shadow_read = needed || custom.needs.shadows_only.includes(k, n);
            shadows.push(if shadow_read && act && a.ty().is_ptr_or_ptr_vector() {
                Some(self.shadow(a, i)?)
            } else {
                None
            });
            active.push(act);
        }
        let result = if custom.needs.result && !i.ty().is_void() {
            Some(self.primal(i, i)?)
        } else {
            None
        };
        let mut call = AdjointCall {
            b: &mut self.b,
            session: self.session,
            src: i,
            args,
            shadows,
            active,
            result,
            d_result,
            saved: self.saved,
            zeroing_dead: self.plan.zeroing_dead(i),
        };
        let adjoints = (custom.adjoint)(&mut call)?;
        for (a, d) in src_args.into_iter().zip(adjoints) {
            if let Some(d) = d {
                self.accumulate(a, d);
            }
        }
        Ok(())
    }

    fn reverse_derived(&mut self, i: Val, g: Val) -> Result<()> {
        let d = self.take_adjoint(i);
        let mut acts = Vec::new();
        let mut args = vec![self.tape];
        let src_args = i.call_args();
        for (k, &a) in src_args.iter().enumerate() {
            let act = arg_activity(i, k, a, self.active.arg_carries(i, k, a), |v| {
                self.is_active(v)
            });
            args.push(self.primal(a, i)?);
            if act.has_shadow() {
                let s = self.shadow(a, i)?;
                args.push(s);
            }
            acts.push(act);
        }
        let stable = self.plan.callee_memory_stable(i);
        let ctx = self.session.callee_context(i);
        let (_, adj) = self.session.declare_reverse(g, &acts, stable, ctx)?;
        let bits = self.session.float_bits_of(g, ctx);
        if returns_adjoint(g, &bits) {
            let t = crate::signature::result_derivative_ty(g, &bits);
            match d {
                Some(d) if d.ty() != t => {
                    return Err(internal(
                        i,
                        "a call's adjoint and its callee's disagree in type",
                    ))
                }
                Some(d) => args.push(d),
                None => args.push(t.zero()),
            }
        }
        let res = self.b.call_function(adj, &args);
        let mut k = 0;
        for (a, act) in src_args.into_iter().zip(acts) {
            if act == Activity::Out {
                let da = self.b.extract_value(res, k);
                self.accumulate(a, da);
                k += 1;
            }
        }
        Ok(())
    }

    /// A free the augmented sweep left out: the block is released when this adjoint exits,
    /// after every re-read of it, with the deallocator the primal called.
    fn defer_free(&mut self, i: Val) -> Result<()> {
        let (Some(dealloc), Some(&arg)) = (i.called_function(), i.call_args().first()) else {
            return Err(internal(i, "a deferred free without a direct callee"));
        };
        let p = self.primal(arg, i)?;
        let list = self.deferred_list();
        tape::push(&mut self.b, list, p);
        tape::push(&mut self.b, list, dealloc);
        Ok(())
    }

    /// The list of blocks to release at exit (a tape of pointer, deallocator pairs), created
    /// empty in the entry block.
    fn deferred_list(&mut self) -> Val {
        if let Some(l) = self.deferred {
            return l;
        }
        let here = self.b.current_block();
        if let Some(end) = self.entry_end {
            self.b.position_before(end);
        }
        let tt = tape::tape_type(self.session.module);
        let l = self.b.alloca(tt, "deferred");
        self.b.store(tt.zero(), l, 8);
        self.b.position_at_end(here);
        self.deferred = Some(l);
        l
    }

    fn free(&mut self, p: Val) {
        let m = self.session.module;
        let ctx = m.context();
        let ptr = Ty::ptr(ctx);
        let free = m.get_or_add_function("free", Ty::function(Ty::void(ctx), &[ptr], false));
        self.b.call_function(free, &[p]);
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

/// For an integer `and`/`xor` with a constant: `Some(false)` when it clears exactly the sign bit
/// of a float of its width (an integer fabs), `Some(true)` when it flips it (an integer
/// negation), `None` otherwise.
fn sign_bit_op(i: Val) -> Option<bool> {
    let w = i.ty().int_width();
    if !matches!(w, 16 | 32 | 64) {
        return None;
    }
    let c = i.operand(1).const_int_value()?;
    let sign = 1u64 << (w - 1);
    let all = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    match i.opcode() {
        Opcode::LLVMAnd if c == all & !sign => Some(false),
        Opcode::LLVMXor if c == sign => Some(true),
        _ => None,
    }
}
