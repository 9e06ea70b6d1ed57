//! [`AugmentedFn`]: builds `augfwd.f`, the forward sweep of reverse mode. It copies the primal,
//! keeps the shadow of every active pointer (allocations get zeroed shadow allocations that
//! outlive the sweep; pointers stored to memory have their shadows stored to shadow memory), and
//! after each instruction pushes onto the tape what [`needs`] says its adjoint will use. It also
//! records the predecessor of each block with several, and which return was taken.

use super::byte_check::ByteChecks;
use super::bytes::ByteOp;
use super::cfg::ReverseCfg;
use super::classify::arg_activity;
use super::classify::{reverse_callee, ReverseCallee};
use super::loop_tape::{exit_record, iteration_index, ExitField, LoopTapes, RegionSlot};
use super::needs::Need;
use super::plan::ReversePlan;
use crate::analysis::activity::ActiveSet;
use crate::analysis::opcodes::{classify, InstClass};
use crate::analysis::types;
use crate::analysis::types::byte_cover::{self, Coverage};
use crate::analysis::types::bytes::{self, ByteCopy};
use crate::cache::{Key, Session};
use crate::clone::{short, Cloner};
use crate::diag::{Error, Result};
use crate::ir::{Block, Builder, Opcode, Ty, TyKind, Val};
use crate::rules::instructions::InstructionKind;
use crate::rules::user::{augment_layout, is_inactive_memory, UserRule, WHOLE};
use crate::rules::{AugmentCall, CustomReverse, Rule, RuleKind};
use crate::signature::returns_shadow;
use crate::tape;
use crate::vocab::Activity;
use std::collections::HashMap;

mod calls;
mod memory;

pub(super) struct AugmentedFn<'s> {
    pub(super) session: &'s mut Session,
    src: Val,
    dst: Val,
    activity: Vec<Activity>,
    active: ActiveSet,
    cfg: ReverseCfg,
    pub(super) plan: ReversePlan,
    pub(super) b: Builder,
    pub(super) vals: Cloner,
    tape: Val,
    /// (source phi, primal phi, shadow phi) awaiting incoming edges.
    phis: Vec<(Val, Val, Option<Val>)>,
    /// (source `inttoptr` of a phi, shadow phi, alternatives) of pointers made from merged integers
    /// ([`crate::analysis::int_pointers::IntPointer::Merge`]), awaiting their edges.
    pub(super) int_phis: Vec<(Val, Val, Vec<crate::analysis::int_pointers::Alternative>)>,
    /// (source block, predecessor-index phi) awaiting incoming edges.
    pred_index: Vec<(Block, Val)>,
    /// What custom rules saved for the adjoint sweep, by source call.
    pub(super) saved: HashMap<Val, Val>,
    /// The ticket of the OpenMP critical section open under each lock (`reverse/openmp.rs`).
    pub(super) tickets: HashMap<Val, Val>,
    /// Loops whose iterations write into one reserved region of the tape.
    loop_tapes: LoopTapes,
    /// Structured loop → its region's address and reserved count, once reserved.
    regions: HashMap<usize, (Val, Val)>,
    /// Byte-wise copies checked at run time to move whole floats.
    byte_checks: ByteChecks,
    /// Stack slots of the frame entries computed off some path to a return
    /// ([`ReversePlan::spilled`]): (value, is its shadow) → slot, made before the first block.
    frame_spills: HashMap<(Val, bool), Val>,
}

impl<'s> AugmentedFn<'s> {
    /// The augmented sweep of `key` into `dst`, following `plan` (made for `key`).
    pub(super) fn new(
        session: &'s mut Session,
        key: &Key,
        dst: Val,
        plan: ReversePlan,
    ) -> AugmentedFn<'s> {
        let src = key.function;
        let active = super::activity(session, src, &key.activity);
        let b = Builder::new(session.module);
        let cfg = ReverseCfg::of(src);
        if session.opts.print_activity {
            let lines = active.describe(src, &dst.name(), &key.activity);
            session.report.extend(lines);
        }
        if session.opts.print_types {
            session.report.extend(plan.describe_overwrites());
            let lines = crate::analysis::contents::describe_types(
                src,
                &dst.name(),
                |v| active.contains(v),
                |i| crate::rules::lookup_call(i).is_some_and(crate::rules::memory::is_copy),
                session.types(),
            );
            session.report.extend(lines);
            let lines = types::describe(session.types(), session.module, src);
            session.report.extend(lines);
        }
        if session.opts.tape_report {
            let lines = super::tape_report::describe(
                session.module,
                src,
                &dst.name(),
                &cfg,
                &plan,
                &active,
                &session.rules,
            );
            session.report.extend(lines);
        }
        let loop_tapes = LoopTapes::new(session.module, &cfg, &plan, &active, &session.rules);
        AugmentedFn {
            session,
            src,
            dst,
            activity: key.activity.clone(),
            active,
            cfg,
            plan,
            b,
            vals: Cloner::default(),
            tape: dst.params()[0],
            phis: Vec::new(),
            int_phis: Vec::new(),
            pred_index: Vec::new(),
            saved: HashMap::new(),
            tickets: HashMap::new(),
            loop_tapes,
            regions: HashMap::new(),
            byte_checks: ByteChecks::default(),
            frame_spills: HashMap::new(),
        }
    }

    pub(super) fn run(mut self) -> Result<()> {
        let order = self.vals.create_blocks(self.src, self.dst);
        self.vals
            .keep_host_unrolling(self.session.host_optimised(self.src));
        self.vals.map_params(self.src, self.dst, &self.activity, 1);
        self.vals
            .map_global_shadows(self.src, &self.session.rules, 1);
        // Every spill slot exists before any return reads it: a return may come before the
        // block that computes a value (on another path) in the order blocks are emitted.
        for (v, shadow) in self.plan.spills() {
            let slot = self.entry_slot(v.ty());
            self.frame_spills.insert((v, shadow), slot);
        }
        if let Some(p) = self.src.personality() {
            self.dst.set_personality(p);
        }
        for b in order {
            let Some(nb) = self.vals.block(b) else {
                continue;
            };
            self.b.position_at_end(nb);
            if !self.cfg.contains(b) {
                self.primal_only_block(b)?;
                continue;
            }
            let insts = b.instructions();
            let (phis, rest): (Vec<Val>, Vec<Val>) = insts
                .into_iter()
                .partition(|i| i.opcode() == Opcode::LLVMPHI);
            for &p in &phis {
                self.visit_phi(p);
            }
            if self.plan.records_predecessor(&self.cfg, b) {
                let idx = self.b.phi(Ty::int(self.session.module.context(), 32));
                self.pred_index.push((b, idx));
                let place = self.loop_tapes.place(b);
                match place.and_then(|p| p.predecessor.map(|off| (p.lp, off))) {
                    Some((k, off)) => {
                        let slot = self.region_slot(b, k, off, 4)?;
                        self.b.store(idx, slot, 1).set_tbaa_scalar(tape::INT_TBAA);
                    }
                    None => tape::push(&mut self.b, self.tape, idx),
                }
            }

            // Leaving structured loops: their last induction values (and regions), once per
            // loop execution, in one push.
            let (fields, bytes) = exit_record(self.session.module, &self.plan, &self.loop_tapes, b);
            if bytes > 0 {
                // In the slot of the loop around `b` when it has one, else pushed.
                let slot = match self
                    .loop_tapes
                    .place(b)
                    .and_then(|p| p.exit.map(|o| (p.lp, o)))
                {
                    Some((k, off)) => self.region_slot(b, k, off, bytes)?,
                    None => tape::push_bytes(&mut self.b, self.tape, bytes),
                };
                for (k, field, _, off) in fields {
                    let l = &self.plan.loops()[k];
                    let v = match field {
                        ExitField::Start => self.vals.map(l.start),
                        ExitField::Last => self.vals.map(l.iv),
                        ExitField::Base => self.regions[&k].0,
                        ExitField::Count => self.regions[&k].1,
                    };
                    let at = tape::at_offset(&mut self.b, slot, off);
                    let st = self.b.store(v, at, 1);
                    if v.ty().is_int() {
                        st.set_tbaa_scalar(tape::INT_TBAA);
                    }
                }
            }
            // (After every phi of the block, the predecessor index's included; and the value
            // of an invoke that is the block's only way in, which exists from here on.)
            for &p in &phis {
                self.spill_to_frame(p)?;
            }
            if let [pred] = self.cfg.preds(b)[..] {
                if let Some(inv) = pred.terminator().filter(|t| t.is_invoke()) {
                    if inv.normal_dest() == b {
                        self.spill_to_frame(inv)?;
                    }
                }
            }
            let (batches, batch_of) = super::batch::batches(
                self.session.module,
                b,
                &self.active,
                &self.session.rules,
                &self.plan,
            );
            let mut pending: Vec<(Val, u64, bool)> = Vec::new();
            let region_loop = self.loop_tapes.reserved_in(&self.plan, b);
            for i in rest {
                if Some(i) == b.terminator() {
                    if let Some(k) = region_loop {
                        self.reserve_region(k);
                    }
                }
                self.b.set_fast_math_from(i);
                let span = i.is_invoke().then(|| crate::unwind::Span::begin(&self.b));
                self.refuse_mixed_aggregate(i)?;
                self.visit(i)?;
                if !i.is_invoke() {
                    if self.session.opts.debug_checks {
                        self.debug_check(i);
                    }
                    self.spill_to_frame(i)?;
                }
                let normal = span.map(|s| self.invoke_unwinding_calls(i, s));
                match batch_of.get(&i).map(|&k| &batches[k]) {
                    Some(batch) => {
                        for (n, off) in batch
                            .layout
                            .iter()
                            .find(|(m, _)| *m == i)
                            .map(|(_, l)| l.clone())
                            .unwrap_or_default()
                        {
                            if pending.iter().any(|&(_, o, _)| o == off) {
                                continue; // written for an earlier member
                            }
                            let v = self.need_value(n, i)?;
                            let int = matches!(n, Need::Primal(p) if self.integer_data(p, v));
                            pending.push((v, off, int));
                        }
                        if batch.last() == Some(i) {
                            // One push for the whole run of instructions (or its place in
                            // the loop's region).
                            let k = batch_of[&i];
                            let before: u64 = batches[..k].iter().map(|x| x.bytes).sum();
                            let slot = self.batch_slot(b, before, batch.bytes)?;
                            for (v, off, int) in pending.drain(..) {
                                let at = tape::at_offset(&mut self.b, slot, off);
                                let st = self.b.store(v, at, 1);
                                if int {
                                    // Typed like the adjoint's load of it (integer data).
                                    st.set_tbaa_scalar(tape::INT_TBAA);
                                }
                            }
                        }
                    }
                    None => self.push_needs(i)?,
                }
                if let Some(Some(normal)) = normal {
                    self.b.br(normal);
                }
            }
            let exit = self.b.current_block();
            self.vals.set_exit_block(b, exit);
        }
        self.byte_checks.finish(&mut self.b, self.dst);
        self.fill_phis()?;
        self.fill_int_phis()
    }

    /// Stores `i` (and its shadow) where it was just computed, when the frame keeps it but
    /// its block is not on every path to a return ([`ReversePlan::spilled`]): the return
    /// reads the slot. The slots live in the entry block, so mem2reg makes them phis again.
    fn spill_to_frame(&mut self, i: Val) -> Result<()> {
        for shadow in [false, true] {
            if !self.plan.spilled(i, shadow) {
                continue;
            }
            let x = if shadow {
                self.shadow(i, i)?
            } else {
                self.vals.map(i)
            };
            let slot = *self.frame_spills.get(&(i, shadow)).ok_or_else(|| {
                Error::internal(i, "reverse mode: a frame value without its slot")
            })?;
            let st = self.b.store(x, slot, 1);
            if self.integer_data(i, x) {
                st.set_tbaa_scalar(tape::INT_TBAA);
            }
        }
        Ok(())
    }

    /// True when `x` (the augmented sweep's copy of `v`) is integer data, never float bits:
    /// kept in memory of the sweep's own (a frame spill), it is typed as such, so that a
    /// gradient of this sweep (second order) does not take it for a float copied through an
    /// integer.
    fn integer_data(&mut self, v: Val, x: Val) -> bool {
        let m = self.session.module;
        x.ty().is_int() && types::float_bits(self.session.types(), m, v).is_none()
    }

    /// A stack slot of type `ty` at the start of the sweep's entry block.
    fn entry_slot(&mut self, ty: Ty) -> Val {
        let mut at = Builder::new(self.session.module);
        let entry = self.dst.entry_block();
        match entry.first_instruction() {
            Some(first) => at.position_before(first),
            None => at.position_at_end(entry),
        }
        at.alloca(ty, "frame.spill")
    }

    /// Reserves the regions of the loop nest rooted at structured loop `k` at the builder's
    /// position (its preheader's end).
    fn reserve_region(&mut self, k: usize) {
        let vals = &self.vals;
        let reserved = self
            .loop_tapes
            .reserve(&self.plan, k, &mut self.b, self.tape, |v| vals.map(v));
        self.regions.extend(reserved);
    }

    /// Where the batch of `bytes` at offset `before` among source block `b`'s batches goes: its
    /// slot in the region of `b`'s loop, or a push.
    fn batch_slot(&mut self, b: Block, before: u64, bytes: u64) -> Result<Val> {
        match self.loop_tapes.place(b) {
            Some(p) => self.region_slot(b, p.lp, p.batches + before, bytes),
            None => Ok(tape::push_bytes(&mut self.b, self.tape, bytes)),
        }
    }

    /// The slot of `bytes` at offset `off` in the current iteration's bytes of loop `k`'s
    /// region (or pushed, past the reserved count), for source block `b`.
    fn region_slot(&mut self, b: Block, k: usize, off: u64, bytes: u64) -> Result<Val> {
        let tape = self.tape;
        let mut chain = Vec::new();
        for a in self.loop_tapes.chain(k) {
            let Some(&(_, count)) = self.regions.get(&a) else {
                // The root's preheader dominates the nest and comes first in reverse
                // post-order.
                let at = b.first_instruction().unwrap_or(self.src);
                return Err(Error::internal(
                    at,
                    "reverse mode: loop region used before it is reserved",
                ));
            };
            let l = &self.plan.loops()[a];
            let (iv, start) = (self.vals.map(l.iv), self.vals.map(l.start));
            let index = iteration_index(&mut self.b, l, iv, start);
            chain.push((index, count, self.loop_tapes.slope(a)));
        }
        let (Some(&(base, _)), Some(region)) = (self.regions.get(&k), self.loop_tapes.region(k))
        else {
            let at = b.first_instruction().unwrap_or(self.src);
            return Err(Error::internal(
                at,
                "reverse mode: loop region without its nest",
            ));
        };
        let slot = RegionSlot {
            base,
            chain,
            stride: region.stride,
            offset: off,
        };
        Ok(slot.emit(&mut self.b, |b| tape::push_bytes(b, tape, bytes)))
    }

    /// A block only exceptions reach (a landing pad, a handler): the primal's code, without
    /// shadows or tape, since no adjoint runs after an exception ([`crate::unwind`]). An edge
    /// back into the normal path (a handler that caught the exception and carries on) is a
    /// path the adjoint cannot reverse: it ends in a run-time error instead.
    fn primal_only_block(&mut self, b: Block) -> Result<()> {
        for i in b.instructions() {
            if i.opcode() == Opcode::LLVMPHI {
                let p = self.b.phi(i.ty());
                p.set_name(&i.name());
                self.vals.set_primal(i, p);
                self.phis.push((i, p, None));
                continue;
            }
            let is_terminator = b.terminator() == Some(i);
            let rejoins = is_terminator && i.successors().iter().any(|&s| self.cfg.contains(s));
            if rejoins {
                crate::unwind::emit_fatal(
                    &mut self.b,
                    &format!(
                        "an exception was caught inside '{}' during a gradient computation; reverse mode differentiates only the path without exceptions",
                        self.src.name()
                    ),
                );
                break;
            }
            let span = i.is_invoke().then(|| crate::unwind::Span::begin(&self.b));
            self.vals.clone_primal(&mut self.b, i);
            if let Some(Some(normal)) = span.map(|s| self.invoke_unwinding_calls(i, s)) {
                self.b.br(normal);
            }
        }
        let exit = self.b.current_block();
        self.vals.set_exit_block(b, exit);
        Ok(())
    }

    /// After the code for source `invoke` `i` (emitted as for a call): its calls that may
    /// unwind become invokes unwinding to the copy of `i`'s landing pad. Returns the derived
    /// normal destination, to branch to once the tape pushes are emitted.
    fn invoke_unwinding_calls(&mut self, i: Val, span: crate::unwind::Span) -> Option<Block> {
        let normal = self.vals.block(i.normal_dest())?;
        let unwind = self.vals.block(i.unwind_dest())?;
        let invoked = span.invoke_unwinding_calls(&mut self.b, unwind);
        for (old, new) in &invoked.replaced {
            for v in self.saved.values_mut() {
                if v == old {
                    *v = *new;
                }
            }
        }
        self.vals.record_invoked(i.parent_block(), invoked);
        Some(normal)
    }

    pub(super) fn is_active(&self, v: Val) -> bool {
        self.active.contains(v)
    }

    /// `--debug-checks`: after active pointer `i`, its shadow must not be null where it is not
    /// ([`crate::debug_checks::shadow`]); phis and terminators are not checked.
    fn debug_check(&mut self, i: Val) {
        if i.is_terminator() || i.opcode() == Opcode::LLVMPHI || !i.ty().is_ptr() {
            return;
        }
        if !self.is_active(i) {
            return;
        }
        if let Some(s) = self.vals.shadow(i) {
            let p = self.vals.map(i);
            crate::debug_checks::shadow(&mut self.b, i, p, s, crate::debug_checks::Kind::Adjoint);
        }
    }

    /// An active value whose type holds both floating-point data and pointers (`{ptr, double}`
    /// loaded, stored or built as one value): its pointer part carries a shadow and its float
    /// part an adjoint, which the adjoint sweep cannot keep in one slot yet. Refused, so its
    /// float part's derivative is never dropped silently.
    fn refuse_mixed_aggregate(&self, i: Val) -> Result<()> {
        let mixed = |t: crate::ir::Ty| t.contains_float() && t.contains_ptr();
        let stored = i.opcode() == Opcode::LLVMStore && mixed(i.operand(0).ty());
        if (self.is_active(i) && mixed(i.ty())) || (stored && self.is_active(i.operand(0))) {
            return Err(Error::at(
                i,
                "reverse mode cannot differentiate a value that holds both pointers and floating-point data (a struct like {double *, double} moved as one value); move the fields separately or copy the struct with memcpy",
            ));
        }
        Ok(())
    }

    /// True when source block `b` is on the sweep's normal path (not a handler).
    pub(super) fn in_sweep(&self, b: Block) -> bool {
        self.cfg.contains(b)
    }

    pub(super) fn shadow(&mut self, v: Val, at: Val) -> Result<Val> {
        self.vals.shadow_or_substitute(self.session, v, at)
    }

    /// Pushes what `i`'s adjoint will pop.
    fn push_needs(&mut self, i: Val) -> Result<()> {
        for n in self.plan.taped_needs(i, &self.active, &self.session.rules) {
            let v = self.need_value(n, i)?;
            tape::push(&mut self.b, self.tape, v);
        }
        Ok(())
    }

    /// The value the forward sweep tapes for need `n` of `i`.
    fn need_value(&mut self, n: Need, i: Val) -> Result<Val> {
        Ok(match n {
            Need::Primal(v) => self.vals.map(v),
            Need::Shadow(v) => self.shadow(v, i)?,
            Need::Saved(v) => match self.saved.get(&v) {
                Some(&s) => s,
                None => {
                    return Err(Error::internal(
                        i,
                        "reverse mode: a custom rule saved nothing",
                    ))
                }
            },
        })
    }

    fn visit_phi(&mut self, i: Val) {
        let p = self.b.phi(i.ty());
        p.set_name(&i.name());
        self.vals.set_primal(i, p);
        let s = (self.is_active(i) && i.ty().contains_ptr()).then(|| self.b.phi(i.ty()));
        self.vals.set_shadow(i, s);
        self.phis.push((i, p, s));
    }

    fn fill_phis(&mut self) -> Result<()> {
        for (src, p, s) in std::mem::take(&mut self.phis) {
            let to = src.parent_block();
            for (v, from) in src.incoming() {
                // Edges from handlers back into the normal path end in an error instead.
                if self.cfg.contains(to) && !self.cfg.contains(from) {
                    continue;
                }
                for pred in self.vals.edge_sources(from, to) {
                    p.add_incoming(self.vals.map(v), pred);
                    if let Some(s) = s {
                        let sv = self.shadow_or_zero(v, src)?;
                        s.add_incoming(sv, pred);
                    }
                }
            }
        }
        let i32t = Ty::int(self.session.module.context(), 32);
        for (b, idx) in std::mem::take(&mut self.pred_index) {
            for (k, &pred) in self.cfg.preds(b).iter().enumerate() {
                if let Some(exit) = self.vals.exit_block_of(pred) {
                    // One entry per edge: a switch may reach the block by several cases.
                    let here = idx.parent_block();
                    let edges = exit.successors().into_iter().filter(|&s| s == here).count();
                    for _ in 0..edges.max(1) {
                        idx.add_incoming(i32t.int_const(k as u64), exit);
                    }
                }
            }
        }
        Ok(())
    }

    /// The shadow of a pointer, or of a pointer-carrying aggregate or vector: its own, or for
    /// a constant, one built from the shadows its pointers stand in with. A value without one is
    /// an error at `at`, never a zero shadow the adjoint would write through.
    fn shadow_or_zero(&mut self, v: Val, at: Val) -> Result<Val> {
        if v.ty().is_ptr() {
            return self.shadow(v, at);
        }
        if let Some(s) = self.vals.shadow(v) {
            return Ok(s);
        }
        if v.is_constant() && !v.is_constant_expr() {
            return crate::clone::constant_aggregate_shadow(self.session, v, at);
        }
        // An inactive aggregate built from a constant by inserting integers (flang's array
        // descriptors at -O0: `insertvalue {ptr undef, i64 8, ...} %c, i64 %extent, 7, 0, 1`,
        // before the base address goes in): its pointers are the constant's, so its shadow is
        // the constant's (shadows carry no integers).
        if v.is_instruction()
            && v.opcode() == Opcode::LLVMInsertValue
            && !v.operand(1).ty().contains_ptr()
        {
            return self.shadow_or_zero(v.operand(0), at);
        }
        Err(Error::at(
            at,
            format!(
                "'{}' carries pointers but has no shadow here (built from constant arguments or from data reverse mode cannot follow); pass its pointers as dup",
                short(v)
            ),
        ))
    }

    fn visit(&mut self, i: Val) -> Result<()> {
        if i.opcode() == Opcode::LLVMIntToPtr && self.is_active(i) && self.visit_int_to_ptr(i)? {
            return Ok(());
        }
        match classify(i) {
            InstClass::Return => self.visit_ret(i),
            InstClass::Call => self.visit_call(i),
            InstClass::Alloca => self.visit_alloca(i),
            InstClass::Load => {
                self.vals.clone_primal(&mut self.b, i);
                if self.is_active(i) && i.ty().contains_ptr() {
                    self.shadow_by_substitution(i, &[0])?;
                }
                Ok(())
            }
            InstClass::Store => self.visit_store(i),
            // Pointer shadows travel like the pointers; float adjoints flow in the adjoint sweep.
            InstClass::Moves {
                operands,
                pointers: true,
            } => self.visit_pointer_op(i, operands),
            InstClass::Rule(r) if matches!(r.kind, InstructionKind::Selection) => {
                self.visit_pointer_op(i, &[1, 2])
            }
            InstClass::Unsupported => Err(Error::at(
                i,
                "exception handling and indirect branches cannot be differentiated yet",
            )),
            InstClass::AtomicFAdd if !i.has_uses() => {
                // An OpenMP reduction's atomic add; its adjoint reads the shared adjoint.
                self.vals.clone_primal(&mut self.b, i);
                Ok(())
            }
            InstClass::InactiveOnly | InstClass::AtomicFAdd
                if i.operands().into_iter().any(|v| self.is_active(v)) =>
            {
                Err(Error::at(
                    i,
                    crate::analysis::opcodes::inactive_only_refusal(i),
                ))
            }
            // Float adjoints flow in the adjoint sweep; here only the primal runs.
            InstClass::Moves {
                pointers: false, ..
            }
            | InstClass::Rule(_)
            | InstClass::Bits(_)
            | InstClass::SignBit(..)
            | InstClass::Phi
            | InstClass::Control
            | InstClass::NoDerivative
            | InstClass::InactiveOnly
            | InstClass::AtomicFAdd => {
                self.vals.clone_primal(&mut self.b, i);
                Ok(())
            }
        }
    }

    /// Primal copy; for active pointer-carrying results, the shadow by operand substitution.
    fn visit_pointer_op(&mut self, i: Val, diff: &[u32]) -> Result<()> {
        self.vals.clone_primal(&mut self.b, i);
        if self.is_active(i) && i.ty().contains_ptr() {
            self.shadow_by_substitution(i, diff)?;
        }
        Ok(())
    }

    /// A copy of `i`'s primal with operands `diff` replaced by their shadows (or zero).
    fn shadow_by_substitution(&mut self, i: Val, diff: &[u32]) -> Result<()> {
        let c = self.vals.map(i).clone_instruction();
        for &k in diff {
            let op = i.operand(k);
            let s = if op.ty().contains_ptr() {
                self.shadow_or_zero(op, i)?
            } else {
                op.ty().zero()
            };
            c.set_operand(k, s);
        }
        self.b.insert(c);
        self.vals.set_shadow(i, Some(c));
        Ok(())
    }

    fn visit_ret(&mut self, i: Val) -> Result<()> {
        // The frame: values computed on every path here, pushed last (before the return
        // index) so the adjoint pops them first thing and has them everywhere; in one slot,
        // one push (a helper called in a loop keeps tens of values per call).
        let (frame, bytes) = self.plan.frame_layout(self.session.module);
        if bytes > 0 {
            let mut values = Vec::with_capacity(frame.len());
            for &(v, shadow, off) in &frame {
                let x = if self.plan.spilled(v, shadow) {
                    let slot = *self.frame_spills.get(&(v, shadow)).ok_or_else(|| {
                        Error::internal(v, "reverse mode: a frame value without its slot")
                    })?;
                    let x = self.b.load(slot.allocated_type(), slot, 1);
                    if self.integer_data(v, x) {
                        x.set_tbaa_scalar(tape::INT_TBAA);
                    }
                    x
                } else if shadow {
                    self.shadow(v, i)?
                } else {
                    self.vals.map(v)
                };
                values.push((x, off));
            }
            let slot = tape::push_bytes(&mut self.b, self.tape, bytes);
            for (x, off) in values {
                let at = tape::at_offset(&mut self.b, slot, off);
                self.b.store(x, at, 1);
            }
        }
        if self.cfg.records_return() {
            let k = self
                .cfg
                .returns
                .iter()
                .position(|&b| b == i.parent_block())
                .unwrap_or(0);
            let idx = Ty::int(self.session.module.context(), 32).int_const(k as u64);
            tape::push(&mut self.b, self.tape, idx);
        }
        if i.num_operands() == 0 {
            self.b.ret_void();
            return Ok(());
        }
        let v = i.operand(0);
        if v.ty().is_int()
            && self.is_active(v)
            && self
                .session
                .float_bits_of(self.src, self.session.context())
                .ret
                .is_none()
        {
            let m = self.session.module;
            types::check_no_float_bits(self.session.types(), m, v, i, "returns")?;
        }
        let pv = self.vals.map(v);
        if returns_shadow(self.src) {
            let sv = self.shadow(v, i)?;
            let ty = self.dst.function_type().return_type();
            let agg = self.b.insert_value(ty.poison(), pv, 0);
            let agg = self.b.insert_value(agg, sv, 1);
            self.b.ret(agg);
        } else {
            self.b.ret(pv);
        }
        Ok(())
    }
}

/// The error for a call whose rule reverse mode cannot apply, saying why.
pub(super) fn unsupported_call(i: Val, why: &str) -> Error {
    let name = i.called_function().map(|f| f.name()).unwrap_or_default();
    Error::at(
        i,
        format!("cannot differentiate the call to '{name}': {why}"),
    )
}

/// The pointer integer `v` is the address of (`ptrtoint p`, an instruction or a constant
/// expression), if it is one.
pub(super) fn pointer_as_integer(v: Val) -> Option<Val> {
    let cast = (v.is_instruction() && v.opcode() == Opcode::LLVMPtrToInt)
        || (v.is_constant_expr() && v.const_opcode() == Opcode::LLVMPtrToInt);
    (cast && v.ty().is_int()).then(|| v.operand(0))
}

/// Integers and vectors of integers: bytes that may be float bits moved as integers.
pub(super) fn is_integer_data(t: Ty) -> bool {
    t.is_int() || t.is_vector() && t.scalar().is_int()
}
