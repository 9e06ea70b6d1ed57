//! The adjoint of one instruction: what it pops from the tape, then the dispatch over the
//! instruction's class (rules of `rules/instructions.rs`, data movement, integer sign-bit
//! operations, shuffles).

use super::*;

impl AdjointFn<'_> {
    // ----- instructions -----

    pub(super) fn reverse_instruction(&mut self, i: Val) -> Result<()> {
        self.popped.clear();
        self.saved = None;
        if let Some(&k) = self.batch_of.get(&i) {
            self.read_batched_needs(i, k);
        } else {
            self.pop_needs(i);
        }
        self.reversing = Some(i);
        let done = self.reverse_instruction_body(i);
        self.reversing = None;
        done
    }

    /// The needs of `i`, batched with its neighbours: the batch is popped where the adjoint
    /// reaches its last member, and each value read at its offset.
    pub(super) fn read_batched_needs(&mut self, i: Val, k: usize) {
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
    /// the region of the block's loop (see [`crate::reverse::loop_tape`]), or popped.
    pub(super) fn batch_slot(&mut self, before: u64, bytes: u64) -> Val {
        match self.block.and_then(|b| self.loop_tapes.place(b)) {
            Some(p) => self.region_slot(p.lp, p.batches + before, bytes),
            None => tape::pop_bytes(&mut self.b, self.tape, bytes),
        }
    }

    /// The slot of `bytes` at offset `off` in the current iteration's bytes of loop `k`'s
    /// region (or popped, past the reserved count).
    pub(super) fn region_slot(&mut self, k: usize, off: u64, bytes: u64) -> Val {
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
    pub(super) fn region_slots(&mut self, k: usize) -> (Val, Val) {
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
    pub(super) fn pop_needs(&mut self, i: Val) {
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

    /// The adjoint of `i`, its taped values at hand: one arm per [`InstClass`] (no catch-all),
    /// so that a class without its adjoint is a compile error.
    pub(super) fn reverse_instruction_body(&mut self, i: Val) -> Result<()> {
        match classify(i) {
            InstClass::Load => self.reverse_load(i),
            InstClass::Store => self.reverse_store(i),
            InstClass::Alloca => {
                if self.is_active(i) {
                    let s = self.shadow(i, i)?;
                    self.free(s);
                }
                Ok(())
            }
            InstClass::Call => self.reverse_call(i),
            InstClass::AtomicFAdd => self.reverse_atomic_fadd(i),
            // Phis and terminators are reversed by the block walk ([`AdjointFn::reverse_block`]:
            // phi adjoints along the edges, branches back to the predecessor), which does not
            // pass them here.
            InstClass::Phi | InstClass::Return | InstClass::Control => Ok(()),
            InstClass::Rule(rule) => match self.take_adjoint(i) {
                Some(d) => {
                    self.log_gradient(i, d)?;
                    self.reverse_instruction_rule(i, rule, d)
                }
                None => Ok(()),
            },
            InstClass::Moves { .. } => match self.take_adjoint(i) {
                Some(d) => self.reverse_move(i, d),
                None => Ok(()),
            },
            InstClass::SignBit(op, float) => match self.take_adjoint(i) {
                Some(d) => self.reverse_sign_bit(i, op, float, d),
                None => Ok(()),
            },
            // Shifts and masks moving float bits, integer arithmetic, atomics, exception
            // handling: no derivative reverse mode knows, refused if an adjoint flows in.
            InstClass::Bits(_)
            | InstClass::NoDerivative
            | InstClass::InactiveOnly
            | InstClass::Unsupported => match self.take_adjoint(i) {
                Some(d) => self.refuse_integer_adjoint(i, d),
                None => Ok(()),
            },
        }
    }

    /// The adjoint `d` of an instruction that moves or reinterprets data
    /// ([`InstClass::Moves`]): it travels back to the operands it came from.
    fn reverse_move(&mut self, i: Val, d: Val) -> Result<()> {
        use Opcode::*;
        let op = |k| i.operand(k);
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
            // Integer conversions of float bits (packing, unpacking) and other bitcasts.
            _ => return self.refuse_integer_adjoint(i, d),
        }
        Ok(())
    }

    /// The adjoint `d` of an integer operation on the sign bit of the float in operand `float`
    /// ([`InstClass::SignBit`]). A clear (`fabs`) flips the adjoint where the float was
    /// negative, a set (`-fabs`) where it was not, a flip (negation) everywhere. Several floats
    /// packed into the integer (a vector adjoint) keep their signs but one: refused.
    fn reverse_sign_bit(&mut self, i: Val, op: SignBit, float: u32, d: Val) -> Result<()> {
        if d.ty().is_vector() {
            return self.refuse_integer_adjoint(i, d);
        }
        let x = i.operand(float);
        let dx = match op {
            SignBit::Flip => self.b.fneg(d),
            SignBit::Clear | SignBit::Set => {
                let px = self.primal(x, i)?;
                let xf = self.b.cast(Opcode::LLVMBitCast, px, d.ty());
                let neg = self.b.fcmp(RealPred::LLVMRealOLT, xf, d.ty().zero());
                let flipped = self.b.fneg(d);
                if op == SignBit::Set {
                    self.b.select(neg, d, flipped)
                } else {
                    self.b.select(neg, flipped, d)
                }
            }
        };
        self.accumulate(x, dx);
        Ok(())
    }

    /// An adjoint `d` reaching an instruction without a derivative: refused when it is an
    /// integer operation on float bits (shifts, masks, arithmetic: no derivative reverse mode
    /// knows), rather than dropped; nothing to do otherwise.
    fn refuse_integer_adjoint(&mut self, i: Val, d: Val) -> Result<()> {
        use Opcode::*;
        if !i.ty().is_int() {
            return Ok(());
        }
        // Say what to write instead: packing floats into one integer (shifts, or, extensions,
        // truncations) differs from bit tricks on one float.
        let advice = match i.opcode() {
            LLVMShl | LLVMLShr | LLVMAShr | LLVMOr | LLVMZExt | LLVMTrunc => "it packs or unpacks floats in one integer: keep them as floating-point values (separate arguments, or a struct or array of floats), or let the call passing the packed integer be inlined",
            _ => "use floating-point operations such as fabs or copysign",
        };
        Err(Error::at(
            i,
            format!(
                "'{}' operates on the bits of floating-point data ({}) as an integer; reverse mode cannot carry a derivative through it ({advice})",
                crate::clone::short(i),
                d.ty().print()
            ),
        ))
    }

    /// An instruction with a row in [`crate::rules::instructions`].
    pub(super) fn reverse_instruction_rule(
        &mut self,
        i: Val,
        rule: &InstructionRule,
        d: Val,
    ) -> Result<()> {
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

    pub(super) fn reverse_shuffle(&mut self, i: Val, d: Val) {
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
}
