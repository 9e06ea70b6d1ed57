//! Pointers made from integers: `inttoptr (f(ptrtoint p, ...))`, as a buffer aligned by hand
//! (`(uintptr_t)raw + 63 & ~63`) or a byte offset added in `uintptr_t`. Such a pointer points
//! `x - (uintptr_t)p` bytes from `p`, so its shadow is the shadow of `p` at the same offset, and
//! that holds whatever arithmetic made `x`: the shadow block mirrors the primal block byte for
//! byte, whatever its own address.
//!
//! [`integer_pointer_base`] finds `p` only when it is certain: `x` must be computed, through
//! integer arithmetic, phis and selects, from exactly one `ptrtoint` (of one pointer, any
//! number of times) and otherwise from constants (loop counters included: phis of constants
//! and of their sums). A parameter, a load, a call or a second pointer anywhere in the
//! computation may carry a pointer difference `q - p`, which would move the shadow into no
//! block's shadow; they make the answer `None`, and the pointer keeps having no shadow: an
//! error where a derivative needs one, never a shadow at the wrong place.
//!
//! [`int_pointer`] says how to build the shadow of one `inttoptr`: from `p` when `p` is
//! available at the cast ([`IntPointer::Offset`]), or, when the cast's operand is a phi or a
//! select whose alternatives are each certain on their own ([`IntPointer::Merge`]), as the same
//! choice among the alternatives' shadows (preferred when an alternative is a constant address,
//! which is then its own shadow exactly, and the only way when `p` is not available). That is rustc's `Vec::with_capacity` under
//! `panic=unwind`: `phi [ptrtoint (__rust_alloc ...), %alloc], [8, %empty]`, the data pointer
//! or the empty `Vec`'s dangling 8, where the allocation happens on one path only. An
//! alternative is an offset of a pointer available at the end of its incoming block (at the
//! select for a select), or a constant address below 4096 (null or dangling, never
//! dereferenced: its own shadow, as [`crate::clone::substitute_shadow`] says) or undef.

use crate::ir::{Opcode, Val};
use std::collections::HashSet;

/// Integer expressions deeper than this are not followed.
const MAX_NODES: usize = 256;

/// Addresses below this (the first page) are never dereferenced: null, and the dangling,
/// aligned addresses of empty Rust collections.
const FIRST_PAGE: u64 = 4096;

/// How the shadow of an `inttoptr` is built (see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub enum IntPointer {
    /// An offset of this pointer, available at the cast: its shadow at the same offset.
    Offset(Val),
    /// The cast's operand, a phi or a select, and one alternative per incoming edge of the phi
    /// (in `incoming()` order) or per arm of the select (true, false): the shadow is the same
    /// choice among the alternatives' shadows.
    Merge(Val, Vec<Alternative>),
}

/// One alternative of an [`IntPointer::Merge`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Alternative {
    /// Integer `x` is an offset of pointer `p`, available where `x` is chosen.
    Offset {
        /// The pointer.
        p: Val,
        /// The integer chosen.
        x: Val,
    },
    /// A constant address never dereferenced (null, dangling below 4096, undef): the pointer
    /// made from it is its own shadow.
    Itself(Val),
}

impl IntPointer {
    /// The pointers whose shadows the cast's shadow is made from.
    pub fn bases(&self) -> Vec<Val> {
        match self {
            IntPointer::Offset(p) => vec![*p],
            IntPointer::Merge(_, alts) => alts
                .iter()
                .filter_map(|a| match a {
                    Alternative::Offset { p, .. } => Some(*p),
                    Alternative::Itself(_) => None,
                })
                .collect(),
        }
    }
}

/// How to build the shadow of `inttoptr` instruction `i`, if it is certain (see the module
/// documentation).
pub fn int_pointer(i: Val) -> Option<IntPointer> {
    let offset = offset_base(i);
    match merge(i.operand(0)) {
        // A constant address chosen is its own shadow, not the base's shadow moved by the
        // difference between the constant and the base: prefer the merge, exact on every path.
        Some(m)
            if matches!(&m, IntPointer::Merge(_, alts)
                if alts.iter().any(|a| matches!(a, Alternative::Itself(_)))) =>
        {
            Some(m)
        }
        m => offset.map(IntPointer::Offset).or(m),
    }
}

/// Integer `x` as an [`IntPointer::Merge`], if it is a phi or a select of alternatives that
/// are each certain and not all constants (a merge of constants alone carries no pointer).
fn merge(x: Val) -> Option<IntPointer> {
    if !x.is_instruction() {
        return None;
    }
    let alts: Vec<Alternative> = match x.opcode() {
        Opcode::LLVMPHI => x
            .incoming()
            .into_iter()
            .map(|(v, from)| alternative(v, from.terminator()?))
            .collect::<Option<_>>()?,
        Opcode::LLVMSelect => [x.operand(1), x.operand(2)]
            .into_iter()
            .map(|v| alternative(v, x))
            .collect::<Option<_>>()?,
        _ => return None,
    };
    alts.iter()
        .any(|a| matches!(a, Alternative::Offset { .. }))
        .then_some(IntPointer::Merge(x, alts))
}

/// Integer `x`, chosen at instruction `at`, as an [`Alternative`], if certain.
fn alternative(x: Val, at: Val) -> Option<Alternative> {
    if x.is_undef() || x.const_int_value().is_some_and(|a| a < FIRST_PAGE) {
        return Some(Alternative::Itself(x));
    }
    let p = integer_pointer_base(x)?;
    // Not `at` itself: an invoke's result is not available before the invoke, where the
    // alternative's shadow is built.
    (p != at && dominates(p, at)).then_some(Alternative::Offset { p, x })
}

/// The pointer `p` that `inttoptr` instruction `i` offsets (see the module documentation), if
/// certain and available where `i` is: `p` must dominate `i` (a phi choosing between
/// `(uintptr_t)p` and a constant, as an empty Rust `Vec`'s dangling 8, reaches `i` on paths
/// where `p` was never computed: [`int_pointer`] makes that a merge).
pub fn offset_base(i: Val) -> Option<Val> {
    let p = integer_pointer_base(i.operand(0))?;
    dominates(p, i).then_some(p)
}

/// True when `def` is available at instruction `at`.
fn dominates(def: Val, at: Val) -> bool {
    if !def.is_instruction() {
        return true;
    }
    let (db, ab) = (def.parent_block(), at.parent_block());
    if db == ab {
        return ab
            .instructions()
            .into_iter()
            .find(|&x| x == def || x == at)
            .is_some_and(|x| x == def);
    }
    let Some(f) = at.parent_function() else {
        return false;
    };
    if db == f.entry_block() {
        return true;
    }
    crate::analysis::indices::loops::Loops::new(f).dominates(db, ab)
}

/// The pointer `p` that integer `x` is an offset of (see the module documentation), if certain.
pub fn integer_pointer_base(x: Val) -> Option<Val> {
    let mut base: Option<Val> = None;
    let mut seen = HashSet::new();
    let mut work = vec![x];
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        if seen.len() > MAX_NODES {
            return None;
        }
        if v.is_constant() {
            if v.is_constant_expr() && v.const_opcode() == Opcode::LLVMPtrToInt {
                record(&mut base, v.operand(0))?;
            }
            continue;
        }
        if !v.is_instruction() || !v.ty().is_int() {
            return None;
        }
        use Opcode::*;
        match v.opcode() {
            LLVMPtrToInt => record(&mut base, v.operand(0))?,
            LLVMAdd | LLVMSub | LLVMMul | LLVMAnd | LLVMOr | LLVMXor | LLVMShl | LLVMLShr
            | LLVMAShr | LLVMZExt | LLVMSExt | LLVMTrunc | LLVMFreeze => {
                work.extend(v.operands());
            }
            LLVMSelect => work.extend([v.operand(1), v.operand(2)]),
            LLVMPHI => work.extend(v.incoming().into_iter().map(|(x, _)| x)),
            _ => return None,
        }
    }
    base
}

/// Records `p` as the base; `None` (give up) when another pointer already is.
fn record(base: &mut Option<Val>, p: Val) -> Option<()> {
    match base {
        Some(b) if *b != p => None,
        _ => {
            *base = Some(p);
            Some(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{parse_test_module, Module};
    use inkwell::context::Context;

    /// The base of the operand of the `inttoptr` named `%r` in `f`.
    fn base_of(body: &str) -> Option<String> {
        let ctx = Context::create();
        let ir = format!(
            "define ptr @f(ptr %p, ptr %q, i64 %n, ptr %m, i1 %c) {{\n{body}\n  ret ptr %r\n}}"
        );
        let module = parse_test_module(&ctx, &ir);
        let m = Module(module.as_mut_ptr());
        let f = m.function("f").expect("f");
        let r = f
            .blocks()
            .into_iter()
            .flat_map(|b| b.instructions())
            .find(|i| i.name() == "r")
            .expect("%r");
        offset_base(r).map(|b| b.name())
    }

    #[test]
    fn aligned_by_hand() {
        let body = "  %i = ptrtoint ptr %p to i64\n  %a = add i64 %i, 63\n  \
                    %b = and i64 %a, -64\n  %r = inttoptr i64 %b to ptr";
        assert_eq!(base_of(body).as_deref(), Some("p"));
    }

    #[test]
    fn offsets_by_constants_and_selects_of_one_pointer() {
        let body = "  %i = ptrtoint ptr %p to i64\n  %k = shl i64 3, 3\n  \
                    %s = select i1 %c, i64 %i, i64 8\n  %a = add i64 %s, %k\n  \
                    %r = inttoptr i64 %a to ptr";
        assert_eq!(base_of(body).as_deref(), Some("p"));
        let param = "  %i = ptrtoint ptr %p to i64\n  %a = add i64 %i, %n\n  \
                     %r = inttoptr i64 %a to ptr";
        assert_eq!(base_of(param), None, "%n may be a pointer difference");
    }

    #[test]
    fn two_pointers_or_memory_are_not_certain() {
        let diff = "  %i = ptrtoint ptr %p to i64\n  %j = ptrtoint ptr %q to i64\n  \
                    %d = sub i64 %j, %i\n  %a = add i64 %i, %d\n  %r = inttoptr i64 %a to ptr";
        assert_eq!(base_of(diff), None, "p + (q - p) points into q");
        let loaded = "  %i = ptrtoint ptr %p to i64\n  %d = load i64, ptr %m\n  \
                      %a = add i64 %i, %d\n  %r = inttoptr i64 %a to ptr";
        assert_eq!(base_of(loaded), None, "a loaded integer may hide a pointer");
        assert_eq!(
            base_of("  %r = inttoptr i64 %n to ptr"),
            None,
            "no pointer at all"
        );
    }

    #[test]
    fn a_base_not_computed_on_every_path_is_not_available() {
        let body = "  br i1 %c, label %alloc, label %join\nalloc:\n  \
                    %m2 = getelementptr i8, ptr %p, i64 16\n  %i = ptrtoint ptr %m2 to i64\n  \
                    br label %join\njoin:\n  %x = phi i64 [ %i, %alloc ], [ 8, %0 ]\n  \
                    %r = inttoptr i64 %x to ptr";
        assert_eq!(base_of(body), None, "%m2 does not dominate %r");
    }

    /// How [`int_pointer`] builds the shadow of the `inttoptr` named `%r` in `f`, as text:
    /// `offset p`, or `merge x: ...` with `p@x` per offset alternative and the constant per
    /// alternative that is its own shadow.
    fn shape_of(body: &str) -> Option<String> {
        let ctx = Context::create();
        let ir = format!(
            "define ptr @f(ptr %p, ptr %q, i64 %n, ptr %m, i1 %c) {{\n{body}\n  ret ptr %r\n}}"
        );
        let module = parse_test_module(&ctx, &ir);
        let m = Module(module.as_mut_ptr());
        let f = m.function("f").expect("f");
        let r = f
            .blocks()
            .into_iter()
            .flat_map(|b| b.instructions())
            .find(|i| i.name() == "r")
            .expect("%r");
        Some(match int_pointer(r)? {
            IntPointer::Offset(p) => format!("offset {}", p.name()),
            IntPointer::Merge(x, alts) => {
                let alts: Vec<String> = alts
                    .iter()
                    .map(|a| match a {
                        Alternative::Offset { p, x } => format!("{}@{}", p.name(), x.name()),
                        Alternative::Itself(c) => c.const_int_value().unwrap_or(0).to_string(),
                    })
                    .collect();
                format!("merge {}: {}", x.name(), alts.join(", "))
            }
        })
    }

    /// rustc's `Vec::with_capacity` under `panic=unwind`: the allocation on one path, the
    /// dangling 8 on the other.
    const RUST_VEC: &str = "  br i1 %c, label %alloc, label %join\nalloc:\n  \
                            %m2 = getelementptr i8, ptr %p, i64 16\n  \
                            %i = ptrtoint ptr %m2 to i64\n  br label %join\njoin:\n  \
                            %x = phi i64 [ %i, %alloc ], [ CONST, %0 ]\n  \
                            %r = inttoptr i64 %x to ptr";

    #[test]
    fn a_phi_of_a_pointer_computed_on_one_path_and_a_dangling_address_is_a_merge() {
        let body = RUST_VEC.replace("CONST", "8");
        assert_eq!(shape_of(&body).as_deref(), Some("merge x: m2@i, 8"));
        let null = RUST_VEC.replace("CONST", "0");
        assert_eq!(shape_of(&null).as_deref(), Some("merge x: m2@i, 0"));
        let undef = RUST_VEC.replace("CONST", "undef");
        assert!(shape_of(&undef).is_some_and(|s| s.starts_with("merge x: m2@i")));
        // With the pointer available at the cast too, the dangling 8 stays its own shadow
        // (not `p`'s shadow moved by `8 - p`); without a constant it is a plain offset.
        let dom = "  %i = ptrtoint ptr %p to i64\n  br i1 %c, label %a, label %join\na:\n  \
                   %k = add i64 %i, 8\n  br label %join\njoin:\n  \
                   %x = phi i64 [ %k, %a ], [ 8, %0 ]\n  %r = inttoptr i64 %x to ptr";
        assert_eq!(shape_of(dom).as_deref(), Some("merge x: p@k, 8"));
        let sel = "  %i = ptrtoint ptr %p to i64\n  %x = select i1 %c, i64 0, i64 %i\n  \
                   %r = inttoptr i64 %x to ptr";
        assert_eq!(shape_of(sel).as_deref(), Some("merge x: 0, p@i"));
        let walk = "  %i = ptrtoint ptr %p to i64\n  br label %loop\nloop:\n  \
                    %x = phi i64 [ %i, %0 ], [ %y, %loop ]\n  %y = add i64 %x, 8\n  \
                    br i1 %c, label %loop, label %out\nout:\n  %r = inttoptr i64 %x to ptr";
        assert_eq!(shape_of(walk).as_deref(), Some("offset p"));
    }

    #[test]
    fn a_merge_with_an_alternative_that_is_not_certain_is_refused() {
        let far = RUST_VEC.replace("CONST", "65536");
        assert_eq!(shape_of(&far), None, "a real address is not its own shadow");
        let param = RUST_VEC.replace("CONST", "%n");
        assert_eq!(shape_of(&param), None, "%n may be any pointer");
        let consts = "  br i1 %c, label %a, label %join\na:\n  br label %join\njoin:\n  \
                      %x = phi i64 [ 16, %a ], [ 8, %0 ]\n  %r = inttoptr i64 %x to ptr";
        assert_eq!(shape_of(consts), None, "no pointer to take a shadow from");
        // Two pointers, one per path: each alternative is certain on its own.
        let two = "  br i1 %c, label %a, label %b\na:\n  %i = ptrtoint ptr %p to i64\n  \
                   br label %join\nb:\n  %j = ptrtoint ptr %q to i64\n  br label %join\n\
                   join:\n  %x = phi i64 [ %i, %a ], [ %j, %b ]\n  %r = inttoptr i64 %x to ptr";
        assert_eq!(shape_of(two).as_deref(), Some("merge x: p@i, q@j"));
        // An alternative whose own pointer is not available at the end of its edge (a phi of
        // phis) is not followed.
        let nested = "  br i1 %c, label %alloc, label %mid\nalloc:\n  \
                      %m2 = getelementptr i8, ptr %p, i64 16\n  \
                      %i = ptrtoint ptr %m2 to i64\n  br label %mid\nmid:\n  \
                      %y = phi i64 [ %i, %alloc ], [ 8, %0 ]\n  br label %join\njoin:\n  \
                      %x = phi i64 [ %y, %mid ]\n  %r = inttoptr i64 %x to ptr";
        assert_eq!(shape_of(nested), None);
    }
}
