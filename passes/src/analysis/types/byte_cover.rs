//! Whether a byte-wise copy ([`super::bytes`]) moves whole floats. Reverse mode moves the
//! adjoint of every float a copied byte belongs to whole, since a byte of a double has no
//! adjoint of its own; that is exact only when the copy moves all of the float's bytes. A copy
//! that moves part of a float (a length that ends inside one, a start inside one: a generic
//! `copy(d, s, n)` called with `n = 12` on doubles) leaves a float whose bits come from two
//! values, which has no derivative to move: it is refused, never given a silently wrong one.
//!
//! [`coverage`] decides for each store of a copy, at compile time where the offsets are
//! constants:
//! - a store at constant offsets whose bytes cover every float they touch needs nothing;
//! - when all stores of one copy are at constant offsets in one block (a constant length clang
//!   unrolled at `-O2`), their union must cover every float they touch, or the copy is refused
//!   with a compile-time error;
//! - any other store (a loop whose bounds are values: `-O0` loops, the vectoriser's loops,
//!   lengths known only at run time, such as `n * sizeof(double)`) is checked while the
//!   derived code runs ([`Coverage::RunTime`], emitted by reverse mode's forward sweep): every
//!   float a store of the copy touches only in part must be completed by the next such stores
//!   of the same copy in the same call, bytes adjacent in either direction, from the same
//!   source float; otherwise the program stops with an error naming the copy. Proving the
//!   bounds of loops would spare that check only where it is cheap already next to the adjoint
//!   each copied byte costs, so loops are not analysed.
//!
//! What neither sees: a program that reads or writes a float between copying its first and
//! last bytes (copying half of a double, using it, copying the other half).

use super::bytes::{ByteCopy, ByteLayout, PARTIAL_ADVICE};
use crate::diag::{short, Error, Result};
use crate::ir::{Module, Opcode, Ty, Val};

/// How the forward sweep makes sure a byte-copying store moves whole floats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coverage {
    /// Every float the store touches is copied whole (by it, or with the other stores of its
    /// copy in the same block): nothing to check.
    Whole,
    /// Only the run time can tell: check the store's bytes when it runs.
    RunTime,
}

/// The floats, `(start, end, type)` in bytes from the copy's bases, that bytes `[x, x + w)` of
/// `layout` touch without covering them.
pub fn partial_floats(m: Module, layout: &ByteLayout, x: u64, w: u64) -> Vec<(u64, u64, Ty)> {
    let hi = x + w;
    let elements = match layout.stride {
        Some(s) if s > 0 => (x / s..=(hi - 1) / s).map(|e| e * s).collect(),
        _ => vec![0],
    };
    let mut out = Vec::new();
    for base in elements {
        for &(o, t) in &layout.floats {
            let (start, end) = (base + o, base + o + m.store_size(t));
            let touches = start < hi && end > x;
            if touches && (start < x || end > hi) {
                out.push((start, end, t));
            }
        }
    }
    out
}

/// The stores of `f` that copy bytes between the same two bases as `bc`, with their copies.
fn copies_like(f: Val, bc: &ByteCopy) -> Vec<(Val, ByteCopy)> {
    let mut out = Vec::new();
    for b in f.blocks() {
        for i in b.instructions() {
            if i.opcode() != Opcode::LLVMStore {
                continue;
            }
            if let Some(c) = super::bytes::byte_copy(i) {
                if (c.dst, c.src) == (bc.dst, bc.src) {
                    out.push((i, c));
                }
            }
        }
    }
    out
}

/// How the byte copy `bc` (performed by `store`, moving memory laid out as `layout`) is made
/// sure to move whole floats, or the compile-time error when it provably moves part of one.
pub fn coverage(m: Module, layout: &ByteLayout, store: Val, bc: &ByteCopy) -> Result<Coverage> {
    if bc.index.is_none() && partial_floats(m, layout, bc.offset, bc.width).is_empty() {
        return Ok(Coverage::Whole);
    }
    let Some(f) = store.parent_function() else {
        return Ok(Coverage::RunTime);
    };
    let copies = copies_like(f, bc);
    let block = store.parent_block();
    let fixed = copies
        .iter()
        .all(|(s, c)| c.index.is_none() && s.parent_block() == block);
    if !fixed {
        return Ok(Coverage::RunTime);
    }
    // All of the copy's stores run together: their union must cover each float they touch.
    let mut spans: Vec<(u64, u64)> = copies
        .iter()
        .map(|(_, c)| (c.offset, c.offset + c.width))
        .collect();
    spans.sort();
    let mut merged: Vec<(u64, u64)> = Vec::new();
    for (lo, hi) in spans {
        match merged.last_mut() {
            Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
            _ => merged.push((lo, hi)),
        }
    }
    for (s, c) in &copies {
        for (start, end, t) in partial_floats(m, layout, c.offset, c.width) {
            if !merged.iter().any(|&(lo, hi)| lo <= start && end <= hi) {
                let copied: Vec<String> = merged
                    .iter()
                    .filter(|&&(lo, hi)| lo < end && hi > start)
                    .map(|&(lo, hi)| format!("{}..{}", lo.max(start), hi.min(end)))
                    .collect();
                return Err(partial_error(*s, c, t, (start, end), &copied.join(", ")));
            }
        }
    }
    Ok(Coverage::Whole)
}

/// The compile-time error for a copy that moves only bytes `copied` of the `t` at bytes
/// `start..end` of the memory it copies.
fn partial_error(
    store: Val,
    bc: &ByteCopy,
    t: Ty,
    (start, end): (u64, u64),
    copied: &str,
) -> Error {
    let t = t.print();
    Error::at(
        store,
        format!(
            "copies only part of a {t} byte by byte ('{}', {}): bytes {copied} of the {t} at bytes {start}..{end} of the copied memory; {PARTIAL_ADVICE}",
            short(bc.load),
            bc.load.ty().print(),
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::types::{analyze, bytes};
    use crate::ir::parse_test_module;

    #[test]
    fn constant_copies_are_judged_here_and_loops_at_run_time() {
        // Unrolled copies of two doubles: all 16 bytes, or 12 of them (an i64 and an i32);
        // and a byte loop whose bounds are values.
        let ctx = inkwell::context::Context::create();
        let llm = parse_test_module(
            &ctx,
            r#"
            define internal void @whole(ptr %d, ptr %s) {
              %a = load i64, ptr %s
              store i64 %a, ptr %d
              %s8 = getelementptr inbounds i8, ptr %s, i64 8
              %b = load i64, ptr %s8
              %d8 = getelementptr inbounds i8, ptr %d, i64 8
              store i64 %b, ptr %d8
              ret void
            }
            define internal void @twelve(ptr %d, ptr %s) {
              %a = load i64, ptr %s
              store i64 %a, ptr %d
              %s8 = getelementptr inbounds i8, ptr %s, i64 8
              %b = load i32, ptr %s8
              %d8 = getelementptr inbounds i8, ptr %d, i64 8
              store i32 %b, ptr %d8
              ret void
            }
            define internal void @loop(ptr %d, ptr %s, i64 %n) {
            entry:
              br label %loop
            loop:
              %k = phi i64 [ 0, %entry ], [ %k1, %loop ]
              %ps = getelementptr inbounds i8, ptr %s, i64 %k
              %b = load i8, ptr %ps
              %pd = getelementptr inbounds i8, ptr %d, i64 %k
              store i8 %b, ptr %pd
              %k1 = add i64 %k, 1
              %more = icmp ult i64 %k1, %n
              br i1 %more, label %loop, label %done
            done:
              ret void
            }
            define double @f(ptr %in, i64 %n) {
              %t = alloca [2 x double]
              call void @whole(ptr %t, ptr %in)
              call void @twelve(ptr %t, ptr %in)
              call void @loop(ptr %t, ptr %in, i64 %n)
              %v = load double, ptr %t
              %p1 = getelementptr inbounds double, ptr %t, i64 1
              %w = load double, ptr %p1
              %r = fadd double %v, %w
              ret double %r
            }
            "#,
        );
        let m = Module(llm.as_mut_ptr());
        let funcs: Vec<Val> = m
            .functions()
            .into_iter()
            .filter(|f| !f.is_declaration())
            .collect();
        let results = analyze(m, &funcs, crate::rules::type_seed, Vec::new());
        let info = results.view(0);
        let judge = |name: &str, block: usize, k: usize| {
            let store = m.function(name).unwrap().blocks()[block].instructions()[k];
            let bc = bytes::byte_copy(store).expect("a byte copy");
            let layout = bytes::byte_layout(info, m, store, &bc).unwrap();
            assert_eq!(layout.floats.len(), 2, "{name}");
            coverage(m, &layout, store, &bc)
        };
        assert_eq!(judge("whole", 0, 1), Ok(Coverage::Whole));
        assert_eq!(judge("whole", 0, 5), Ok(Coverage::Whole));
        // The i64 moves a whole double, but its partner leaves the second one half copied.
        assert_eq!(judge("twelve", 0, 1), Ok(Coverage::Whole));
        let err = judge("twelve", 0, 5).unwrap_err().to_string();
        assert!(
            err.contains("bytes 8..12 of the double at bytes 8..16"),
            "{err}"
        );
        assert_eq!(judge("loop", 1, 4), Ok(Coverage::RunTime));
    }
}
