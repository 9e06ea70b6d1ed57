//! Adjoints of memory instructions: loads add into the shadow, stores move the shadow's
//! adjoint to the stored value and clear it, byte-wise copies move whole floats; frees deferred
//! to the adjoint sweep.

use super::*;

impl AdjointFn<'_> {
    /// `v = load p`: the shadow at `p` receives `v`'s adjoint.
    pub(super) fn reverse_load(&mut self, i: Val) -> Result<()> {
        let Some(d) = self.take_adjoint(i) else {
            return Ok(());
        };
        let sp = self.shadow(i.operand(0), i)?;
        if self.session.runs_in_parallel(self.src) && !crate::openmp::thread_private(i.operand(0)) {
            // Other threads may add into the same adjoint.
            return crate::reverse::parallel::atomic_add(&mut self.b, sp, d, i);
        }
        let align = i.alignment();
        let cur = self.b.load(d.ty(), sp, align);
        let sum = add_values(&mut self.b, cur, d);
        self.b.store(sum, sp, align);
        Ok(())
    }

    /// `store v, p`: `v` receives the adjoint waiting at `p`, which the store overwrote, and
    /// that shadow is cleared.
    pub(super) fn reverse_store(&mut self, i: Val) -> Result<()> {
        let (v, p) = (i.operand(0), i.operand(1));
        // A pointer, also one stored as an integer, has no adjoint; its shadow stays.
        let pointer =
            v.ty().contains_ptr() || crate::reverse::augmented::pointer_as_integer(v).is_some();
        if !self.is_active(p) || pointer {
            return Ok(());
        }
        if crate::reverse::augmented::is_integer_data(v.ty()) {
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
    /// touch moves whole from the destination's shadow into the source's ([`crate::reverse::bytes`]).
    /// Pointer and integer bytes keep their shadows, as after a memcpy.
    pub(super) fn reverse_byte_copy(&mut self, i: Val, bc: &ByteCopy) -> Result<()> {
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
        let x = crate::reverse::bytes::position(&mut self.b, m, bc, index);
        let w = Ty::int(m.context(), 64).int_const(bc.width);
        let helper = crate::reverse::bytes::helper(m, &layout, ByteOp::Transfer);
        self.b.call_function(helper, &[sd, ss, x, w]);
        Ok(())
    }

    /// A free the augmented sweep left out: the block is released when this adjoint exits,
    /// after every re-read of it, with the deallocator the primal called.
    pub(super) fn defer_free(&mut self, i: Val) -> Result<()> {
        let dealloc = crate::rules::alloc::pointer_only_deallocator(i);
        let (Some(dealloc), Some(&arg)) = (dealloc, i.call_args().first()) else {
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
    pub(super) fn deferred_list(&mut self) -> Val {
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

    pub(super) fn free(&mut self, p: Val) {
        let m = self.session.module;
        let ctx = m.context();
        let ptr = Ty::ptr(ctx);
        let free = m.get_or_add_function("free", Ty::function(Ty::void(ctx), &[ptr], false));
        self.b.call_function(free, &[p]);
    }
}
