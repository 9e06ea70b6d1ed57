//! [`ForwardFn`]: the visitor that builds one forward derivative. It owns the value maps
//! (source value → primal copy, source value → tangent/shadow), walks the reachable blocks in
//! reverse post-order emitting each primal instruction followed by its tangent, and fills phi
//! edges once every block exists.
//!
//! Invariant: `tangent` holds an entry only for active values; a missing entry means zero (for
//! values) or "no shadow" (for pointers), and pointer uses that need a shadow go through
//! [`ForwardFn::require_shadow`] or [`ForwardFn::shadow_or_substitute`], which error rather than
//! invent one.

use crate::analysis::activity::ActiveSet;
use crate::analysis::opcodes::{classify, InstClass, SignBit};
use crate::cache::{Derived, Job, Session};
use crate::clone::Cloner;
use crate::diag::{Error, Result};
use crate::ir::{Block, Builder, Opcode, Val};
use crate::rules::instructions::InstructionKind;
use crate::vocab::Activity;

fn job_name(job: &Job) -> String {
    match job.derived {
        Derived::Forward(d) => d.name(),
        Derived::Reverse { augmented, .. } => augmented.name(),
    }
}

/// Builds one forward derivative.
pub(crate) struct ForwardFn<'s> {
    pub(super) session: &'s mut Session,
    pub(super) src: Val,
    pub(super) dst: Val,
    activity: Vec<Activity>,
    pub(super) active: ActiveSet,
    pub(super) b: Builder,
    vals: Cloner,
    /// (source phi, primal phi, tangent phi) awaiting their incoming edges.
    pub(super) phis: Vec<(Val, Val, Option<Val>)>,
    /// (source `inttoptr` of a phi, shadow phi, alternatives) of pointers made from merged integers
    /// ([`crate::analysis::int_pointers::IntPointer::Merge`]), awaiting their edges.
    pub(super) int_phis: Vec<(Val, Val, Vec<crate::analysis::int_pointers::Alternative>)>,
    /// Tangents per value (batched forward mode): at width `n > 1` the tangent of a scalar
    /// `float`/`double` is an `<n x T>` computed by vector instructions, every other tangent an
    /// `[n x T]` of lanes computed lane by lane ([`crate::signature::wide`]).
    pub(super) width: u32,
    /// The pointer parameters passed `enzyme_dupnoneed`: the caller needs only their shadows,
    /// so primal stores into their memory are left out and the activity passes on to callees
    /// (Enzyme's semantics: `(double *)0x1` may stand in as such a primal).
    noneed: Vec<Val>,
}

/// Lane `k` of tangent `t` (`t` itself at width 1).
pub(super) fn lane(b: &mut Builder, t: Val, k: u32, width: u32) -> Val {
    if width == 1 {
        t
    } else {
        crate::signature::lane_of(b, t, k)
    }
}

/// The tangent made of `lanes` (the one lane at width 1): a vector for scalar float lanes
/// ([`crate::signature::wide`]). Constant lanes fold to a constant.
pub(super) fn gather(b: &mut Builder, lanes: Vec<Val>) -> Val {
    crate::signature::pack_lanes(b, &lanes)
}

impl<'s> ForwardFn<'s> {
    pub(crate) fn new(session: &'s mut Session, job: &Job) -> ForwardFn<'s> {
        let src = job.key.function;
        let active = session.activity(src, &job.key.activity);
        if session.opts.print_activity {
            let lines = active.describe(src, &job_name(job), &job.key.activity);
            session.report.extend(lines);
        }
        let b = Builder::new(session.module);
        let dst = match job.derived {
            Derived::Forward(d) => d,
            // The session dispatches reverse jobs elsewhere.
            Derived::Reverse { augmented, .. } => augmented,
        };
        ForwardFn {
            session,
            src,
            dst,
            activity: job.key.activity.clone(),
            active,
            b,
            vals: Cloner::default(),
            phis: Vec::new(),
            int_phis: Vec::new(),
            width: job.key.width,
            noneed: src
                .params()
                .into_iter()
                .zip(&job.key.activity)
                .filter(|(p, a)| **a == Activity::DupNoNeed && p.ty().is_ptr())
                .map(|(p, _)| p)
                .collect(),
        }
    }

    /// True when every object `ptr` may point into is a parameter passed `enzyme_dupnoneed`:
    /// memory whose primal the caller does not need (see `noneed`).
    pub(super) fn primal_not_needed(&self, ptr: Val) -> bool {
        if self.noneed.is_empty() {
            return false;
        }
        let objects = crate::analysis::objects::underlying_objects(ptr);
        !objects.is_empty() && objects.iter().all(|o| self.noneed.contains(o))
    }

    pub(crate) fn run(mut self) -> Result<()> {
        let order = self.vals.create_blocks(self.src, self.dst);
        self.vals
            .keep_host_unrolling(self.session.host_optimised(self.src));
        self.vals.map_params(self.src, self.dst, &self.activity, 0);
        self.vals
            .map_global_shadows(self.src, &self.session.rules, self.width);
        if let Some(&first) = order.first() {
            if let Some(entry) = self.vals.block(first) {
                self.b.position_at_end(entry);
                self.float_bits_params();
            }
        }
        if let Some(p) = self.src.personality() {
            self.dst.set_personality(p);
        }
        for b in order {
            let Some(nb) = self.vals.block(b) else {
                continue;
            };
            self.b.position_at_end(nb);
            for i in b.instructions() {
                self.b.set_fast_math_from(i);
                let span = i.is_invoke().then(|| crate::unwind::Span::begin(&self.b));
                self.visit(i)?;
                if span.is_none() && self.session.opts.debug_checks {
                    self.debug_check(i);
                }
                if let Some(span) = span {
                    self.finish_invoke(i, span);
                }
            }
            let exit = self.b.current_block();
            self.vals.set_exit_block(b, exit);
        }
        self.fill_phis()?;
        self.fill_int_phis()
    }
    /// Integer parameters carrying float bits receive the float's tangent: inside, it is the
    /// integer's tangent bits.
    fn float_bits_params(&mut self) {
        let bits = self.session.float_bits_of(self.src, self.session.context());
        for (k, p) in self.src.params().into_iter().enumerate() {
            if let (Some(_), Some(t)) = (bits.param(k), self.tangent(p)) {
                let t = self.cast_lanes(t, p.ty());
                self.set_tangent(p, Some(t));
            }
        }
    }

    /// After the code for source `invoke` `i` (emitted as for a call): its calls that may
    /// unwind become invokes unwinding to the copy of `i`'s landing pad, then the derived code
    /// branches to the normal destination.
    fn finish_invoke(&mut self, i: Val, span: crate::unwind::Span) {
        let (Some(normal), Some(unwind)) = (
            self.vals.block(i.normal_dest()),
            self.vals.block(i.unwind_dest()),
        ) else {
            return;
        };
        let invoked = span.invoke_unwinding_calls(&mut self.b, unwind);
        self.vals.record_invoked(i.parent_block(), invoked);
        self.b.br(normal);
    }

    fn visit(&mut self, i: Val) -> Result<()> {
        match classify(i) {
            InstClass::Phi => self.visit_phi(i),
            InstClass::Return => self.visit_ret(i),
            InstClass::Control | InstClass::NoDerivative => {
                // Integer arithmetic, comparisons, int<->float conversions: no derivative.
                self.clone_primal(i);
                Ok(())
            }
            InstClass::Call => self.visit_call(i),
            InstClass::Alloca => self.visit_alloca(i),
            InstClass::Load => self.visit_load(i),
            InstClass::Store => self.visit_store(i),
            InstClass::Rule(rule) => match rule.kind {
                InstructionKind::Linear(partials) => self.visit_linear(i, partials),
                InstructionKind::Conversion => self.visit_structural(i, &[0]),
                // The tangent (or shadow) is selected like the value.
                InstructionKind::Selection => self.visit_structural(i, &[1, 2]),
            },
            // GEPs offset the shadow like the primal.
            InstClass::Moves { .. } if i.opcode() == Opcode::LLVMGetElementPtr => self.visit_gep(i),
            InstClass::Moves { operands, .. } if i.opcode() == Opcode::LLVMIntToPtr => {
                self.visit_int_to_ptr(i, operands)
            }
            InstClass::Moves { operands, .. } => self.visit_structural(i, operands),
            // Flipping the sign bit is a bit operation on the tangent as well: `xor` moves it
            // exactly.
            InstClass::Bits(_) | InstClass::SignBit(SignBit::Flip, _) => self.visit_bits(i),
            InstClass::SignBit(op @ (SignBit::Clear | SignBit::Set), float) => {
                self.visit_sign_bit(i, op == SignBit::Set, float)
            }
            InstClass::AtomicFAdd => self.visit_atomic_fadd(i),
            InstClass::Unsupported => Err(Error::at(
                i,
                "exception handling and indirect branches cannot be differentiated yet",
            )),
            InstClass::InactiveOnly => self.visit_inactive_only(i),
        }
    }

    /// `--debug-checks`: after active instruction `i`, its tangent must be finite where its
    /// value is, its shadow not null where it is not ([`crate::debug_checks`]). Phis (which
    /// must stay together at the top of their block) and terminators are not checked; batched
    /// tangents neither.
    fn debug_check(&mut self, i: Val) {
        if self.width != 1
            || i.is_terminator()
            || i.opcode() == Opcode::LLVMPHI
            || !self.is_active(i)
            || !(i.ty().is_fp_or_fp_vector() || i.ty().is_ptr())
        {
            return;
        }
        let Some(t) = self.tangent(i) else {
            return;
        };
        let p = self.map(i);
        if i.ty().is_ptr() {
            crate::debug_checks::shadow(&mut self.b, i, p, t, crate::debug_checks::Kind::Tangent);
        } else {
            crate::debug_checks::tangent(&mut self.b, i, p, t);
        }
    }

    /// Instructions Umbra copies but cannot differentiate: fine while no derivative flows in.
    fn visit_inactive_only(&mut self, i: Val) -> Result<()> {
        if i.operands().into_iter().any(|v| self.is_active(v)) {
            return Err(Error::at(
                i,
                crate::analysis::opcodes::inactive_only_refusal(i),
            ));
        }
        self.clone_primal(i);
        Ok(())
    }

    // ----- value maps -----

    /// True when source value `v` carries a derivative.
    pub(super) fn is_active(&self, v: Val) -> bool {
        self.active.contains(v)
    }

    /// The primal copy of source value `v`.
    pub(super) fn map(&self, v: Val) -> Val {
        self.vals.map(v)
    }

    /// Records the primal copy of `v`.
    pub(super) fn set_primal(&mut self, v: Val, p: Val) {
        self.vals.set_primal(v, p);
    }

    /// The tangent (or shadow) of source value `v`, if it has one.
    pub(super) fn tangent(&self, v: Val) -> Option<Val> {
        self.vals.shadow(v)
    }

    /// Records the tangent of `v` (ignored for `None`).
    pub(super) fn set_tangent(&mut self, v: Val, t: Option<Val>) {
        self.vals.set_shadow(v, t);
    }

    /// The tangent of `v`, or zero of its type. Pointers without a shadow get a substitute
    /// (see [`Cloner::shadow_or_substitute`]); `at` is the instruction blamed on failure.
    pub(super) fn tangent_or_zero(&mut self, v: Val, at: Val) -> Result<Val> {
        if let Some(t) = self.tangent(v) {
            return Ok(t);
        }
        if v.ty().is_ptr() {
            return self.require_shadow(v, at);
        }
        Ok(crate::signature::wide(v.ty(), self.width).zero())
    }

    /// The shadow of pointer `v`, or a substitute where one exists; an error otherwise. A
    /// substitute (null, a dangling address, read-only zeros) serves every lane.
    pub(super) fn require_shadow(&mut self, v: Val, at: Val) -> Result<Val> {
        if let Some(s) = self.tangent(v) {
            return Ok(s);
        }
        if self.width > 1 {
            // A global with a shadow per lane (`api::shadow_sets`).
            if let Some(s) = self.session.rules.wide_global_shadow_of(v, self.width) {
                return Ok(s);
            }
        }
        if self.width > 1 && self.session.rules.global_shadow_of(v).is_some() {
            // One shadow global holds one tangent, not one per lane.
            return Err(Error::at(
                at,
                format!(
                    "'{}' points into a global with a shadow (enzyme_shadow), which holds one tangent: batched forward mode (width {}) needs one per lane; differentiate with width 1, or pass the data as a dup argument",
                    if v.is_global_variable() {
                        format!("@{}", v.name())
                    } else {
                        crate::clone::short(v)
                    },
                    self.width
                ),
            ));
        }
        let s = self.vals.shadow_or_substitute(self.session, v, at)?;
        Ok(gather(&mut self.b, vec![s; self.width as usize]))
    }

    /// Lane `k` of tangent `t`.
    pub(super) fn lane(&mut self, t: Val, k: u32) -> Val {
        lane(&mut self.b, t, k, self.width)
    }

    /// The tangent made of `lanes`.
    pub(super) fn gather(&mut self, lanes: Vec<Val>) -> Val {
        gather(&mut self.b, lanes)
    }

    /// Tangent `t` reinterpreted lane by lane as `to` (same size): the float tangent of an
    /// integer carrying float bits ([`crate::signature::FloatBits`]) crosses a call boundary as
    /// the float, and travels inside a function as the integer's bits.
    pub(super) fn cast_lanes(&mut self, t: Val, to: crate::ir::Ty) -> Val {
        let lanes = (0..self.width)
            .map(|k| {
                let l = self.lane(t, k);
                self.b.cast(Opcode::LLVMBitCast, l, to)
            })
            .collect();
        self.gather(lanes)
    }

    // ----- emission helpers -----

    /// Emits a copy of source instruction `i` with its operands mapped, and records it.
    pub(super) fn clone_primal(&mut self, i: Val) -> Val {
        self.vals.clone_primal(&mut self.b, i)
    }

    /// Emits a copy of `i`'s primal with operands `diff` replaced by their tangents (zero or a
    /// substitute shadow when inactive): the tangent of every instruction that is linear in
    /// those operands and merely moves or selects the rest (casts, aggregates, vectors, select,
    /// GEP and load on shadows).
    /// Batched: one copy per lane.
    pub(super) fn emit_with_tangents(&mut self, i: Val, diff: &[u32]) -> Result<Val> {
        if let Some(t) = self.emit_vector(i, diff)? {
            return Ok(t);
        }
        let lanes = self.emit_lanes(i, diff)?;
        Ok(self.gather(lanes))
    }

    /// Batched: the tangent of a float conversion or a `select` of scalar floats as one vector
    /// instruction on the vector of lanes (`None` where the lanes go one by one).
    fn emit_vector(&mut self, i: Val, diff: &[u32]) -> Result<Option<Val>> {
        let wide = crate::signature::wide(i.ty(), self.width);
        if self.width == 1 || !wide.is_vector() {
            return Ok(None);
        }
        let mut ts = Vec::with_capacity(diff.len());
        for &k in diff {
            let t = self.tangent_or_zero(i.operand(k), i)?;
            if !t.ty().is_vector() {
                return Ok(None);
            }
            ts.push(t);
        }
        Ok(match (i.opcode(), ts.as_slice()) {
            (Opcode::LLVMFPExt | Opcode::LLVMFPTrunc, &[t]) => {
                Some(self.b.cast(i.opcode(), t, wide))
            }
            // One condition for every lane (a vector condition would select within the primal's
            // lanes, which are not these).
            (Opcode::LLVMSelect, &[t, f]) if !i.operand(0).ty().is_vector() => {
                let c = self.map(i.operand(0));
                Some(self.b.select(c, t, f))
            }
            _ => None,
        })
    }

    /// [`Self::emit_with_tangents`] without gathering the lanes (for `store`, which has no
    /// value).
    pub(super) fn emit_lanes(&mut self, i: Val, diff: &[u32]) -> Result<Vec<Val>> {
        let p = self.map(i);
        let mut ts = Vec::with_capacity(diff.len());
        for &k in diff {
            ts.push((k, self.tangent_or_zero(i.operand(k), i)?));
        }
        let mut lanes = Vec::with_capacity(self.width as usize);
        for l in 0..self.width {
            let c = p.clone_instruction();
            for &(k, t) in &ts {
                let tl = self.lane(t, l);
                c.set_operand(k, tl);
            }
            self.b.insert(c);
            lanes.push(c);
        }
        Ok(lanes)
    }

    /// Primal copy, then the tangent by operand substitution when `i` is active.
    pub(super) fn visit_structural(&mut self, i: Val, diff: &[u32]) -> Result<()> {
        self.clone_primal(i);
        if self.is_active(i) {
            let t = self.emit_with_tangents(i, diff)?;
            self.set_tangent(i, Some(t));
        }
        Ok(())
    }

    /// The derived block source block `b` starts in, if reachable.
    pub(super) fn block_of(&self, b: Block) -> Option<Block> {
        self.vals.block(b)
    }

    /// The derived blocks the source edge `from` → `to` leaves from (see
    /// [`Cloner::edge_sources`]).
    pub(super) fn edge_sources(&self, from: Block, to: Block) -> Vec<Block> {
        self.vals.edge_sources(from, to)
    }
}
