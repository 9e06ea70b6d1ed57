//! The shadow side of byte-wise copies ([`crate::analysis::types::bytes`]): helpers that act on
//! every float (or pointer) of a [`ByteLayout`] that the bytes `[x, x + w)` of a copy touch.
//!
//! The augmented sweep copies the shadow bytes of pointers (later loads of the pointer must find
//! its shadow); float bytes there are adjoint accumulators and stay. The adjoint sweep moves the
//! adjoint of each float the bytes touch, whole: `t = dst; dst = 0; src += t` (in that order, so
//! a copy onto itself keeps its adjoint). The other bytes of the same float, copied by other
//! stores of the same copy, find the destination's adjoint already moved and move zero. That
//! the copy moves all of the float's bytes is made sure of before
//! ([`crate::analysis::types::byte_cover`], [`super::byte_check`]).

use crate::analysis::types::bytes::{ByteCopy, ByteLayout};
use crate::ir::{Block, Builder, IntPred, Module, Opcode, Ty, Val};

/// What a helper does at each slot the bytes touch.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ByteOp {
    /// Pointers: copy the touched shadow bytes from the source.
    CopyShadow,
    /// Floats: move the destination's adjoint into the source's.
    Transfer,
}

/// The copy's position in its layout at run time: `index + offset`, as an `i64`.
pub(super) fn position(b: &mut Builder, m: Module, bc: &ByteCopy, index: Option<Val>) -> Val {
    let i64t = Ty::int(m.context(), 64);
    let off = i64t.int_const(bc.offset);
    match index {
        Some(x) => {
            let x = b.sext_or_trunc(x, i64t);
            b.add(x, off)
        }
        None => off,
    }
}

/// `void umbra.bytes.<op>.<layout>(ptr dst, ptr src, i64 x, i64 w)`: `dst` and `src` point at
/// the bytes at position `x` of the layout; applies `op` to each slot overlapping
/// `[x, x + w)`. Plain IR, so it can be differentiated again.
pub(super) fn helper(m: Module, layout: &ByteLayout, op: ByteOp) -> Val {
    let ctx = m.context();
    let ptr_ty = Ty::ptr(ctx);
    let slots: Vec<(u64, Ty)> = match op {
        ByteOp::CopyShadow => layout.pointers.iter().map(|&o| (o, ptr_ty)).collect(),
        ByteOp::Transfer => layout.floats.clone(),
    };
    let desc: String = slots
        .iter()
        .map(|(o, t)| format!(".{o}{}", t.print()))
        .collect();
    let kind = match op {
        ByteOp::CopyShadow => "shadow",
        ByteOp::Transfer => "adjoint",
    };
    let period = layout.stride.map_or("exact".to_string(), |s| s.to_string());
    let name = format!("umbra.bytes.{kind}.{period}{desc}");
    if let Some(f) = m.function(&name) {
        return f;
    }
    let (i8t, i64t) = (Ty::int(ctx, 8), Ty::int(ctx, 64));
    let f = m.add_function(
        &name,
        Ty::function(Ty::void(ctx), &[ptr_ty, ptr_ty, i64t, i64t], false),
    );
    f.set_internal();
    let [dst, src, x, w] = [f.params()[0], f.params()[1], f.params()[2], f.params()[3]];
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    b.position_at_end(entry);
    for_each_touched(
        &mut b,
        f,
        layout.stride,
        &slots,
        x,
        w,
        |b, start, end, t, next| {
            match op {
                ByteOp::Transfer => {
                    let rel = b.sub(start, x);
                    let pd = b.gep(i8t, dst, &[rel], false);
                    let ps = b.gep(i8t, src, &[rel], false);
                    let moved = b.load(t, pd, 1);
                    b.store(t.zero(), pd, 1);
                    let cur = b.load(t, ps, 1);
                    let sum = b.fadd(cur, moved);
                    b.store(sum, ps, 1);
                    b.br(next);
                }
                ByteOp::CopyShadow => {
                    // The touched bytes of the pointer: [max(start, x), min(end, hi)).
                    let slot = b.current_block();
                    let hi = b.add(x, w);
                    let lo_gt = b.icmp(IntPred::LLVMIntUGT, start, x);
                    let lo = b.select(lo_gt, start, x);
                    let up_lt = b.icmp(IntPred::LLVMIntULT, end, hi);
                    let up = b.select(up_lt, end, hi);
                    let copy = f.append_block("byte");
                    b.br(copy);
                    b.position_at_end(copy);
                    let j = b.phi(i64t);
                    let rel = b.sub(j, x);
                    let ps = b.gep(i8t, src, &[rel], false);
                    let pd = b.gep(i8t, dst, &[rel], false);
                    let byte = b.load(i8t, ps, 1);
                    b.store(byte, pd, 1);
                    let j1 = b.add(j, i64t.int_const(1));
                    let more = b.icmp(IntPred::LLVMIntULT, j1, up);
                    b.cond_br(more, copy, next);
                    j.add_incoming(lo, slot);
                    j.add_incoming(j1, copy);
                }
            }
        },
    );
    b.ret_void();
    f
}

/// Emits into `f`, from the builder's block on, a loop over the elements of a layout with
/// period `stride` (`None`: one pass over exact offsets) that the bytes `[x, x + w)` touch
/// (positions in the layout, `i64`), calling `slot(b, start, end, t, next)` in a block of its
/// own for each of `slots` (offset in the period, type) those bytes touch: `start` and `end`
/// are the slot's bytes as positions, and `slot` must end its blocks with a branch to `next`.
/// Leaves the builder at the end of the block after the loop.
pub(super) fn for_each_touched(
    b: &mut Builder,
    f: Val,
    stride: Option<u64>,
    slots: &[(u64, Ty)],
    x: Val,
    w: Val,
    mut slot: impl FnMut(&mut Builder, Val, Val, Ty, Block),
) {
    let m = b.module();
    let i64t = Ty::int(m.context(), 64);
    let entry = b.current_block();
    let body = f.append_block("element");
    let done = f.append_block("done");
    let hi = b.add(x, w);
    // The elements of the period the bytes touch (one pass over exact offsets).
    let (first, last) = match stride {
        Some(s) => {
            let s = i64t.int_const(s);
            let first = b.binop(Opcode::LLVMUDiv, x, s);
            let end = b.sub(hi, i64t.int_const(1));
            (first, b.binop(Opcode::LLVMUDiv, end, s))
        }
        None => (i64t.zero(), i64t.zero()),
    };
    b.br(body);
    b.position_at_end(body);
    let e = b.phi(i64t);
    let base = b.mul(e, i64t.int_const(stride.unwrap_or(0)));
    for &(o, t) in slots {
        let start = b.add(base, i64t.int_const(o));
        let end = b.add(start, i64t.int_const(m.store_size(t)));
        let before_hi = b.icmp(IntPred::LLVMIntULT, start, hi);
        let after_lo = b.icmp(IntPred::LLVMIntUGT, end, x);
        let touches = b.binop(Opcode::LLVMAnd, before_hi, after_lo);
        let here = f.append_block("slot");
        let next = f.append_block("next");
        b.cond_br(touches, here, next);
        b.position_at_end(here);
        slot(b, start, end, t, next);
        b.position_at_end(next);
    }
    let latch = b.current_block();
    let e1 = b.add(e, i64t.int_const(1));
    let more = b.icmp(IntPred::LLVMIntULE, e1, last);
    b.cond_br(more, body, done);
    e.add_incoming(first, entry);
    e.add_incoming(e1, latch);
    b.position_at_end(done);
}
