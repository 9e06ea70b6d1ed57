//! [`ForwardFn`]: the visitor that builds one forward derivative. It owns the value maps
//! (source value → primal copy, source value → tangent/shadow), walks the reachable blocks in
//! reverse post-order emitting each primal instruction followed by its tangent, and fills phi
//! edges once every block exists.
//!
//! Invariant: `tangent` holds an entry only for active values; a missing entry means zero (for
//! values) or "no shadow" (for pointers), and pointer uses that need a shadow go through
//! [`ForwardFn::require_shadow`] or [`ForwardFn::shadow_or_substitute`], which error rather than
//! invent one.

use crate::analysis::activity::{forward_activity, ActiveSet};
use crate::analysis::cfg::reverse_post_order;
use crate::api::Activity;
use crate::cache::{Job, Session};
use crate::diag::{Error, Result};
use crate::ir::{Block, Builder, Opcode, Val};
use std::collections::{HashMap, HashSet};

/// Builds one forward derivative.
pub(crate) struct ForwardFn<'s> {
    pub(super) session: &'s mut Session,
    pub(super) src: Val,
    pub(super) dst: Val,
    activity: Vec<Activity>,
    pub(super) active: ActiveSet,
    pub(super) b: Builder,
    primal: HashMap<Val, Val>,
    tangent: HashMap<Val, Val>,
    blocks: HashMap<Block, Block>,
    exit_block: HashMap<Block, Block>,
    /// (source phi, primal phi, tangent phi) awaiting their incoming edges.
    pub(super) phis: Vec<(Val, Val, Option<Val>)>,
}

impl<'s> ForwardFn<'s> {
    pub(crate) fn new(session: &'s mut Session, job: &Job) -> ForwardFn<'s> {
        let src = job.key.function;
        let active = forward_activity(src, &job.key.activity, &session.opts);
        let b = Builder::new(session.module);
        ForwardFn {
            session,
            src,
            dst: job.derived,
            activity: job.key.activity.clone(),
            active,
            b,
            primal: HashMap::new(),
            tangent: HashMap::new(),
            blocks: HashMap::new(),
            exit_block: HashMap::new(),
            phis: Vec::new(),
        }
    }

    pub(crate) fn run(mut self) -> Result<()> {
        let order = reverse_post_order(self.src);
        let reachable: HashSet<Block> = order.iter().copied().collect();
        for b in self.src.blocks() {
            if reachable.contains(&b) {
                let nb = self.dst.append_block("");
                self.blocks.insert(b, nb);
            }
        }
        let mut dparams = self.dst.params().into_iter();
        for (p, a) in self.src.params().into_iter().zip(self.activity.clone()) {
            if let Some(dp) = dparams.next() {
                self.primal.insert(p, dp);
            }
            if a.has_shadow() {
                if let Some(dp) = dparams.next() {
                    self.tangent.insert(p, dp);
                }
            }
        }
        for b in order {
            self.b.position_at_end(self.blocks[&b]);
            for i in b.instructions() {
                self.b.set_fast_math_from(i);
                self.visit(i)?;
            }
            self.exit_block.insert(b, self.b.current_block());
        }
        self.fill_phis()
    }

    fn visit(&mut self, i: Val) -> Result<()> {
        use Opcode::*;
        match i.opcode() {
            LLVMPHI => self.visit_phi(i),
            LLVMRet => self.visit_ret(i),
            LLVMBr | LLVMSwitch | LLVMUnreachable => {
                self.clone_primal(i);
                Ok(())
            }
            LLVMCall => self.visit_call(i),
            LLVMAlloca => self.visit_alloca(i),
            LLVMLoad => self.visit_load(i),
            LLVMStore => self.visit_store(i),
            LLVMGetElementPtr => self.visit_gep(i),
            LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem => self.visit_float_binop(i),
            LLVMFNeg | LLVMFPExt | LLVMFPTrunc | LLVMBitCast | LLVMAddrSpaceCast | LLVMFreeze
            | LLVMIntToPtr | LLVMPtrToInt | LLVMTrunc | LLVMZExt | LLVMExtractValue
            | LLVMExtractElement => self.visit_structural(i, &[0]),
            LLVMInsertValue | LLVMInsertElement | LLVMShuffleVector => {
                self.visit_structural(i, &[0, 1])
            }
            LLVMSelect => self.visit_structural(i, &[1, 2]),
            LLVMShl | LLVMLShr | LLVMAShr | LLVMOr | LLVMAnd | LLVMXor => self.visit_bits(i),
            LLVMIndirectBr | LLVMInvoke | LLVMCallBr | LLVMResume | LLVMLandingPad
            | LLVMCleanupPad | LLVMCatchPad | LLVMCatchSwitch | LLVMCatchRet | LLVMCleanupRet => {
                Err(Error::at(
                    i,
                    "exception handling and indirect branches cannot be differentiated yet",
                ))
            }
            LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMVAArg => self.visit_inactive_only(i),
            _ => {
                // Integer arithmetic, comparisons, int<->float conversions: no derivative.
                self.clone_primal(i);
                Ok(())
            }
        }
    }

    /// Instructions Umbra copies but cannot differentiate: fine while no derivative flows in.
    fn visit_inactive_only(&mut self, i: Val) -> Result<()> {
        if i.operands().into_iter().any(|v| self.is_active(v)) {
            return Err(Error::at(
                i,
                "this instruction cannot be differentiated (atomic or va_arg on differentiable data)",
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

    /// The primal copy of source value `v` (constants map to themselves; values from
    /// unreachable code to poison).
    pub(super) fn map(&self, v: Val) -> Val {
        if let Some(&p) = self.primal.get(&v) {
            return p;
        }
        if v.is_block() {
            if let Some(nb) = self.blocks.get(&v.as_block()) {
                return nb.as_value();
            }
        }
        if v.is_instruction() || v.is_argument() {
            return v.ty().poison();
        }
        v
    }

    /// Records the primal copy of `v`.
    pub(super) fn set_primal(&mut self, v: Val, p: Val) {
        self.primal.insert(v, p);
    }

    /// The tangent (or shadow) of source value `v`, if it has one.
    pub(super) fn tangent(&self, v: Val) -> Option<Val> {
        self.tangent.get(&v).copied()
    }

    /// Records the tangent of `v` (ignored for `None`).
    pub(super) fn set_tangent(&mut self, v: Val, t: Option<Val>) {
        if let Some(t) = t {
            self.tangent.insert(v, t);
        }
    }

    /// The tangent of `v`, or zero of its type. Pointers without a shadow get a substitute
    /// (see [`ForwardFn::shadow_or_substitute`]); `at` is the instruction blamed on failure.
    pub(super) fn tangent_or_zero(&mut self, v: Val, at: Val) -> Result<Val> {
        if let Some(t) = self.tangent(v) {
            return Ok(t);
        }
        if v.ty().is_ptr() {
            return self.shadow_or_substitute(v, at);
        }
        Ok(v.ty().zero())
    }

    /// The shadow of pointer `v`, which must exist because `v` is active.
    pub(super) fn require_shadow(&mut self, v: Val, at: Val) -> Result<Val> {
        self.tangent(v)
            .map_or_else(|| self.shadow_or_substitute(v, at), Ok)
    }

    /// A shadow for pointer `v` where one is needed (a phi, select or store mixing it with
    /// shadowed pointers): its own shadow; null for null; poison for undef; a zero-filled copy
    /// for read-only globals. Anything else (a constant argument, a mutable global) is an error:
    /// there is no memory to hold its derivative.
    pub(super) fn shadow_or_substitute(&mut self, v: Val, at: Val) -> Result<Val> {
        if let Some(t) = self.tangent(v) {
            return Ok(t);
        }
        if v.is_null_constant() {
            return Ok(v);
        }
        if v.is_undef() {
            return Ok(v.ty().poison());
        }
        if let Some(s) = self.zero_shadow_of_constant_data(v) {
            return Ok(s);
        }
        Err(Error::at(
            at,
            format!(
                "pointer '{}' has no shadow memory (it is a constant argument or a mutable global) but flows where differentiable memory is expected; pass it as dup, or keep constant and differentiable pointers apart",
                short(v)
            ),
        ))
    }

    /// For a read-only global without pointers inside (or a constant GEP into one), the same
    /// address in a zero-filled copy.
    fn zero_shadow_of_constant_data(&mut self, v: Val) -> Option<Val> {
        if v.is_global_variable() {
            let ty = v.global_value_type();
            if v.is_global_constant() && !ty.contains_ptr() {
                return Some(self.session.zero_shadow_of_constant(v));
            }
            return None;
        }
        if v.is_constant_expr() && v.const_opcode() == Opcode::LLVMGetElementPtr {
            let base = self.zero_shadow_of_constant_data(v.operand(0))?;
            let idx: Vec<Val> = (1..v.num_operands()).map(|k| v.operand(k)).collect();
            return Some(Val::const_gep(v.gep_source_type(), base, &idx));
        }
        None
    }

    // ----- emission helpers -----

    /// Emits a copy of source instruction `i` with its operands mapped, and records it.
    pub(super) fn clone_primal(&mut self, i: Val) -> Val {
        let c = i.clone_instruction();
        for k in 0..i.num_operands() {
            c.set_operand(k, self.map(i.operand(k)));
        }
        self.b.insert(c);
        c.strip_metadata_except_tbaa();
        if !c.ty().is_void() {
            c.set_name(&i.name());
        }
        self.primal.insert(i, c);
        c
    }

    /// Emits a copy of `i`'s primal with operands `diff` replaced by their tangents (zero or a
    /// substitute shadow when inactive): the tangent of every instruction that is linear in
    /// those operands and merely moves or selects the rest (casts, aggregates, vectors, select,
    /// GEP and load on shadows).
    pub(super) fn emit_with_tangents(&mut self, i: Val, diff: &[u32]) -> Result<Val> {
        let p = self.map(i);
        let c = p.clone_instruction();
        for &k in diff {
            let t = self.tangent_or_zero(i.operand(k), i)?;
            c.set_operand(k, t);
        }
        self.b.insert(c);
        Ok(c)
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

    /// The block of the derived function where source block `b`'s code ends.
    pub(super) fn exit_block_of(&self, b: Block) -> Option<Block> {
        self.exit_block.get(&b).copied()
    }
}

/// A value's IR text, cut short for messages.
pub(super) fn short(v: Val) -> String {
    let s = v.print();
    if s.chars().count() > 80 {
        format!("{}...", s.chars().take(77).collect::<String>())
    } else {
        s
    }
}
