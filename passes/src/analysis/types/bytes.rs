//! Byte-wise copies: an integer load whose bytes are stored, unchanged, at the same offset from
//! another base (`d[k] = s[k]` over `unsigned char`, legal C for copying any object). Clang
//! emits them as a loop of `i8` accesses at `-O0`, an unrolled byte sequence where the length is
//! a constant, and `<16 x i8>`/`<4 x i8>` vector loops behind overlap checks where it is not.
//! Such a copy moves parts of floats, so the type analysis makes both sides hold the same data,
//! and reverse mode moves each float the copy touches as a whole ([`ByteLayout`]).
//!
//! A byte of a double has no adjoint of its own: adding bytes is not adding doubles. What the
//! adjoint of a byte copy can do is move the whole float the bytes belong to, once; that is
//! exact when every byte of the float is copied from the same float of the source at the same
//! position, which [`byte_copy`] makes sure of for each pair (same index, same offset, bases
//! holding the same layout), and [`super::byte_cover`] for the rest: that the copy moves all of
//! the float's bytes (at compile time where it can, else by a check in the derived code). A
//! copy through a pointer into the middle of a float ([`Kind::FloatTail`]) is refused here.

use super::queries::TypeInfo;
use super::seeds::float_ty;
use super::tree::{FloatKind, Kind};
use crate::diag::{Error, Result};
use crate::ir::{Module, Opcode, Ty, TyKind, Val};

/// One recognised pair: `store (load [src + index + offset]), [dst + index + offset]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteCopy {
    /// The load whose bytes the store writes.
    pub load: Val,
    /// The base the store writes from.
    pub dst: Val,
    /// The base the load reads from.
    pub src: Val,
    /// The variable byte index both addresses share (`None`: constant offsets only).
    pub index: Option<Val>,
    /// The constant byte offset both addresses share.
    pub offset: u64,
    /// Bytes moved.
    pub width: u64,
}

/// The byte copy `store` performs, if it is one: its value is an integer (or integer vector)
/// load, not typed as integer data by TBAA, from the same offset relative to another base, and
/// nothing between the load and the store writes memory other than further such copies (the
/// vectoriser loads two halves before storing both).
pub fn byte_copy(store: Val) -> Option<ByteCopy> {
    if store.opcode() != Opcode::LLVMStore || store.is_volatile() {
        return None;
    }
    let v = store.operand(0);
    let ty = v.ty();
    if !(ty.is_int() || ty.is_vector() && ty.scalar().is_int()) {
        return None;
    }
    if !v.is_instruction() || v.opcode() != Opcode::LLVMLoad || v.is_volatile() {
        return None;
    }
    if integer_tbaa(v) {
        return None;
    }
    let (dst, di, doff) = byte_address(store.operand(1))?;
    let (src, si, soff) = byte_address(v.operand(0))?;
    if di != si || doff != soff {
        return None;
    }
    // Nothing in between may change the loaded bytes before they are stored.
    if run_between(v, store)?.into_iter().any(writes_memory) {
        return None;
    }
    let f = store.parent_block().parent();
    let width = f.module().store_size(ty);
    // Read through a reference or pointer declared to an integer of the load's width (an
    // `int &` stored into a `std::variant<double, int>` at -O0): an integer moved, not bytes
    // of whatever the destination holds. Taken for a byte copy, it made the `int` the
    // destination's `double`, and was refused as a copy of part of one.
    if ty.is_int() && super::debug::declared_integer_target(f, v.operand(0), width) {
        return None;
    }
    Some(ByteCopy {
        load: v,
        dst,
        src,
        index: di,
        offset: doff,
        width,
    })
}

/// The instructions that may run between `from` and `to` when every run from `from` reaches
/// `to` within a few blocks, without coming back to `from`'s block: branches are followed
/// into every successor except those that never continue (ending in `unreachable`, as
/// AddressSanitizer's report of a bad access or an assertion's abort do). `None` otherwise.
pub fn run_between(from: Val, to: Val) -> Option<Vec<Val>> {
    let dead_end = |b: crate::ir::Block| {
        b.terminator()
            .is_some_and(|t| t.opcode() == Opcode::LLVMUnreachable)
    };
    let start = from.parent_block();
    let mut out = Vec::new();
    let mut seen = Vec::new();
    let mut stack = vec![from.next_instruction()];
    while let Some(first) = stack.pop() {
        let mut at = first;
        loop {
            let i = at?;
            if i == to {
                break;
            }
            if i.opcode() == Opcode::LLVMBr {
                let live: Vec<_> = i
                    .successors()
                    .into_iter()
                    .filter(|&b| !dead_end(b))
                    .collect();
                if live.is_empty() || live.contains(&start) {
                    return None;
                }
                for b in live {
                    if !seen.contains(&b) {
                        seen.push(b);
                        stack.push(b.first_instruction());
                    }
                }
                if seen.len() > 16 {
                    return None;
                }
                break;
            }
            if i.is_terminator() {
                // A return, switch, invoke, ...: this run may not reach `to`.
                return None;
            }
            out.push(i);
            at = i.next_instruction();
        }
    }
    Some(out)
}

/// What to do instead of copying part of a float, for every error about it.
pub const PARTIAL_ADVICE: &str = "reverse mode moves each float's adjoint whole and cannot differentiate part of one; copy whole elements (a length that is a multiple of the element size, from the start of an element) or use memcpy";

/// The TBAA type of the integers reverse mode keeps on its tape (counters, indices), so that
/// differentiating derived code again knows they are integer data.
pub const TAPE_INTEGER_TBAA: &str = "umbra tape integer";

/// True for loads typed as integer data by TBAA (never float bits).
pub fn integer_tbaa(load: Val) -> bool {
    load.tbaa_access_type().is_some_and(|t| {
        matches!(
            t.as_str(),
            "int" | "long" | "long long" | "short" | "_Bool" | "bool" | TAPE_INTEGER_TBAA
        )
    })
}

/// True when `i` may write memory, byte copies excepted.
fn writes_memory(i: Val) -> bool {
    use Opcode::*;
    match i.opcode() {
        LLVMStore => {
            let v = i.operand(0);
            !(v.is_instruction() && v.opcode() == LLVMLoad)
        }
        LLVMCall | LLVMInvoke | LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMFence | LLVMVAArg => true,
        _ => false,
    }
}

/// `p` as `base + index + offset` in bytes, through byte GEPs (one variable index at most)
/// and GEPs with constant indices.
fn byte_address(p: Val) -> Option<(Val, Option<Val>, u64)> {
    let mut p = p;
    let mut index = None;
    let mut offset = 0u64;
    for _ in 0..16 {
        if !p.is_instruction() || p.opcode() != Opcode::LLVMGetElementPtr {
            return Some((p, index, offset));
        }
        let m = p.parent_block().parent().module();
        let ty = p.gep_source_type();
        let elem = m.alloc_size(ty);
        if p.num_operands() == 2 {
            let idx = p.operand(1);
            match idx.const_int_sext() {
                Some(c) if c >= 0 => offset += c as u64 * elem,
                Some(_) => return None,
                None if elem == 1 && index.is_none() => index = Some(idx),
                None => return None,
            }
        } else {
            offset += const_offset(m, p)?;
        }
        p = p.operand(0);
    }
    None
}

/// The byte offset a GEP with constant, non-negative indices adds.
pub(crate) fn const_offset(m: Module, g: Val) -> Option<u64> {
    let mut ty = g.gep_source_type();
    let first = u64::try_from(g.operand(1).const_int_sext()?).ok()?;
    let mut off = first * m.alloc_size(ty);
    for k in 2..g.num_operands() {
        let idx = u64::try_from(g.operand(k).const_int_sext()?).ok()?;
        match ty.kind() {
            TyKind::Struct => {
                off += m.field_offset(ty, idx as u32);
                ty = ty.struct_fields()[idx as usize];
            }
            TyKind::Array | TyKind::Vector => {
                ty = ty.element();
                off += idx * m.alloc_size(ty);
            }
            _ => return None,
        }
    }
    Some(off)
}

/// Where the floats and pointers are in the memory a byte copy moves, from the type analysis of
/// both bases: offsets from the bases, repeating every `stride` bytes when the layout repeats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ByteLayout {
    /// The period of the layout (`None`: the offsets are exact).
    pub stride: Option<u64>,
    /// Offset and type of each float.
    pub floats: Vec<(u64, Ty)>,
    /// Offset of each pointer.
    pub pointers: Vec<u64>,
}

/// The layout of the memory the byte copy `bc` (at `store`) moves, or why it cannot be known:
/// no access anywhere says what it holds, it is accessed with incompatible types, or the
/// analysis did not settle.
pub fn byte_layout(info: TypeInfo, m: Module, store: Val, bc: &ByteCopy) -> Result<ByteLayout> {
    let what = format!(
        "copies memory byte by byte ('{}', {})",
        crate::diag::short(bc.load),
        bc.load.ty().print()
    );
    if !info.converged {
        return Err(Error::at(
            store,
            format!("{what}, and the module's type analysis did not settle, so reverse mode cannot tell which bytes hold floats; copy with memcpy or typed loads"),
        ));
    }
    let mut t = info.pointee(m, bc.dst);
    t.merge(&info.pointee(m, bc.src));
    if t.at.values().any(|&k| k == Kind::Conflict) {
        return Err(Error::at(
            store,
            format!("{what} that the program accesses with incompatible types ({t}); reverse mode cannot tell which bytes hold floats; copy with memcpy or typed loads"),
        ));
    }
    if t.at.is_empty() {
        return Err(Error::at(
            store,
            format!("{what}, and no access to the same memory, here or through arguments and returns anywhere else, says what it holds; reverse mode must know which bytes hold floats to move their adjoints (copy with memcpy or typed loads)"),
        ));
    }
    let mut floats = Vec::new();
    let mut pointers = Vec::new();
    let mut tails = Vec::new();
    for (&o, &k) in &t.at {
        match k {
            Kind::FloatTail(f) => tails.push((o, f)),
            Kind::Float(f @ (FloatKind::Float | FloatKind::Double | FloatKind::X86Fp80)) => {
                floats.push((o, float_ty(m, f)))
            }
            Kind::Float(f) => {
                return Err(Error::at(
                    store,
                    format!(
                        "{what} holding {} data, whose adjoints reverse mode cannot move yet",
                        f.name()
                    ),
                ))
            }
            Kind::Pointer => pointers.push(o),
            _ => {}
        }
    }
    // Scalars overlapping one another (a double at 0 and a float at 4) are incompatible too.
    let mut extents: Vec<(u64, u64)> = floats.iter().map(|&(o, t)| (o, m.store_size(t))).collect();
    extents.extend(
        pointers
            .iter()
            .map(|&o| (o, m.store_size(Ty::ptr(m.context())))),
    );
    extents.sort();
    let period = t.stride.unwrap_or(u64::MAX);
    let overlaps = extents.windows(2).any(|w| w[0].0 + w[0].1 > w[1].0)
        || extents.last().is_some_and(|&(o, n)| o + n > period);
    if overlaps {
        return Err(Error::at(
            store,
            format!("{what} that the program accesses as overlapping values of different types ({t}); reverse mode cannot tell which bytes hold floats; copy with memcpy or typed loads"),
        ));
    }
    // The rest of a float that starts before a base: the copy may move part of it (inside a
    // float the layout knows, it is the same float seen through another pointer).
    let inside = |o: u64| {
        floats
            .iter()
            .any(|&(s, f)| s < o && o < s + m.store_size(f))
    };
    if let Some(&(o, f)) = tails.iter().find(|&&(o, _)| !inside(o)) {
        let f = f.name();
        return Err(Error::at(
            store,
            format!("{what} through a pointer into the middle of a {f} (its bytes from offset {o} on are the rest of a {f} that starts before it), so it may copy only part of that {f}; {}", PARTIAL_ADVICE),
        ));
    }
    Ok(ByteLayout {
        stride: t.stride,
        floats,
        pointers,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::types::{analyze, FloatKind};
    use crate::ir::parse_test_module;

    const D: Kind = Kind::Float(FloatKind::Double);

    #[test]
    fn byte_loops_copy_layouts_and_shifted_bytes_do_not() {
        // A byte loop (as -O0 leaves it after mem2reg), a vectorised pair of <16 x i8> copies
        // (the second load before the first store), and a copy shifted by one byte.
        let ctx = inkwell::context::Context::create();
        let llm = parse_test_module(
            &ctx,
            r#"
            define internal void @copy(ptr %d, ptr %s, i64 %n) {
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
            define internal void @wide(ptr %d, ptr %s, i64 %k) {
              %s0 = getelementptr inbounds i8, ptr %s, i64 %k
              %s1 = getelementptr inbounds i8, ptr %s0, i64 16
              %a = load <16 x i8>, ptr %s0
              %b = load <16 x i8>, ptr %s1
              %d0 = getelementptr inbounds i8, ptr %d, i64 %k
              %d1 = getelementptr inbounds i8, ptr %d0, i64 16
              store <16 x i8> %a, ptr %d0
              store <16 x i8> %b, ptr %d1
              ret void
            }
            define internal void @shifted(ptr %d, ptr %s) {
              %ps = getelementptr inbounds i8, ptr %s, i64 1
              %b = load i8, ptr %ps
              store i8 %b, ptr %d
              ret void
            }
            define double @f(ptr %in) {
              %t = alloca [4 x double]
              call void @copy(ptr %t, ptr %in, i64 32)
              %v = load double, ptr %t
              ret double %v
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
        assert!(info.converged);
        let copy = m.function("copy").unwrap();
        let store = copy.blocks()[1].instructions()[4];
        let bc = byte_copy(store).expect("the loop's store copies a byte");
        assert_eq!((bc.dst, bc.src), (copy.params()[0], copy.params()[1]));
        assert_eq!((bc.offset, bc.width), (0, 1));
        // The source learns the destination's doubles through the copy.
        let s = info.pointee(m, copy.params()[1]);
        assert_eq!(s.get(24), Some(D), "{s}");
        let layout = byte_layout(info, m, store, &bc).unwrap();
        assert_eq!(layout.floats.len(), 4);
        assert!(layout.pointers.is_empty());

        let wide = m.function("wide").unwrap();
        let second = wide.entry_block().instructions()[7];
        let bc = byte_copy(second).expect("stores between are copies too");
        assert_eq!((bc.offset, bc.width), (16, 16));
        assert_eq!(bc.index, Some(wide.params()[2]));

        let shifted = m.function("shifted").unwrap();
        let store = shifted.entry_block().instructions()[2];
        assert!(byte_copy(store).is_none(), "bytes move to another offset");
    }
}
