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

use crate::ir::{Opcode, Val};
use std::collections::HashSet;

/// Integer expressions deeper than this are not followed.
const MAX_NODES: usize = 256;

/// The pointer `p` that `inttoptr` instruction `i` offsets (see the module documentation), if
/// certain and available where `i` is: `p` must dominate `i` (a phi choosing between
/// `(uintptr_t)p` and a constant, as an empty Rust `Vec`'s dangling 8, reaches `i` on paths
/// where `p` was never computed).
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
}
