//! What memory holds, as far as adjoints are concerned: the element type of the bytes a
//! `memcpy`/`memmove` (or `realloc`) moves, which the call itself does not say. It is inferred
//! from every other access to the same underlying objects in the function (load and store types,
//! GEP element types). When that is ambiguous the answer is an error, never a guess: reverse
//! mode refuses rather than add adjoints in the wrong format.

use super::types::{float_ty, FloatKind, Kind, TypeInfo};
use crate::diag::{Error, Result};
use crate::ir::{Module, Opcode, Ty, TyKind, Val};
use std::collections::HashSet;

/// What a copied region holds, as far as adjoints are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contents {
    /// Floating-point elements of this scalar type.
    Floats(Ty),
    /// No floating-point data: nothing to accumulate.
    NoFloats,
}

/// The `--print-types` report: what each access to differentiable memory in `f` carries, as
/// reverse mode sees it (the value type of loads and stores, the inferred element type of
/// copies, or why it cannot tell).
pub fn describe_types(
    f: Val,
    derived: &str,
    active: impl Fn(Val) -> bool,
    is_copy: impl Fn(Val) -> bool,
    types: TypeInfo,
) -> Vec<String> {
    let mut out = vec![format!("memory types of @{} in @{derived}:", f.name())];
    for b in super::cfg::reverse_post_order(f) {
        for i in b.instructions() {
            let what = match i.opcode() {
                Opcode::LLVMLoad if active(i.operand(0)) => carried(i.ty(), i),
                Opcode::LLVMStore if active(i.operand(1)) => carried(i.operand(0).ty(), i),
                Opcode::LLVMCall | Opcode::LLVMInvoke
                    if is_copy(i) && active(i.operand(0)) && !accessed_locally(f, i) =>
                {
                    match layout_from_types(types, f.module(), i) {
                        Ok(PointerLayout::OnlyPointers) => {
                            "pointers (from the type analysis)".into()
                        }
                        Ok(PointerLayout::IntegersUpTo(n)) => format!(
                            "integers in its first {n} bytes (from the type analysis; a longer copy stops at run time)"
                        ),
                        Ok(PointerLayout::Strided {
                            stride,
                            pointers,
                            floats,
                        }) => {
                            let fl: Vec<String> = floats
                                .iter()
                                .map(|(o, t)| format!("{o}: {}", t.print()))
                                .collect();
                            format!("elements of {stride} bytes with floats at {{{}}} and pointers at {pointers:?} (from the type analysis)", fl.join(", "))
                        }
                        Err(e) => format!("unknown ({})", e.message),
                    }
                }
                Opcode::LLVMCall | Opcode::LLVMInvoke if is_copy(i) && active(i.operand(0)) => {
                    match infer_contents(f, i) {
                        Ok(Contents::Floats(t)) => format!("{} elements", t.print()),
                        Ok(Contents::NoFloats) => "no floating-point data".to_string(),
                        Err(e) => format!("unknown ({})", e.message),
                    }
                }
                _ => continue,
            };
            out.push(format!("  {}: {what}", i.print()));
        }
    }
    out
}

fn carried(t: Ty, i: Val) -> String {
    if t.contains_float() || t.contains_ptr() {
        return t.print();
    }
    match i.tbaa_access_type() {
        Some(tbaa) => format!("{} (TBAA '{tbaa}')", t.print()),
        None => format!("{} (no TBAA: may hold floating-point bits)", t.print()),
    }
}

/// Infers what the memory copied by `copy` (a memcpy/memmove call in `f`) holds.
pub fn infer_contents(f: Val, copy: Val) -> Result<Contents> {
    infer_contents_of(f, copy, &[copy.operand(0), copy.operand(1)])
}

/// Infers what the memory `ptrs` point to holds, from every access in `f` to the same
/// underlying objects; errors are reported at `at`.
pub fn infer_contents_of(f: Val, at: Val, ptrs: &[Val]) -> Result<Contents> {
    let copy = at;
    let moved = Moved::of(f.module(), at, ptrs);
    let mut floats: Vec<Ty> = Vec::new();
    let mut seen_any = false;
    for b in f.blocks() {
        for i in b.instructions() {
            let Some((ptr, ty)) = access(i) else {
                continue;
            };
            if moved.touched_by(i, ptr) {
                seen_any = true;
                collect_float_scalars(ty, &mut floats);
            }
        }
    }
    floats.dedup();
    match floats.as_slice() {
        [t] => Ok(Contents::Floats(*t)),
        [] if seen_any => Ok(Contents::NoFloats),
        [] => Err(Error::at(
            copy,
            "cannot tell what type of data this call moves (no other access to the same memory in this function); reverse mode needs it to add adjoints",
        )),
        _ => Err(Error::at(
            copy,
            "this call moves memory holding several floating-point types; reverse mode cannot add their adjoints yet",
        )),
    }
}

fn collect_float_scalars(t: Ty, out: &mut Vec<Ty>) {
    match t.kind() {
        TyKind::Float if !out.contains(&t) => out.push(t),
        TyKind::Vector | TyKind::Array => collect_float_scalars(t.element(), out),
        TyKind::Struct => {
            for f in t.struct_fields() {
                collect_float_scalars(f, out)
            }
        }
        _ => {}
    }
}

/// True when some instruction of `f` other than the copy itself accesses the memory `copy`
/// moves (a load, store or GEP on the same underlying objects); otherwise only the module-wide
/// type analysis can tell what it holds ([`layout_from_types`]).
pub fn accessed_locally(f: Val, copy: Val) -> bool {
    let moved = Moved::of(f.module(), copy, &[copy.operand(0), copy.operand(1)]);
    f.blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .any(|i| access(i).is_some_and(|(ptr, _)| moved.touched_by(i, ptr)))
}

/// The pointer an instruction accesses memory through and the type it accesses there: loads,
/// stores, and GEPs (their source type says what the base points to). A GEP over `i8` is
/// address arithmetic only (LLVM's canonical form for constant offsets) and says nothing.
fn access(i: Val) -> Option<(Val, Ty)> {
    match i.opcode() {
        Opcode::LLVMLoad => Some((i.operand(0), i.ty())),
        Opcode::LLVMStore => Some((i.operand(1), i.operand(0).ty())),
        Opcode::LLVMGetElementPtr => {
            let t = i.gep_source_type();
            (!(t.is_int() && t.int_width() == 8)).then(|| (i.operand(0), t))
        }
        _ => None,
    }
}

/// The bytes a copy moves, as seen from other accesses: the objects its pointers may point
/// into and, where each pointer is a constant offset from its objects and the length is a
/// constant, the byte range within them. An access to the same objects counts as evidence of
/// what the copy moves unless it provably touches other bytes (a node's links and colour,
/// when the copy moves its value).
struct Moved {
    module: crate::ir::Module,
    /// Per pointer: its objects, and the range `[from, to)` it moves within them if known.
    parts: Vec<(HashSet<Val>, Option<ByteRange>)>,
}

/// Bytes `[from, to)` from the start of an object.
type ByteRange = (i64, i64);

impl Moved {
    fn of(module: crate::ir::Module, at: Val, ptrs: &[Val]) -> Moved {
        let is_copy = matches!(at.opcode(), Opcode::LLVMCall | Opcode::LLVMInvoke)
            && ptrs.len() == 2
            && at.num_operands() > 2
            && ptrs[0] == at.operand(0)
            && ptrs[1] == at.operand(1);
        let len = if is_copy {
            at.operand(2).const_int_value()
        } else {
            None
        };
        let parts = ptrs
            .iter()
            .map(|&p| {
                let range = len.and_then(|n| {
                    let o = object_offset(module, p)?;
                    Some((o, o.checked_add(i64::try_from(n).ok()?)?))
                });
                (underlying_objects(p), range)
            })
            .collect();
        Moved { module, parts }
    }

    /// Whether access `i` through `ptr` may touch the moved bytes.
    fn touched_by(&self, i: Val, ptr: Val) -> bool {
        let objects = underlying_objects(ptr);
        let size = match i.opcode() {
            Opcode::LLVMLoad => Some(self.module.store_size(i.ty())),
            Opcode::LLVMStore => Some(self.module.store_size(i.operand(0).ty())),
            _ => None,
        };
        self.parts.iter().any(|(objs, range)| {
            if !objects.iter().any(|o| objs.contains(o)) {
                return false;
            }
            match (range, size, object_offset(self.module, ptr)) {
                (Some((from, to)), Some(sz), Some(o)) => o < *to && *from < o + sz as i64,
                _ => true,
            }
        })
    }
}

/// The constant byte offset of `p` from the start of whichever of its underlying objects it
/// points into ([`underlying_objects`]): through constant GEPs, casts, and phis and selects
/// whose inputs all have the same offset. `None` when it is not one constant.
fn object_offset(m: crate::ir::Module, p: Val) -> Option<i64> {
    fn walk(m: crate::ir::Module, p: Val, visiting: &mut HashSet<Val>) -> Option<i64> {
        let op = if p.is_instruction() {
            p.opcode()
        } else if p.is_constant_expr() {
            p.const_opcode()
        } else {
            return Some(0);
        };
        match op {
            Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast | Opcode::LLVMFreeze => {
                walk(m, p.operand(0), visiting)
            }
            Opcode::LLVMGetElementPtr => {
                let base = walk(m, p.operand(0), visiting)?;
                base.checked_add(m.const_gep_offset(p)?)
            }
            Opcode::LLVMPHI | Opcode::LLVMSelect => {
                // A cycle through a phi (a pointer stepped in a loop) has no one offset.
                if !visiting.insert(p) {
                    return None;
                }
                let inputs: Vec<Val> = if op == Opcode::LLVMSelect {
                    vec![p.operand(1), p.operand(2)]
                } else if p.is_instruction() {
                    p.incoming().into_iter().map(|(v, _)| v).collect()
                } else {
                    return None;
                };
                let mut at = None;
                for v in inputs {
                    let o = walk(m, v, visiting)?;
                    if at.is_some_and(|a| a != o) {
                        return None;
                    }
                    at = Some(o);
                }
                visiting.remove(&p);
                at
            }
            _ => Some(0),
        }
    }
    walk(m, p, &mut HashSet::new())
}

/// The layout of the memory `copy` moves, from the module-wide type analysis (what callers and
/// callees do with the same pointers): elements of the tree's period (or the whole constant
/// length) with their float and pointer slots. Unknown or conflicting bytes are an error.
pub fn layout_from_types(info: TypeInfo, m: Module, copy: Val) -> Result<PointerLayout> {
    if !info.converged {
        return Err(Error::at(
            copy,
            "cannot tell what type of data this call moves: no access to the same memory in this function, and the module's type analysis did not settle; reverse mode needs it to add adjoints (copy with typed loads)",
        ));
    }
    let n = copy.operand(2);
    let len = known_length(info, n);
    // Only the bytes the copy moves: past them, a side that repeats (the source array, every
    // 8 bytes) would fold the other side's other fields into its period (the int and the
    // pointer around a struct's `double v[3]` that a copy from the array fills), a conflict
    // in bytes the copy does not touch.
    let side = |p: Val| {
        let t = info.pointee(m, p);
        match len {
            Some(l) => t.prefix(l),
            None => t,
        }
    };
    let mut t = side(copy.operand(0));
    t.merge(&side(copy.operand(1)));
    // The period both sides repeat with, when the copy moves whole periods of it: its bytes
    // are then elements of that size (three 48-byte structs, not one 144-byte block).
    let period = {
        let (d, s) = (
            info.pointee(m, copy.operand(0)).stride,
            info.pointee(m, copy.operand(1)).stride,
        );
        d.filter(|&p| d == s && len.is_some_and(|l| p < l && l % p == 0))
    };
    let (t, stride) = match (t.stride, len) {
        (Some(s), _) => (t, s),
        (None, Some(len)) => match period.and_then(|p| t.periodic(p).map(|e| (e, p))) {
            Some(elements) => elements,
            None => (t, len),
        },
        // A length the program computes as a count of `e`-byte elements (`n * sizeof(Item)`)
        // over bytes known at exact offsets (reads of the copy unrolled, no variable index
        // anywhere): the elements are what repeats every `e` bytes, when what is known does.
        (None, None) => match super::types::length_multiplier(n) {
            e if e > 1 => match t.periodic(e) {
                Some(p) => (p, e),
                None => {
                    return Err(Error::at(
                        copy,
                        format!("cannot tell what type of data this call moves: no access to the same memory in this function, and the type analysis knows only {t} about it, which does not repeat every {e} bytes as the length's elements would; reverse mode needs it to add adjoints (copy with typed loads, or a constant length)"),
                    ))
                }
            },
            _ => {
                if let Some(n) = integer_prefix(&t) {
                    return Ok(PointerLayout::IntegersUpTo(n));
                }
                if let Some(elements) = float_run(&t) {
                    elements
                } else {
                return Err(Error::at(
                    copy,
                    format!("cannot tell what type of data this call moves: no access to the same memory in this function, and the type analysis knows only {t} about it, not what repeats over a length that is not a constant; reverse mode needs it to add adjoints (copy with typed loads, or a constant length)"),
                ));
                }
            }
        },
    };
    let (floats, conflict) = t.floats_in(stride);
    if conflict {
        return Err(Error::at(
            copy,
            format!("this call moves memory the program accesses with incompatible types ({t}); reverse mode cannot tell where its floating-point data is"),
        ));
    }
    let known = t.prefix(stride).at;
    if known.is_empty() {
        return Err(Error::at(
            copy,
            "cannot tell what type of data this call moves (no access to the same memory in this function or, through arguments and returns, anywhere else); reverse mode needs it to add adjoints",
        ));
    }
    if let Some((from, to)) = untyped_bytes(&known, stride) {
        return Err(Error::at(
            copy,
            format!("cannot tell what type of data bytes {from}..{to} of what this call moves hold (the type analysis knows only {t} about it, and that many bytes are no padding); reverse mode needs it to add adjoints (copy with typed loads, or say what the memory holds with __enzyme_double(p, n), __enzyme_float or __enzyme_integer)"),
        ));
    }
    let pointers: Vec<u64> = known
        .iter()
        .filter(|&(_, &k)| k == Kind::Pointer)
        .map(|(&o, _)| o)
        .collect();
    let mut fl = Vec::new();
    for (o, k) in floats {
        if !matches!(k, FloatKind::Float | FloatKind::Double | FloatKind::X86Fp80) {
            return Err(Error::at(
                copy,
                format!(
                    "this call moves {} data, whose adjoints reverse mode cannot add yet",
                    k.name()
                ),
            ));
        }
        fl.push((o, float_ty(m, k)));
    }
    // Integers only (no pointers either) need neither adjoints nor shadows: the strided
    // layout with no slots says so, where `OnlyPointers` would copy the shadow whole.
    if fl.is_empty() && !pointers.is_empty() {
        return Ok(PointerLayout::OnlyPointers);
    }
    Ok(PointerLayout::Strided {
        stride,
        pointers,
        floats: fl,
    })
}

/// The first run of bytes in `[0, stride)` that no known scalar of `known` (offset → kind of its
/// first byte) can cover and that is too long to be padding or a field nothing reads: 8 bytes
/// or more before the first scalar, or 16 bytes or more past a scalar's largest possible end
/// (an integer's width is not recorded, so it may reach 16 bytes, `i128`) up to the next scalar
/// or the end. A copy must not take such bytes as holding no floats: they may hold anything,
/// written where the analysis could not follow (byte copies at a variable offset into a `char`
/// buffer). Shorter runs are padding, or a field no access anywhere in the module reads (an
/// index of an Eigen block the program never asks for), whose bytes then carry no derivative a
/// typed access could see.
fn untyped_bytes(known: &std::collections::BTreeMap<u64, Kind>, stride: u64) -> Option<(u64, u64)> {
    let first = *known.keys().next()?;
    if first >= 8 {
        return Some((0, first.min(stride)));
    }
    let mut entries = known.iter().peekable();
    while let Some((&o, &k)) = entries.next() {
        let widest = match k {
            Kind::Float(f) | Kind::FloatTail(f) => f.size(),
            Kind::Pointer => 8,
            Kind::Integer | Kind::Anything | Kind::Conflict => 16,
        };
        let next = entries.peek().map_or(stride, |(&n, _)| n).min(stride);
        let end = o + widest;
        if next >= end + 16 {
            return Some((end, next));
        }
    }
    None
}

/// For a byte copy of a length known only at run time: the bytes from the start of what both
/// sides point to that hold integers only, up to the first other data the type analysis places
/// there (`Some(16)` for a short string's buffer inside a node whose `double` follows it).
/// `None` unless integer data starts at offset 0 and something else follows: without that
/// bound (a pattern that repeats, or nothing past the integers) a longer copy could move
/// anything.
/// The elements of a copy of run-time length over memory known only as an unbroken run of
/// one float format from offset 0 (`{0: double, 8: double, 16: double, 24: double}`: a
/// `std::vector<double>` of constant size whose every access the optimiser unrolled, copied
/// by a row's copy constructor with `end - begin` bytes): floats of that format, repeating.
/// At least two floats, and nothing else known (a pointer, an integer or a gap after the run
/// says the memory is not one array); `None` otherwise. Integers get the same reading
/// ([`integer_prefix`]); as there, what no analysed function accesses is not seen.
fn float_run(t: &super::types::tree::Tree) -> Option<(super::types::tree::Tree, u64)> {
    // Formats whose array elements are their size apart (not `x86_fp80`, 10 bytes in 16).
    let Some(&Kind::Float(
        f @ (FloatKind::Half | FloatKind::BFloat | FloatKind::Float | FloatKind::Double),
    )) = t.at.get(&0)
    else {
        return None;
    };
    let size = f.size();
    let dense = t.stride.is_none()
        && t.at.len() >= 2
        && t.at
            .iter()
            .enumerate()
            .all(|(i, (&o, &k))| k == Kind::Float(f) && o == i as u64 * size);
    if !dense {
        return None;
    }
    t.periodic(size).map(|p| (p, size))
}

fn integer_prefix(t: &super::types::tree::Tree) -> Option<u64> {
    if t.stride.is_some() || t.at.get(&0) != Some(&Kind::Integer) {
        return None;
    }
    t.at.iter()
        .find(|(_, k)| !matches!(k, Kind::Integer | Kind::Anything))
        .map(|(&o, _)| o)
}

/// The value of a copy's length when it is one constant: a constant, or products, shifts and
/// extensions of constants and of parameters every call reaching this context passes the same
/// constant for (in a call site's own context, the constant that call passes, as in
/// `n * sizeof(Item)` in a helper always called with the same `n`). `None` when it may vary or
/// may have wrapped.
fn known_length(info: TypeInfo, n: Val) -> Option<u64> {
    if let Some(c) = n.const_int_value() {
        return Some(c);
    }
    if !n.is_instruction() {
        return info.constant_argument(n);
    }
    let width = n.ty().int_width();
    let fits = |v: u64| (width >= 64 || v < 1u64 << width).then_some(v);
    match n.opcode() {
        Opcode::LLVMZExt => known_length(info, n.operand(0)),
        Opcode::LLVMSExt => {
            // A negative value sign-extends to another number than its bits say.
            let w = n.operand(0).ty().int_width();
            known_length(info, n.operand(0)).filter(|&v| w == 0 || v >> (w - 1) == 0)
        }
        Opcode::LLVMMul => {
            fits(known_length(info, n.operand(0))?.checked_mul(known_length(info, n.operand(1))?)?)
        }
        Opcode::LLVMShl => {
            let b = n.operand(1).const_int_value().filter(|&b| b < 64)?;
            fits(known_length(info, n.operand(0))?.checked_mul(1u64 << b)?)
        }
        _ => None,
    }
}

/// The objects a pointer may be derived from (the overwrite analysis owns the definition).
pub use super::objects::underlying_objects;

/// Where a copied region holds pointers, whose shadows the augmented sweep must copy along
/// (float bytes are adjoint accumulators there, and must not be copied).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PointerLayout {
    /// Pointers and perhaps integers, no floating-point data: the whole shadow can be copied.
    OnlyPointers,
    /// Elements of `stride` bytes (a struct or array type seen in accesses to the memory), with
    /// pointers at `pointers` and floating-point fields at `floats` (byte offsets within one).
    Strided {
        /// The element size.
        stride: u64,
        /// Offsets of pointer slots in an element.
        pointers: Vec<u64>,
        /// Offsets and types of floating-point scalars in an element.
        floats: Vec<(u64, Ty)>,
    },
    /// Integer data only (no pointers, no floats) in the first `n` bytes, where the type
    /// analysis places other data past them: a copy whose length is known only at run time (a
    /// `std::string`'s characters moved into a map's node, whose `double` follows) moves
    /// integers as long as it moves at most `n` bytes, which the augmented sweep checks at run
    /// time.
    IntegersUpTo(u64),
}

/// Where the memory copied by `copy` holds pointers: `None` when no access to the same objects
/// in `f` involves a pointer. Mixed pointers and floats are located through a struct or array
/// type seen in those accesses (a GEP's source type, an aggregate load or store); when none
/// explains them all, or the copy does not start at an element, the answer is an error.
pub fn infer_pointer_layout(f: Val, copy: Val) -> Result<Option<PointerLayout>> {
    let m = f.module();
    if let Some(layout) = tbaa_struct_layout(m, copy) {
        return Ok(layout);
    }
    let mut objects = HashSet::new();
    for p in [copy.operand(0), copy.operand(1)] {
        objects.extend(underlying_objects(p));
    }
    let (mut has_ptr, mut floats, mut aggregates) = (false, Vec::new(), Vec::<Ty>::new());
    // A stack object's allocated type counts as an access of that type.
    let allocated = objects
        .iter()
        .filter(|o| o.is_instruction() && o.opcode() == Opcode::LLVMAlloca)
        .map(|o| o.allocated_type());
    for ty in allocated {
        has_ptr |= ty.contains_ptr();
        collect_float_scalars(ty, &mut floats);
        if ty.contains_ptr() && !ty.is_ptr() && !aggregates.contains(&ty) {
            aggregates.push(ty);
        }
    }
    let moved = Moved::of(m, copy, &[copy.operand(0), copy.operand(1)]);
    for b in f.blocks() {
        for i in b.instructions() {
            let Some((ptr, ty)) = access(i) else {
                continue;
            };
            if !moved.touched_by(i, ptr) {
                continue;
            }
            has_ptr |= ty.contains_ptr();
            collect_float_scalars(ty, &mut floats);
            if ty.contains_ptr() && !ty.is_ptr() && !aggregates.contains(&ty) {
                aggregates.push(ty);
            }
        }
    }
    if !has_ptr {
        return Ok(None);
    }
    let holding = if floats.is_empty() {
        "pointers"
    } else {
        "pointers and floating-point data"
    };
    let cannot_tell = |why: &str| {
        Err(Error::at(
            copy,
            format!("this call copies memory holding {holding}, {why}; reverse mode cannot tell which shadow bytes are pointers to copy and which are adjoints"),
        ))
    };
    let Some(&widest) = aggregates.iter().max_by_key(|&&t| m.alloc_size(t)) else {
        return if floats.is_empty() {
            Ok(Some(PointerLayout::OnlyPointers))
        } else {
            cannot_tell("and no struct type says where each is")
        };
    };
    if let Some(other) = aggregates.iter().find(|&&t| !contains_type(widest, t)) {
        return cannot_tell(&format!(
            "seen both as {} and as {}",
            widest.print(),
            other.print()
        ));
    }
    let stride = m.alloc_size(widest);
    for p in [copy.operand(0), copy.operand(1)] {
        if !starts_element(m, p, widest, stride) {
            // A copy of one field of a larger object (an operand of an Eigen expression,
            // copied into its place in a local one) is placed by the types of each side's own
            // objects, at the copy's offset in them.
            return match field_layout(m, f, copy) {
                Some(layout) => Ok(Some(layout)),
                None => cannot_tell(&format!(
                    "from or to an address that may not start a {}, and the types of the objects on each side do not place all of its bytes",
                    widest.print()
                )),
            };
        }
    }
    let (mut pointers, mut fl) = (Vec::new(), Vec::new());
    scalar_slots(m, widest, 0, &mut pointers, &mut fl);
    Ok(Some(PointerLayout::Strided {
        stride,
        pointers,
        floats: fl,
    }))
}

/// Pointer offsets and float slots (offset, type) within some bytes.
type Slots = (Vec<u64>, Vec<(u64, Ty)>);

/// Objects larger than this are not laid out slot by slot (an array of a million doubles).
const MAX_FIELD_LAYOUT: u64 = 1 << 16;

/// The layout of the bytes a copy of a constant length moves, from the types that place them on
/// each side: a stack object's allocated type, and each struct or array type a GEP, load or store
/// in `f` sees at a constant offset of the same objects, taken at the copy's offset in it (an
/// array of the type around it, as a GEP's first index allows). Every such type, on either side,
/// must give the same pointer and float slots in the moved bytes (the copy makes the two sides
/// hold the same bytes) without cutting a pointer or a float, and every scalar load or store of
/// pointers or floats into those bytes must fall on a slot of its type. `None` when a side's
/// offset or an access's offset is not a constant, when no type places the bytes, or on any
/// disagreement: the copy is then refused, never guessed.
fn field_layout(m: Module, f: Val, copy: Val) -> Option<PointerLayout> {
    let len = copy.operand(2).const_int_value()?;
    let mut layout: Option<Slots> = None;
    // Scalar accesses into the moved bytes, by offset within them.
    let mut witnesses: Vec<(i64, Ty)> = Vec::new();
    for p in [copy.operand(0), copy.operand(1)] {
        let at = object_offset(m, p)?;
        let objects = underlying_objects(p);
        let mut anchors: Vec<(Ty, i64)> = objects
            .iter()
            .filter(|o| o.is_instruction() && o.opcode() == Opcode::LLVMAlloca)
            .map(|o| (o.allocated_type(), 0))
            .collect();
        for i in f.blocks().into_iter().flat_map(|b| b.instructions()) {
            let Some((q, ty)) = access(i) else {
                continue;
            };
            if !underlying_objects(q).iter().any(|o| objects.contains(o)) {
                continue;
            }
            let base = object_offset(m, q)?;
            if matches!(ty.kind(), TyKind::Struct | TyKind::Array) {
                anchors.push((ty, base));
            } else if i.opcode() != Opcode::LLVMGetElementPtr {
                witnesses.push((base - at, ty));
            }
        }
        for (t, base) in anchors {
            // Before an array of `t`: about other bytes.
            if at.checked_add(len as i64)? <= base {
                continue;
            }
            let size = m.alloc_size(t);
            if size == 0 || size > MAX_FIELD_LAYOUT || at < base {
                return None;
            }
            let w = ((at - base) as u64) % size;
            let slots = window_slots(m, t, w, len)?;
            match &layout {
                Some(l) if *l != slots => return None,
                Some(_) => {}
                None => layout = Some(slots),
            }
        }
    }
    let (pointers, floats) = layout?;
    for (rel, ty) in witnesses {
        let size = m.store_size(ty) as i64;
        if rel + size <= 0 || rel >= len as i64 {
            continue;
        }
        let (mut ps, mut fs) = (Vec::new(), Vec::new());
        scalar_slots(m, ty, 0, &mut ps, &mut fs);
        let outside = |o: u64| rel + (o as i64) < 0 || rel + (o as i64) >= len as i64;
        let ptr_ok = ps
            .iter()
            .all(|&o| !outside(o) && pointers.contains(&((rel + o as i64) as u64)));
        let float_ok = fs
            .iter()
            .all(|&(o, t)| !outside(o) && floats.contains(&((rel + o as i64) as u64, t)));
        if !ptr_ok || !float_ok {
            return None;
        }
    }
    Some(PointerLayout::Strided {
        stride: len,
        pointers,
        floats,
    })
}

/// The pointer and float slots of `t` in its bytes `[w, w + len)`, relative to `w`; `None` when
/// the window runs past `t` or cuts one.
fn window_slots(m: Module, t: Ty, w: u64, len: u64) -> Option<Slots> {
    if w.checked_add(len)? > m.alloc_size(t) {
        return None;
    }
    let (mut ps, mut fs) = (Vec::new(), Vec::new());
    scalar_slots(m, t, 0, &mut ps, &mut fs);
    let inside = |o: u64, size: u64| -> Option<bool> {
        let (start, end) = (o, o + size);
        if start >= w && end <= w + len {
            Some(true)
        } else if end <= w || start >= w + len {
            Some(false)
        } else {
            None
        }
    };
    let ptr_size = m.store_size(Ty::ptr(m.context()));
    let mut pointers = Vec::new();
    for o in ps {
        if inside(o, ptr_size)? {
            pointers.push(o - w);
        }
    }
    let mut floats = Vec::new();
    for (o, ft) in fs {
        if inside(o, m.store_size(ft))? {
            floats.push((o - w, ft));
        }
    }
    Some((pointers, floats))
}

/// True when `t` is `outer` or nested in it (a field or element, at any depth).
fn contains_type(outer: Ty, t: Ty) -> bool {
    outer == t
        || match outer.kind() {
            TyKind::Struct => outer
                .struct_fields()
                .into_iter()
                .any(|f| contains_type(f, t)),
            TyKind::Array | TyKind::Vector => contains_type(outer.element(), t),
            _ => false,
        }
}

/// True when `p` is known to point at the start of an element of `stride` bytes (of type
/// `elem`) within its object: the object itself, or constant-offset or `elem`-indexed GEPs.
fn starts_element(m: Module, p: Val, elem: Ty, stride: u64) -> bool {
    let op = if p.is_instruction() {
        p.opcode()
    } else if p.is_constant_expr() {
        p.const_opcode()
    } else {
        return true;
    };
    match op {
        Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast | Opcode::LLVMFreeze => {
            starts_element(m, p.operand(0), elem, stride)
        }
        Opcode::LLVMPHI if p.is_instruction() => p
            .incoming()
            .into_iter()
            .all(|(v, _)| starts_element(m, v, elem, stride)),
        Opcode::LLVMSelect => {
            starts_element(m, p.operand(1), elem, stride)
                && starts_element(m, p.operand(2), elem, stride)
        }
        Opcode::LLVMGetElementPtr => {
            let aligned = if p.gep_source_type() == elem && p.num_operands() == 2 {
                true
            } else {
                m.const_gep_offset(p)
                    .is_some_and(|o| o.rem_euclid(stride as i64) == 0)
            };
            aligned && starts_element(m, p.operand(0), elem, stride)
        }
        _ => true,
    }
}

/// The byte offsets of the pointer and floating-point scalars in `t` (placed at `at`).
fn scalar_slots(m: Module, t: Ty, at: u64, ptrs: &mut Vec<u64>, fl: &mut Vec<(u64, Ty)>) {
    match t.kind() {
        TyKind::Ptr => ptrs.push(at),
        TyKind::Float => fl.push((at, t)),
        TyKind::Struct => {
            for (k, f) in t.struct_fields().into_iter().enumerate() {
                scalar_slots(m, f, at + m.field_offset(t, k as u32), ptrs, fl);
            }
        }
        TyKind::Array | TyKind::Vector => {
            let (e, n) = (
                t.element(),
                if t.kind() == TyKind::Array {
                    t.array_len()
                } else {
                    t.vector_len() as u64
                },
            );
            for k in 0..n {
                scalar_slots(m, e, at + k * m.alloc_size(e), ptrs, fl);
            }
        }
        _ => {}
    }
}

/// The layout a copy's `!tbaa.struct` metadata gives (clang puts it on struct copies at -O1 and
/// above): each field's offset, size and TBAA type; `Some(None)` for integers only. `None` when
/// it is missing or has a field of unknown kind (`omnipotent char`, an unusual floating-point
/// type). Floats without pointers are a layout too: a copy in a helper that touches the memory
/// nowhere else (`std::function`'s manager cloning a lambda that captured doubles by value)
/// has no other witness of what it moves.
pub fn tbaa_struct_layout(m: Module, copy: Val) -> Option<Option<PointerLayout>> {
    let fields = copy.tbaa_struct_fields()?;
    let len = copy.operand(2).const_int_value()?;
    let ctx = m.context();
    let (mut pointers, mut floats) = (Vec::new(), Vec::new());
    for (off, size, name) in fields {
        let is_pointer = name == "any pointer"
            || (name.starts_with('p')
                && name[1..].starts_with(|c: char| c.is_ascii_digit())
                && name.contains(' '));
        match (name.as_str(), size) {
            _ if is_pointer && size == m.store_size(Ty::ptr(ctx)) => pointers.push(off),
            ("double", 8) => floats.push((off, Ty::double(ctx))),
            ("float", 4) => floats.push((off, Ty::float(ctx))),
            ("omnipotent char", _) | ("long double", _) | ("_Float16", _) | ("__fp16", _) => {
                return None
            }
            _ if is_pointer => return None,
            _ => {}
        }
    }
    if pointers.is_empty() && floats.is_empty() {
        return Some(None);
    }
    Some(Some(PointerLayout::Strided {
        stride: len,
        pointers,
        floats,
    }))
}

#[cfg(test)]
mod tests {
    use super::{float_run, untyped_bytes};
    use crate::analysis::types::tree::Tree;
    use crate::analysis::types::{FloatKind, Kind};
    use std::collections::BTreeMap;

    fn known(entries: &[(u64, Kind)]) -> BTreeMap<u64, Kind> {
        entries.iter().copied().collect()
    }

    #[test]
    fn unknown_runs_too_long_for_padding_are_found() {
        use Kind::*;
        // A byte queue {char data[64]; long head, tail}, and with the indices first.
        assert_eq!(
            untyped_bytes(&known(&[(64, Integer), (72, Integer)]), 80),
            Some((0, 64))
        );
        assert_eq!(
            untyped_bytes(&known(&[(0, Integer), (8, Integer)]), 80),
            Some((24, 80))
        );
        // Padding, and a field nothing reads (an Eigen block's index between two pointers).
        let d = Float(FloatKind::Double);
        assert_eq!(untyped_bytes(&known(&[(0, d), (8, Integer)]), 16), None);
        let eigen = [
            (0, Pointer),
            (16, Pointer),
            (24, Integer),
            (32, Integer),
            (40, Integer),
        ];
        assert_eq!(untyped_bytes(&known(&eigen), 48), None);
        assert_eq!(untyped_bytes(&known(&[]), 48), None);
    }

    #[test]
    fn an_unbroken_run_of_one_float_format_is_an_array() {
        use Kind::*;
        let d = Float(FloatKind::Double);
        let tree = |e: &[(u64, Kind)]| Tree {
            at: known(e),
            ..Tree::default()
        };
        let run = tree(&[(0, d), (8, d), (16, d), (24, d)]);
        let (elements, size) = float_run(&run).expect("a row of doubles");
        assert_eq!(
            (elements.stride, elements.get(0), size),
            (Some(8), Some(d), 8)
        );
        // A gap, another format, another kind after the run, or a single float: not one array.
        assert!(float_run(&tree(&[(0, d), (16, d)])).is_none());
        assert!(float_run(&tree(&[(0, d), (8, Float(FloatKind::Float))])).is_none());
        assert!(float_run(&tree(&[(0, d), (8, d), (16, Integer)])).is_none());
        assert!(float_run(&tree(&[(0, d), (8, d), (16, Pointer)])).is_none());
        assert!(float_run(&tree(&[(0, d)])).is_none());
        let fp80 = Float(FloatKind::X86Fp80);
        assert!(float_run(&tree(&[(0, fp80), (10, fp80)])).is_none());
    }
}
