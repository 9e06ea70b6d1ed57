//! Adjoints of memory instructions: loads add into the shadow, stores move the shadow's
//! adjoint to the stored value and clear it, byte-wise copies move whole floats; frees deferred
//! to the adjoint sweep.

use super::*;
use crate::reverse::partial_sums;

impl AdjointFn<'_> {
    /// `v = load p`: the shadow at `p` receives `v`'s adjoint.
    pub(super) fn reverse_load(&mut self, i: Val) -> Result<()> {
        let Some(d) = self.take_adjoint(i) else {
            return Ok(());
        };
        let sp = self.shadow(i.operand(0), i)?;
        if self.session.runs_in_parallel(self.src) && !crate::openmp::thread_private(i.operand(0)) {
            use partial_sums::LoadAdjoint;
            match partial_sums::load_adjoint(i, &self.session.rules) {
                // Other threads may add into the same adjoint.
                LoadAdjoint::Atomic => {
                    if self.reads_unwritten(i, d.ty()) {
                        return self.add_to_table(sp, d);
                    }
                    return crate::reverse::parallel::atomic_add(&mut self.b, sp, d, i);
                }
                LoadAdjoint::Private(p, off) => return self.add_privately(p, off, d),
                // No other thread touches this adjoint meanwhile: a plain add, below.
                LoadAdjoint::Plain => {}
            }
        }
        let align = i.alignment();
        let cur = self.b.load(d.ty(), sp, align);
        let sum = add_values(&mut self.b, cur, d);
        self.b.store(sum, sp, align);
        Ok(())
    }

    /// Adds `d` into this thread's private sum of the adjoint of the variable the region
    /// shares read-only through parameter `p`, `offset` bytes into it (a slot zeroed in the
    /// entry block).
    fn add_privately(&mut self, p: Val, offset: u64, d: Val) -> Result<()> {
        let t = d.ty();
        let found = self
            .private_sums
            .iter()
            .find(|s| s.0 == p && s.1 == offset && s.2 == t);
        let slot = match found {
            Some(s) => s.3,
            None => {
                let here = self.b.current_block();
                if let Some(end) = self.entry_end {
                    self.b.position_before(end);
                }
                let s = self.b.alloca(t, "private.sum");
                self.b.store(t.zero(), s, 0);
                self.b.position_at_end(here);
                self.private_sums.push((p, offset, t, s));
                s
            }
        };
        let cur = self.b.load(t, slot, 0);
        let sum = add_values(&mut self.b, cur, d);
        self.b.store(sum, slot, 0);
        Ok(())
    }

    /// True when `load`, in an outlined function, reads memory its region never writes
    /// ([`partial_sums::unwritten_memory`]) and its adjoint (of type `t`) is summable there.
    fn reads_unwritten(&mut self, load: Val, t: Ty) -> bool {
        let e = if t.is_vector() { t.element() } else { t };
        if !partial_sums::summable(e) {
            return false;
        }
        if self.unwritten.is_none() {
            let w = partial_sums::unwritten_memory(self.src, &self.session.rules);
            self.unwritten = Some(w);
        }
        match &self.unwritten {
            Some(Some(written)) => partial_sums::reads_unwritten(load, written),
            _ => false,
        }
    }

    /// `*sp += d` through this thread's table of sums (lane by lane for vectors).
    fn add_to_table(&mut self, sp: Val, d: Val) -> Result<()> {
        let t = d.ty();
        let e = if t.is_vector() { t.element() } else { t };
        let table = match self.sum_tables.iter().find(|s| s.0 == e) {
            Some(s) => s.1,
            None => {
                let here = self.b.current_block();
                if let Some(end) = self.entry_end {
                    self.b.position_before(end);
                }
                let table = partial_sums::new_table(&mut self.b);
                self.b.position_at_end(here);
                self.sum_tables.push((e, table));
                table
            }
        };
        if !t.is_vector() {
            return partial_sums::add(&mut self.b, table, sp, d);
        }
        let i64t = Ty::int(e.context(), 64);
        for k in 0..t.vector_len() {
            let lane = self.b.extract_lane(d, k);
            let p = self.b.gep(e, sp, &[i64t.int_const(k as u64)], true);
            partial_sums::add(&mut self.b, table, p, lane)?;
        }
        Ok(())
    }

    /// At the adjoint's exit, every private sum is added, atomically (the other threads add
    /// theirs), into the shadow of the variable it belongs to.
    pub(super) fn flush_private_sums(&mut self) -> Result<()> {
        for (p, offset, t, slot) in std::mem::take(&mut self.private_sums) {
            let Some(&sp) = self.arg_shadows.get(&p) else {
                return Err(internal(
                    p,
                    "a variable shared read-only with a parallel region has no shadow parameter",
                ));
            };
            let i64t = Ty::int(self.session.module.context(), 64);
            let sp = match offset {
                0 => sp,
                _ => self.b.gep(
                    Ty::int(i64t.context(), 8),
                    sp,
                    &[i64t.int_const(offset)],
                    true,
                ),
            };
            let sum = self.b.load(t, slot, 0);
            crate::reverse::parallel::atomic_add(&mut self.b, sp, sum, p)?;
        }
        for (t, table) in std::mem::take(&mut self.sum_tables) {
            partial_sums::flush(&mut self.b, table, t);
        }
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
