//! What the analysis starts from: what LLVM types and TBAA say about bytes ([`type_tree`],
//! [`tbaa_kind`]), what calls to functions without a body say ([`CallSeed`], given by the rule
//! table), and the derivative requests seen as calls ([`RequestSite`], checked in
//! [`super::requests`]).

use super::tree::{self, FloatKind, Kind, Tree};
use crate::ir::{Module, Ty, TyKind, Val};

/// The float format of a floating-point scalar type.
pub fn float_kind(t: Ty) -> Option<FloatKind> {
    if t.kind() != TyKind::Float {
        return None;
    }
    Some(match t.print().as_str() {
        "half" => FloatKind::Half,
        "bfloat" => FloatKind::BFloat,
        "float" => FloatKind::Float,
        "double" => FloatKind::Double,
        "x86_fp80" => FloatKind::X86Fp80,
        _ => FloatKind::Fp128,
    })
}

/// The LLVM type of a float format.
pub fn float_ty(m: Module, k: FloatKind) -> Ty {
    let ctx = m.context();
    match k {
        FloatKind::Float => Ty::float(ctx),
        FloatKind::Double => Ty::double(ctx),
        FloatKind::X86Fp80 => Ty::x86_fp80(ctx),
        // Formats copies never need to name are described by size only.
        _ => Ty::int(ctx, 8 * k.size() as u32),
    }
}

/// What an LLVM type says about its bytes. Integers are `Integer` (floats may still win),
/// byte arrays say nothing.
pub fn type_tree(m: Module, t: Ty) -> Tree {
    let mut out = Tree::default();
    fill(m, t, 0, &mut out);
    out
}

fn fill(m: Module, t: Ty, at: u64, out: &mut Tree) {
    if at >= tree::MAX_OFFSET {
        return;
    }
    match t.kind() {
        TyKind::Float => {
            if let Some(k) = float_kind(t) {
                out.at.insert(at, Kind::Float(k));
            }
        }
        TyKind::Int if t.int_width() == 8 => {}
        TyKind::Int => {
            out.at.insert(at, Kind::Integer);
        }
        TyKind::Ptr => {
            out.at.insert(at, Kind::Pointer);
        }
        TyKind::Struct => {
            for (k, f) in t.struct_fields().into_iter().enumerate() {
                fill(m, f, at + m.field_offset(t, k as u32), out);
            }
        }
        TyKind::Array | TyKind::Vector if !t.is_scalable_vector() => {
            let (e, n) = if t.kind() == TyKind::Array {
                (t.element(), t.array_len())
            } else {
                (t.element(), t.vector_len() as u64)
            };
            let size = m.alloc_size(e).max(1);
            for k in 0..n.min(tree::MAX_OFFSET / size + 1) {
                fill(m, e, at + k * size, out);
            }
        }
        _ => {}
    }
}

/// The kind a TBAA scalar type names, when it names one.
pub(super) fn tbaa_kind(name: &str) -> Option<Kind> {
    Some(match name {
        "double" => Kind::Float(FloatKind::Double),
        "float" => Kind::Float(FloatKind::Float),
        "long double" => Kind::Float(FloatKind::X86Fp80),
        "any pointer" => Kind::Pointer,
        "int" | "long" | "long long" | "short" | "_Bool" | "bool" => Kind::Integer,
        n if n.starts_with('p') && n[1..].starts_with(|c: char| c.is_ascii_digit()) => {
            Kind::Pointer
        }
        _ => return None,
    })
}

/// What a pointer's TBAA type (clang's pointer types, `p1 float`) says its pointee starts
/// with: a float of that format, for pointers to floating-point types (`float *`). Other
/// pointer types say nothing here (an integer's bytes may still be read as a float).
pub(super) fn tbaa_pointee_kind(name: &str) -> Option<Kind> {
    match tbaa_kind(name.strip_prefix("p1 ")?)? {
        k @ Kind::Float(_) => Some(k),
        _ => None,
    }
}

/// What a call to a function without a body says about types, from the rule table (given by
/// the caller, so this analysis does not depend on the rules that consult it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallSeed {
    /// `memcpy`/`memmove`: the same bytes on both sides.
    Copy,
    /// An allocator: the result is a pointer.
    Allocates,
    /// A math function: its arguments are floats of their types.
    Math,
    /// A math function writing results through pointers (`modf`, `sincos`): its first argument
    /// is a float, and its pointer arguments point to floats of that type.
    MathOut,
    /// Nothing known.
    None,
}

/// Seeds nothing from calls (for tests and callers without a rule table).
pub fn no_seed(_: Val) -> CallSeed {
    CallSeed::None
}

/// One derivative request seen as a call of the function it differentiates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestSite {
    /// The request call.
    pub call: Val,
    /// The function it differentiates.
    pub function: Val,
    /// The request's values for the function's pointer parameters.
    pub args: Vec<RequestArg>,
    /// The constant integers it passes, by parameter position (a copy helper's length).
    pub constants: Vec<(usize, u64)>,
}

/// What a request passes for one pointer parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestArg {
    /// The parameter's position.
    pub param: usize,
    /// The primal pointer.
    pub primal: Val,
    /// The shadow memory (`enzyme_dup`), which the caller lays out as the primal.
    pub shadow: Option<Val>,
}
