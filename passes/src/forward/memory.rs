//! Tangents through memory: every active pointer has a shadow pointer to memory laid out like
//! the primal's, holding tangents where the primal holds floats. Loads read the shadow, stores
//! write it, allocas get a zeroed shadow alloca, GEPs offset the shadow like the primal.

use super::function::ForwardFn;
use crate::diag::{Error, Result};
use crate::ir::Val;
use crate::rules::user::is_inactive_memory;

impl ForwardFn<'_> {
    /// `alloca`: a shadow alloca of the same type, zeroed so that bytes never written by the
    /// primal read as zero tangents.
    pub(super) fn visit_alloca(&mut self, i: Val) -> Result<()> {
        let p = self.clone_primal(i);
        if !self.is_active(i) {
            return Ok(());
        }
        let module = self.b.module();
        let elem = module.alloc_size(i.allocated_type());
        let intptr = module.intptr_ty();
        let count = self.map(i.operand(0));
        let count = self.b.zext_or_trunc(count, intptr);
        let size = intptr.int_const(elem);
        let bytes = self.b.mul(count, size);
        // Batched: one shadow per lane.
        let mut lanes = Vec::with_capacity(self.width as usize);
        for _ in 0..self.width {
            let shadow = p.clone_instruction();
            self.b.insert(shadow);
            self.b.memset_zero(shadow, bytes, p.alignment());
            lanes.push(shadow);
        }
        let shadow = self.gather(lanes);
        self.set_tangent(i, Some(shadow));
        Ok(())
    }

    /// `load`: the tangent is the same load from the shadow.
    pub(super) fn visit_load(&mut self, i: Val) -> Result<()> {
        self.clone_primal(i);
        if self.is_active(i) {
            let t = self.emit_with_tangents(i, &[0])?;
            self.set_tangent(i, Some(t));
        }
        Ok(())
    }

    /// `store`: the value's tangent goes to the shadow. Storing a differentiable value into
    /// memory without a shadow would lose its derivative, so that is an error. A store into
    /// the memory of an `enzyme_dupnoneed` parameter writes the shadow only (as in Enzyme, whose
    /// users pass a dummy primal there); the primal computation feeding it is left to dead-code
    /// elimination.
    pub(super) fn visit_store(&mut self, i: Val) -> Result<()> {
        if self.primal_not_needed(i.operand(1)) && self.tangent(i.operand(1)).is_some() {
            let value = self.tangent_or_zero(i.operand(0), i)?;
            let shadow = self.tangent_or_zero(i.operand(1), i)?;
            for l in 0..self.width {
                let (v, p) = (self.lane(value, l), self.lane(shadow, l));
                let st = self.b.store(v, p, i.alignment());
                st.copy_debug_location(i);
            }
            return Ok(());
        }
        self.clone_primal(i);
        let (value, ptr) = (i.operand(0), i.operand(1));
        match self.tangent(ptr) {
            Some(_) => {
                self.emit_lanes(i, &[0, 1])?;
            }
            // An integer TBAA types as integer data (a counter) holds no float bits.
            None if self.tangent(value).is_some()
                && !(value.is_instruction()
                    && value.opcode() == crate::ir::Opcode::LLVMLoad
                    && crate::analysis::types::bytes::integer_tbaa(value))
                && !is_inactive_memory(ptr, &self.session.rules) =>
            {
                return Err(Error::at(
                    i,
                    format!(
                        "stores a value with a derivative into memory without a shadow {}",
                        crate::diag::why_no_shadow(ptr)
                    ),
                ));
            }
            None => {}
        }
        Ok(())
    }

    /// `getelementptr`: the same offset from the shadow base.
    pub(super) fn visit_gep(&mut self, i: Val) -> Result<()> {
        self.clone_primal(i);
        if self.is_active(i) {
            let t = self.emit_with_tangents(i, &[0])?;
            self.set_tangent(i, Some(t));
        }
        Ok(())
    }
}
