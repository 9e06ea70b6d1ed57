//! What memory holds, as far as adjoints are concerned: the element type of the bytes a
//! `memcpy`/`memmove` (or `realloc`) moves, which the call itself does not say. It is inferred
//! from every other access to the same underlying objects in the function (load and store types,
//! GEP element types). When that is ambiguous the answer is an error, never a guess: reverse
//! mode refuses rather than add adjoints in the wrong format.

use crate::diag::{Error, Result};
use crate::ir::{Opcode, Ty, TyKind, Val};
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
) -> Vec<String> {
    let mut out = vec![format!("memory types of @{} in @{derived}:", f.name())];
    for b in super::cfg::reverse_post_order(f) {
        for i in b.instructions() {
            let what = match i.opcode() {
                Opcode::LLVMLoad if active(i.operand(0)) => carried(i.ty(), i),
                Opcode::LLVMStore if active(i.operand(1)) => carried(i.operand(0).ty(), i),
                Opcode::LLVMCall if is_copy(i) && active(i.operand(0)) => {
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
    let mut objects = HashSet::new();
    for &p in ptrs {
        objects.extend(underlying_objects(p));
    }
    let mut floats: Vec<Ty> = Vec::new();
    let mut seen_any = false;
    for b in f.blocks() {
        for i in b.instructions() {
            let (ptr, ty) = match i.opcode() {
                Opcode::LLVMLoad => (i.operand(0), i.ty()),
                Opcode::LLVMStore => (i.operand(1), i.operand(0).ty()),
                Opcode::LLVMGetElementPtr => (i.operand(0), i.gep_source_type()),
                _ => continue,
            };
            if underlying_objects(ptr).iter().any(|o| objects.contains(o)) {
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

/// The objects a pointer may be derived from (the overwrite analysis owns the definition).
pub use super::overwrite::underlying_objects;
