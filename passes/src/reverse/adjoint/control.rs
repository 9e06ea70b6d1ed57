//! The adjoint sweep's control flow: blocks visited in reverse, branches back to the
//! predecessor the forward sweep came from, loop counters counted down.

use super::*;

impl AdjointFn<'_> {
    // ----- blocks -----

    pub(super) fn reverse_block(&mut self, b: Block) -> Result<()> {
        let (batches, batch_of) = crate::reverse::batch::batches(
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
            // The adjoint's own arithmetic (partial times adjoint, added to an adjoint) may
            // fuse into multiply-adds where the target has them: it rounds its own way anyway,
            // as a hand-written adjoint compiled with C's default `-ffp-contract=on` does.
            // Copies of primal instructions drop `contract` (`contraction::settle_copy`).
            self.b.set_fast_math(i.fast_math_flags() | self.contract);
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
    pub(super) fn branch_to_predecessor(
        &mut self,
        b: Block,
        choice: &crate::reverse::pred_choice::PredChoice,
        edges: &[Block],
    ) -> Result<()> {
        use crate::reverse::pred_choice::PredChoice;
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
    pub(super) fn count_down(
        &mut self,
        l: &crate::reverse::plan::StructuredLoop,
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
}
