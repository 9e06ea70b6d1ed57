//! Run-time checks that byte-wise copies move whole floats, where the type analysis cannot tell
//! at compile time ([`Coverage::RunTime`](crate::analysis::types::byte_cover::Coverage)): the
//! adjoint moves each float a copied byte touches whole ([`super::bytes`]), which is only right
//! when the copy moves all of its bytes.
//!
//! The forward sweep keeps, per copy (pair of bases) and per call, the one float that copy has
//! so far copied only part of: its bytes `[start, end)` and the part copied `[lo, hi)`, as
//! addresses in the destination, and where the source is relative to the destination. Each
//! store of the copy that touches a float only in part must extend that part (the next bytes
//! up, or the next ones down for a copy running backwards) of the same float from the same
//! source float, or start one when none is open; a float whose bytes are all copied closes.
//! Anything else, and a float still open when the function returns, stops the program with an
//! error naming the copy and its source location. Stores that cover the floats they touch
//! leave the record alone. The helpers are plain IR on integers, run in the primal only when
//! derived code is differentiated again ([`crate::rules::inactive::CHECK_PREFIX`]).

use super::bytes::for_each_touched;
use crate::analysis::types::bytes::{ByteCopy, ByteLayout, PARTIAL_ADVICE};
use crate::diag::Location;
use crate::ir::{Builder, IntPred, Module, Opcode, Ty, Val};
use crate::rules::inactive::CHECK_PREFIX;

/// The fields of a copy's record (`[5 x i64]`).
const START: u64 = 0;
/// The open float's end; 0 when no float is open.
const END: u64 = 1;
const LO: u64 = 2;
const HI: u64 = 3;
/// Source address minus destination address.
const DELTA: u64 = 4;
const FIELDS: u64 = 5;

/// The records of one derived function's checked copies.
#[derive(Default)]
pub(super) struct ByteChecks {
    /// In the order the copies were met (so that the derived code does not depend on hashing).
    copies: Vec<Record>,
}

/// One checked copy.
#[derive(Clone, Copy)]
struct Record {
    /// Its destination and source bases.
    bases: (Val, Val),
    /// Its `[5 x i64]` on the stack.
    at: Val,
    /// The text of its run-time error, and the text's length.
    text: Val,
    len: u64,
}

impl ByteChecks {
    /// After store `store` of copy `bc` (memory laid out as `layout`) in derived function `f`:
    /// `pd` and `ps` are the primal addresses it wrote and read, `x` their position in the
    /// layout.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check(
        &mut self,
        b: &mut Builder,
        f: Val,
        layout: &ByteLayout,
        store: Val,
        bc: &ByteCopy,
        pd: Val,
        ps: Val,
        x: Val,
    ) {
        let m = b.module();
        let bases = (bc.dst, bc.src);
        let r = match self.copies.iter().find(|r| r.bases == bases) {
            Some(&r) => r,
            None => {
                let r = new_record(b, f, store, bases);
                self.copies.push(r);
                r
            }
        };
        let i64t = Ty::int(m.context(), 64);
        let a = b.cast(Opcode::LLVMPtrToInt, pd, i64t);
        let s = b.cast(Opcode::LLVMPtrToInt, ps, i64t);
        let delta = b.sub(s, a);
        let w = i64t.int_const(bc.width);
        let len = m.intptr_ty().int_const(r.len);
        let helper = store_helper(m, layout);
        b.call_function(helper, &[r.at, a, delta, x, w, r.text, len]);
    }

    /// Before each return of derived function `f`: no copy may have a float left open.
    pub(super) fn finish(&self, b: &mut Builder, f: Val) {
        if self.copies.is_empty() {
            return;
        }
        let m = b.module();
        let helper = end_helper(m);
        let rets: Vec<Val> = f
            .blocks()
            .into_iter()
            .filter_map(|blk| blk.terminator())
            .filter(|t| t.opcode() == Opcode::LLVMRet)
            .collect();
        for ret in rets {
            b.position_before(ret);
            for r in &self.copies {
                let len = m.intptr_ty().int_const(r.len);
                b.call_function(helper, &[r.at, r.text, len]);
            }
        }
    }
}

/// A copy's record, allocated and closed at the start of `f`, and the text of its error.
fn new_record(b: &mut Builder, f: Val, store: Val, bases: (Val, Val)) -> Record {
    let m = b.module();
    let i64t = Ty::int(m.context(), 64);
    let here = b.current_block();
    let entry = f.entry_block();
    match entry.first_instruction() {
        Some(first) => b.position_before(first),
        None => b.position_at_end(entry),
    }
    let record = b.alloca(Ty::array(i64t, FIELDS), "bytes.check");
    let end = field(b, record, END);
    b.store(i64t.zero(), end, 8);
    b.position_at_end(here);
    let message = format!(
        "error: {}this byte-wise copy copied only part of a floating-point value (or a float's bytes out of order); {PARTIAL_ADVICE}",
        Location::of_instruction(store),
    );
    let (text, len) = crate::unwind::fatal_text(m, &message);
    Record {
        bases,
        at: record,
        text,
        len,
    }
}

/// The address of field `k` of a record.
fn field(b: &mut Builder, record: Val, k: u64) -> Val {
    let i64t = Ty::int(b.module().context(), 64);
    b.gep(i64t, record, &[i64t.int_const(k)], false)
}

/// `void umbra.check.bytes.<layout>(ptr record, i64 a, i64 delta, i64 x, i64 w, ptr text,
/// intptr len)`: the bytes `[x, x + w)` of the layout, at address `a` in the destination
/// and `a + delta` in the source, were just copied; updates the record of the float copied in
/// part, or prints `text` and aborts.
fn store_helper(m: Module, layout: &ByteLayout) -> Val {
    let desc: String = layout
        .floats
        .iter()
        .map(|(o, t)| format!(".{o}{}", t.print()))
        .collect();
    let period = layout.stride.map_or("exact".to_string(), |s| s.to_string());
    let name = format!("{CHECK_PREFIX}bytes.{period}{desc}");
    if let Some(f) = m.function(&name) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i64t, intptr) = (Ty::ptr(ctx), Ty::int(ctx, 64), m.intptr_ty());
    let params = [ptr, i64t, i64t, i64t, i64t, ptr, intptr];
    let f = m.add_function(&name, Ty::function(Ty::void(ctx), &params, false));
    f.set_internal();
    let p = f.params();
    let (record, a, delta, x, w, text, len) = (p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let fail = f.append_block("partial");
    b.position_at_end(fail);
    crate::unwind::emit_fatal_text(&mut b, text, len);
    b.unreachable();
    b.position_at_end(entry);
    let hi = b.add(x, w);
    for_each_touched(
        &mut b,
        f,
        layout.stride,
        &layout.floats,
        x,
        w,
        |b, start, end, _, next| {
            let starts_before = b.icmp(IntPred::LLVMIntULT, start, x);
            let ends_after = b.icmp(IntPred::LLVMIntUGT, end, hi);
            let partial = b.binop(Opcode::LLVMOr, starts_before, ends_after);
            let update = f.append_block("part");
            b.cond_br(partial, update, next);
            b.position_at_end(update);
            // The float and the part copied now, as destination addresses.
            let fs = b.sub(start, x);
            let fs = b.add(a, fs);
            let size = b.sub(end, start);
            let fe = b.add(fs, size);
            let p = b.select(starts_before, x, start);
            let p = b.sub(p, x);
            let p = b.add(a, p);
            let q = b.select(ends_after, hi, end);
            let q = b.sub(q, x);
            let q = b.add(a, q);
            let [s0, e0, lo0, hi0, d0] = [START, END, LO, HI, DELTA].map(|k| {
                let at = field(b, record, k);
                b.load(i64t, at, 8)
            });
            let open = b.icmp(IntPred::LLVMIntNE, e0, i64t.zero());
            let same_float = b.icmp(IntPred::LLVMIntEQ, s0, fs);
            let same_source = b.icmp(IntPred::LLVMIntEQ, d0, delta);
            let same = b.binop(Opcode::LLVMAnd, same_float, same_source);
            let up = b.icmp(IntPred::LLVMIntEQ, hi0, p);
            let up = b.binop(Opcode::LLVMAnd, same, up);
            let down = b.icmp(IntPred::LLVMIntEQ, lo0, q);
            let down = b.binop(Opcode::LLVMAnd, same, down);
            let fresh = b.icmp(IntPred::LLVMIntEQ, e0, i64t.zero());
            let follows = b.binop(Opcode::LLVMOr, up, down);
            let ok = b.binop(Opcode::LLVMOr, fresh, follows);
            let set = f.append_block("extend");
            b.cond_br(ok, set, fail);
            b.position_at_end(set);
            let extends_up = b.binop(Opcode::LLVMAnd, open, up);
            let new_lo = b.select(extends_up, lo0, p);
            let not_up = b.icmp(IntPred::LLVMIntEQ, extends_up, Ty::int(ctx, 1).zero());
            let extends_down = b.binop(Opcode::LLVMAnd, open, not_up);
            let new_hi = b.select(extends_down, hi0, q);
            let whole_lo = b.icmp(IntPred::LLVMIntEQ, new_lo, fs);
            let whole_hi = b.icmp(IntPred::LLVMIntEQ, new_hi, fe);
            let whole = b.binop(Opcode::LLVMAnd, whole_lo, whole_hi);
            let new_end = b.select(whole, i64t.zero(), fe);
            for (k, v) in [
                (START, fs),
                (END, new_end),
                (LO, new_lo),
                (HI, new_hi),
                (DELTA, delta),
            ] {
                let at = field(b, record, k);
                b.store(v, at, 8);
            }
            b.br(next);
        },
    );
    b.ret_void();
    f
}

/// `void umbra.check.bytes.end(ptr record, ptr text, intptr len)`: a copy's function returns;
/// prints `text` and aborts when the copy left a float copied in part.
fn end_helper(m: Module) -> Val {
    let name = format!("{CHECK_PREFIX}bytes.end");
    if let Some(f) = m.function(&name) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i64t, intptr) = (Ty::ptr(ctx), Ty::int(ctx, 64), m.intptr_ty());
    let f = m.add_function(
        &name,
        Ty::function(Ty::void(ctx), &[ptr, ptr, intptr], false),
    );
    f.set_internal();
    let p = f.params();
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let fail = f.append_block("partial");
    let done = f.append_block("done");
    b.position_at_end(entry);
    let at = field(&mut b, p[0], END);
    let e = b.load(i64t, at, 8);
    let open = b.icmp(IntPred::LLVMIntNE, e, i64t.zero());
    b.cond_br(open, fail, done);
    b.position_at_end(fail);
    crate::unwind::emit_fatal_text(&mut b, p[1], p[2]);
    b.unreachable();
    b.position_at_end(done);
    b.ret_void();
    f
}
