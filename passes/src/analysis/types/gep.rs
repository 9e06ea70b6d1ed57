//! The transfer function of `getelementptr`: what a field or element address and its base
//! tell each other, at exact offsets, at a few bounded ones, or in a repeating pattern.

use super::seeds::type_tree;
use super::transfer::Analysis;
use super::tree::{self, Kind, Tree};
use crate::analysis::indices::Indices;
use crate::ir::{Opcode, Ty, TyKind, Val};
use std::collections::HashSet;

/// A variable GEP index bounded to at most this many values has exact offsets
/// ([`Analysis::bounded_index`]); a wider one is taken as walking a repeating array.
const MAX_BOUNDED_INDICES: u64 = 32;

/// True for a type whose values end at its size: not empty, and not a struct ending in an
/// array of length 0 (a flexible array member, which runs past it).
fn bounded_type(t: Ty) -> bool {
    match t.kind() {
        TyKind::Struct => t
            .struct_fields()
            .last()
            .is_some_and(|&f| !(f.kind() == TyKind::Array && f.array_len() == 0)),
        TyKind::Array => t.array_len() > 0,
        _ => true,
    }
}

impl Analysis {
    pub(super) fn gep(&mut self, g: Val) {
        let m = self.m;
        let base = g.operand(0);
        let src = g.gep_source_type();
        // Struct and array source types describe the memory (as accesses would).
        if matches!(src.kind(), TyKind::Struct | TyKind::Array) {
            let t = type_tree(m, src);
            self.add_pointee(base, t);
        }
        // The offset: a constant part, plus a multiple of the element size when the first
        // index varies (an unbounded array), plus bounded multiples for variable indices into
        // arrays inside the element.
        let mut ty = src;
        let mut off = 0u64;
        let mut outer = None;
        let mut inner: Vec<(u64, u64)> = Vec::new();
        let elem = m.alloc_size(ty);
        match g.operand(1).const_int_sext() {
            // A pointer walking an array (`p = phi [x, %start], [p + c, %loop]`, as -O1
            // writes `for (; p != end; ++p)`) sees what repeats every `c` bytes; taking the
            // constant offset as exact would move what it sees `c` bytes up each round, and
            // the analysis would climb to its offset bound instead of settling.
            Some(k) if k > 0 && g.num_operands() == 2 && steps_recurrence(g) => {
                outer = Some(k as u64 * elem)
            }
            Some(k) if k >= 0 => off += k as u64 * elem,
            Some(_) => return,
            None => match self.bounded_index(g) {
                // A few elements only (`b[i].v[k]` for k < 3, which -O1 writes as
                // `gep double, ptr, k` without the member array's type): what the result sees
                // lies at those offsets, and repeats nowhere else (taken as repeating every 8
                // bytes, the doubles would spread over the neighbouring fields).
                Some((lo, step, n)) => {
                    off += lo * elem;
                    inner.push((step * elem, n));
                }
                None => {
                    // A byte offset of unknown form says nothing about what repeats (only a
                    // multiple of an element size does, as -O2 writes `p + i * 48`).
                    let s = elem * multiplier(g.operand(1));
                    if s <= 1 {
                        return;
                    }
                    outer = Some(s);
                }
            },
        }
        for k in 2..g.num_operands() {
            let idx = g.operand(k);
            match ty.kind() {
                TyKind::Struct => {
                    let Some(f) = idx.const_int_value() else {
                        return;
                    };
                    off += m.field_offset(ty, f as u32);
                    ty = ty.struct_fields()[f as usize];
                }
                TyKind::Array | TyKind::Vector => {
                    let n = if ty.kind() == TyKind::Array {
                        ty.array_len()
                    } else {
                        ty.vector_len() as u64
                    };
                    ty = ty.element();
                    let s = m.alloc_size(ty);
                    match idx.const_int_sext() {
                        Some(c) if c >= 0 => off += c as u64 * s,
                        Some(_) => return,
                        None => inner.push((s, n)),
                    }
                }
                _ => return,
            }
        }
        let rt = type_tree(m, ty);
        self.add_pointee(g, rt);
        let bt = self.get(base).pointee();
        let gt = self.get(g).pointee();
        // Every offset the result may be at within one element of the first index.
        let mut offsets = vec![off];
        for (s, n) in inner {
            if offsets.len() as u64 * n > 256 {
                return;
            }
            offsets = offsets
                .iter()
                .flat_map(|&o| (0..n).map(move |k| o + k * s))
                .collect();
        }
        let exact = offsets.len() == 1;
        let mut seen = Tree::default();
        for &o in &offsets {
            seen.merge(&gt.shift_up(o));
        }
        // A few elements from the first (`A[i]` for i < 4): what the result points to, the
        // first element's pointer does too, as what the result sees lies in every element
        // (shifting dropped it; a `std::vector` of rows then reached a callee given the
        // matrix without what its rows hold).
        if !exact && offsets.first() == Some(&0) {
            seen.pointee = gt.pointee.clone();
        }
        // A field or element address (`gep T, p, 0, ...`) says what lies inside the `T` it
        // addresses, not past it: the same constructor taking `const T&` to two fields of one
        // object (libstdc++'s `__normal_iterator` on `_M_start` and `_M_finish` at -O0) merges
        // what it sees from both, and each field's view, taken back to the object at its own
        // offset, would move everything the object holds up by the fields' distance, round
        // after round, until the offset bound (the analysis would not settle).
        if g.operand(1).const_int_value() == Some(0)
            && g.num_operands() > 2
            && seen.stride.is_none()
            && bounded_type(src)
        {
            seen = seen.prefix(elem);
        }
        match outer {
            None => {
                self.add_pointee(base, seen);
                if exact {
                    self.add_pointee(g, bt.view_from(off));
                } else if let Some((&first, rest)) = offsets.split_first() {
                    // One of a few places (a bounded index, `x + 32 * i` for i < 3): what the
                    // base holds alike at all of them (before the bound, -O1's byte offset was
                    // taken as repeating, and the result saw the base's pattern).
                    let mut common = bt.view_from(first);
                    for &o in rest {
                        common = common.common(&bt.view_from(o));
                    }
                    if !common.at.is_empty() {
                        self.add_pointee(g, common);
                    }
                }
            }
            Some(stride) => {
                // A float wider than the period cannot repeat that way (the copies would
                // overlap): the offset is a multiple of a runtime stride, not of an element size
                // (Fortran's `base + 3 * byte_stride` for an assumed-shape array's third
                // element), and says nothing about what repeats.
                if gt.at.iter().any(|(&o, &k)| match k {
                    Kind::Float(f) => o % stride + f.size() > stride,
                    _ => false,
                }) {
                    return;
                }
                // The result is somewhere in a repeating pattern: what it sees repeats in the
                // base, and a base known to repeat that way tells the result what it sees.
                let within = seen.prefix(stride).repeated(stride);
                self.add_pointee(base, within);
                if exact && bt.stride.is_some_and(|s| stride.is_multiple_of(s)) {
                    self.add_pointee(g, bt.shift_down(off % bt.stride.unwrap_or(1)));
                }
            }
        }
    }

    /// The first index of GEP `g` as (least value, step between values, number of values)
    /// when the index reasoning bounds it to at most [`MAX_BOUNDED_INDICES`] values, none
    /// negative.
    pub(super) fn bounded_index(&mut self, g: Val) -> Option<(u64, u64, u64)> {
        if let Some(&r) = self.ranges.get(&g) {
            return r;
        }
        let f = g.parent_block().parent();
        let r = self
            .indices
            .entry(f)
            .or_insert_with(|| Indices::new(f))
            .as_mut()
            .and_then(|ix| ix.range_at(g.operand(1), g))
            .and_then(|(lo, hi, step)| {
                let n = if step == 0 { 1 } else { (hi - lo) / step + 1 };
                (lo >= 0 && hi <= tree::MAX_OFFSET as i128 && n <= MAX_BOUNDED_INDICES as i128)
                    .then_some((lo as u64, step as u64, n as u64))
            });
        self.ranges.insert(g, r);
        r
    }
}

/// True when getelementptr `g` is the step of a pointer recurrence: its base is a phi that `g`
/// flows back into, directly or through other phis and selects (a loop that appends to a
/// `std::vector`, whose end pointer also passes through the reallocation path).
fn steps_recurrence(g: Val) -> bool {
    let base = g.operand(0);
    let mut stack = vec![base];
    let mut seen = HashSet::new();
    while let Some(v) = stack.pop() {
        if !v.is_instruction() || !seen.insert(v) || seen.len() > 32 {
            continue;
        }
        match v.opcode() {
            Opcode::LLVMPHI => {
                for (x, _) in v.incoming() {
                    if x == g {
                        return true;
                    }
                    stack.push(x);
                }
            }
            Opcode::LLVMSelect if v != base => {
                stack.push(v.operand(1));
                stack.push(v.operand(2));
            }
            _ => {}
        }
    }
    false
}

/// The constant factor a variable index is known to be a multiple of (`mul i, 48`, `shl i,
/// 3`, through sign and zero extensions); 1 when unknown.
pub fn multiplier(v: Val) -> u64 {
    if !v.is_instruction() {
        return 1;
    }
    let c = |k: u32| v.operand(k).const_int_value();
    match v.opcode() {
        Opcode::LLVMSExt | Opcode::LLVMZExt => multiplier(v.operand(0)),
        Opcode::LLVMMul => c(1)
            .or(c(0))
            .filter(|&m| m > 0 && m <= tree::MAX_OFFSET)
            .unwrap_or(1),
        Opcode::LLVMShl => c(1).filter(|&b| b < 12).map_or(1, |b| 1 << b),
        _ => 1,
    }
}

/// [`multiplier`] of a copy's length, also through parameters: a helper's length parameter
/// (Eigen's `DefaultDevice::memcpy(dst, src, n)`, not inlined at -O0) is a multiple of what
/// every call of the helper passes (`size * sizeof(float)`), when the helper's only users are
/// direct calls (its address taken, unknown callers may pass anything: 1). Through at most
/// `LENGTH_CALL_DEPTH` levels of helpers (and of phis and selects choosing between lengths).
pub fn length_multiplier(v: Val) -> u64 {
    length_multiplier_within(v, LENGTH_CALL_DEPTH)
}

const LENGTH_CALL_DEPTH: usize = 4;

fn length_multiplier_within(v: Val, depth: usize) -> u64 {
    if let Some(k) = v.const_int_value() {
        // A constant length is a multiple of itself (0 is a multiple of anything).
        return if k == 0 { 0 } else { k.min(tree::MAX_OFFSET) };
    }
    if depth > 0 && v.is_instruction() {
        // A length chosen between sizes (`n ? n * 4 : 0` after inlining): a multiple of what
        // every choice is.
        let choices: Vec<Val> = match v.opcode() {
            Opcode::LLVMPHI => v.incoming().into_iter().map(|(x, _)| x).collect(),
            Opcode::LLVMSelect => vec![v.operand(1), v.operand(2)],
            _ => Vec::new(),
        };
        if !choices.is_empty() {
            let mut common = 0;
            for x in choices {
                common = gcd(common, length_multiplier_within(x, depth - 1));
                if common == 1 {
                    return 1;
                }
            }
            return common.max(1);
        }
    }
    if !v.is_argument() || depth == 0 {
        return multiplier(v);
    }
    let Some(f) = v.parent_function() else {
        return 1;
    };
    let Some(k) = f.params().iter().position(|&p| p == v) else {
        return 1;
    };
    let mut common = 0;
    for u in f.users() {
        if !u.is_call() || u.called_value() != f {
            return 1;
        }
        let Some(&a) = u.call_args().get(k) else {
            return 1;
        };
        common = gcd(common, length_multiplier_within(a, depth - 1));
        if common == 1 {
            return 1;
        }
    }
    common.max(1)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
