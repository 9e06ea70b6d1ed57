//! Julia runtime rules: the array and memory allocators Julia's code generator calls by name,
//! and `jl_genericmemory_owner`. (Runtime queries with no derivative, such as the world
//! counter, are inactive rules in `inactive.rs`.)
//!
//! Guarantee: an allocation of a Julia array or memory gets a shadow allocated through the same
//! call with the same arguments (so it has the same type, dimensions and element size), whose
//! element data is zeroed. The runtime zeroes only arrays whose elements hold pointers; arrays of
//! bits types such as `Float64` come back uninitialised, and a shadow must start at zero since
//! tangents and adjoints accumulate into it.
//!
//! The headers are read as the runtime lays them out (`size_t` is the width of the call's size
//! argument, `P` bytes; little-endian bit-fields, as on every platform Julia supports):
//!
//! - Julia ≤ 1.10, `jl_array_t` (`julia.h`): `void *data` at 0, `size_t length` at `P`,
//!   `jl_array_flags_t flags` (16 bits) at `2P`, `uint16_t elsize` at `2P + 2`, then
//!   `uint32_t offset`, `size_t nrows`, ... `data` already points at the first element (the
//!   1-d `offset` is the room kept before it), and `length` is the product of the dimensions,
//!   so `length * elsize` bytes at `data` are the elements. Isbits-union arrays keep one
//!   selector byte per element after those: type tags, not derivatives, left alone.
//! - Julia ≥ 1.11, `jl_genericmemory_t`: `size_t length` at 0, `void *ptr` at `P`. The element
//!   size is not in the object: `jl_alloc_genericmemory` takes it from the memory type's
//!   layout, `elsz = layout->flags.arrayelem_isboxed ? sizeof(void*) : layout->size`, with
//!   `const jl_datatype_layout_t *layout` the sixth pointer of `jl_datatype_t` (at `5P`), and
//!   in the layout `uint32_t size` at 0 and the 16-bit `flags` at 18 (`arrayelem_isboxed` is
//!   bit 3). The rule computes exactly that from the `mtype` argument. (A zero-length request
//!   returns the type's shared empty instance for both primal and shadow; zero bytes are
//!   zeroed.)
//!
//! Reverse mode: these objects are garbage-collected, so the adjoint sweep releases nothing and
//! nothing is saved on the tape for it. The shadow must stay reachable until the adjoint sweep
//! has run, but Umbra's tape is plain `malloc`ed memory the collector does not scan, and the
//! shadow has no other reference: rooting shadows is the embedding runtime's concern, as it is
//! for Enzyme.jl (which keeps them in a GC-visible tape object). Umbra emits no GC frames or
//! write barriers; run derivatives that allocate Julia objects with the collector unable to
//! free them (`GC.enable(false)` around the call, or roots kept by the embedder).

use super::calls::{
    AdjointCall, ArgAdjoints, ArgNeeds, AugmentCall, Augmented, CustomNeeds, CustomReverse,
    ForwardCall, ForwardRule,
};
use super::rule::{Area, Effects, Reverse, Rule, RuleKind};
use crate::diag::Result;
use crate::ir::{Builder, IntPred, Opcode, Ty, Val};

macro_rules! julia {
    ($name:literal, [$($alias:literal),*], $fwd:expr, $effects:expr) => {
        Rule {
            name: $name,
            aliases: &[$($alias),*],
            libm_variants: false,
            area: Area::Julia,
            kind: RuleKind::Forward($fwd as ForwardRule, Reverse::Custom(&GC_SHADOW)),
            effects: $effects.collected(),
        }
    };
}

/// Every Julia runtime rule. The `ijl_` names are what Julia ≥ 1.10 emits for its exported
/// runtime functions; the `jl_` names are the C API's.
pub static RULES: &[Rule] = &[
    julia!(
        "jl_alloc_array_1d",
        ["ijl_alloc_array_1d"],
        array_forward,
        Effects::ALLOCATES
    ),
    julia!(
        "jl_alloc_array_2d",
        ["ijl_alloc_array_2d"],
        array_forward,
        Effects::ALLOCATES
    ),
    julia!(
        "jl_alloc_array_3d",
        ["ijl_alloc_array_3d"],
        array_forward,
        Effects::ALLOCATES
    ),
    julia!(
        "jl_alloc_genericmemory",
        ["ijl_alloc_genericmemory"],
        memory_forward,
        Effects::ALLOCATES
    ),
    julia!(
        "jl_genericmemory_owner",
        ["ijl_genericmemory_owner"],
        owner_forward,
        Effects::READS
    ),
];

/// Garbage-collected results: the augmented sweep builds the shadow as forward mode does; the
/// adjoint sweep has nothing to release (see the module comment on rooting).
static GC_SHADOW: CustomReverse = CustomReverse {
    augment: gc_augment,
    adjoint: gc_adjoint,
    needs: CustomNeeds {
        args: ArgNeeds::None,
        result: false,
        saved: false,
        shadows_only: ArgNeeds::None,
    },
};

fn gc_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let call = c.primal_call();
    let shadow = c.forward_shadow(call)?;
    Ok(Augmented {
        result: Some(call),
        shadow,
        saved: None,
    })
}

fn gc_adjoint(_: &mut AdjointCall) -> Result<ArgAdjoints> {
    Ok(Vec::new())
}

/// The same call again: a second object of the same type and shape.
fn same_call_again(c: &mut ForwardCall) -> Val {
    let s = c.call.clone_instruction();
    c.b.insert(s);
    s
}

/// The `size_t` of the target, as the allocator's size argument spells it.
fn size_ty(c: &ForwardCall) -> Ty {
    c.args[1].ty()
}

/// Loads a `ty` at byte offset `off` from `base`.
fn load_at(b: &mut Builder, base: Val, off: u64, ty: Ty) -> Val {
    let ctx = b.module().context();
    let i8t = Ty::int(ctx, 8);
    let at = if off == 0 {
        base
    } else {
        b.gep(i8t, base, &[Ty::int(ctx, 64).int_const(off)], true)
    };
    b.load(ty, at, 0)
}

/// `jl_alloc_array_{1,2,3}d`: a second array, its `length * elsize` data bytes zeroed.
fn array_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let shadow = same_call_again(c);
    let size_t = size_ty(c);
    let p = u64::from(size_t.int_width() / 8);
    let ctx = c.b.module().context();
    let data = load_at(c.b, shadow, 0, Ty::ptr(ctx));
    let length = load_at(c.b, shadow, p, size_t);
    let elsize = load_at(c.b, shadow, 2 * p + 2, Ty::int(ctx, 16));
    let elsize = c.b.zext_or_trunc(elsize, size_t);
    let bytes = c.b.mul(length, elsize);
    c.b.memset_zero(data, bytes, 1);
    Ok(Some(shadow))
}

/// `jl_alloc_genericmemory(mtype, n)`: a second memory, its `length * elsz` data bytes zeroed
/// with `elsz` from `mtype`'s layout as the allocator computes it.
fn memory_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let shadow = same_call_again(c);
    let size_t = size_ty(c);
    let p = u64::from(size_t.int_width() / 8);
    let ctx = c.b.module().context();
    let (i16t, i32t) = (Ty::int(ctx, 16), Ty::int(ctx, 32));
    let layout = load_at(c.b, c.args[0], 5 * p, Ty::ptr(ctx));
    let size = load_at(c.b, layout, 0, i32t);
    let size = c.b.zext_or_trunc(size, size_t);
    let flags = load_at(c.b, layout, 18, i16t);
    let isboxed = c.b.binop(Opcode::LLVMAnd, flags, i16t.int_const(1 << 3));
    let isboxed = c.b.icmp(IntPred::LLVMIntNE, isboxed, i16t.zero());
    let elsz = c.b.select(isboxed, size_t.int_const(p), size);
    let length = load_at(c.b, shadow, 0, size_t);
    let data = load_at(c.b, shadow, p, Ty::ptr(ctx));
    let bytes = c.b.mul(length, elsz);
    c.b.memset_zero(data, bytes, 1);
    Ok(Some(shadow))
}

/// `jl_genericmemory_owner(m)`: the shadow's owner is the owner of `m`'s shadow.
fn owner_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let Some(shadow) = c.tangents[0] else {
        return Ok(None);
    };
    let s = c.call.clone_instruction();
    s.set_operand(0, shadow);
    c.b.insert(s);
    Ok(Some(s))
}

/// The rules' effect on generated code (shadow through the same call, zeroed data, no release)
/// is checked numerically by the lit tests in `test/integration/julia/`, which link the output
/// with C stand-ins of the runtime that return NaN-filled memory. Here: every name Julia emits
/// reaches its rule.
#[cfg(test)]
mod tests {
    use super::super::rule::Area;
    use super::super::{lookup, Reverse, RuleKind};

    #[test]
    fn runtime_names_reach_julia_rules() {
        for name in [
            "jl_alloc_array_1d",
            "ijl_alloc_array_1d",
            "jl_alloc_array_2d",
            "ijl_alloc_array_2d",
            "jl_alloc_array_3d",
            "ijl_alloc_array_3d",
            "jl_alloc_genericmemory",
            "ijl_alloc_genericmemory",
            "jl_genericmemory_owner",
            "ijl_genericmemory_owner",
        ] {
            let rule = lookup(name).unwrap_or_else(|| panic!("no rule for {name}"));
            assert_eq!(rule.area, Area::Julia, "{name}");
            let RuleKind::Forward(_, Reverse::Custom(custom)) = rule.kind else {
                panic!("{name}: expected a forward rule with a custom reverse half");
            };
            // Garbage-collected: nothing is carried to the adjoint, which releases nothing.
            assert!(
                !custom.needs.saved && custom.needs.args == crate::rules::calls::ArgNeeds::None,
                "{name}"
            );
        }
    }

    #[test]
    fn world_counter_is_inactive() {
        for name in ["jl_get_world_counter", "ijl_get_world_counter"] {
            let rule = lookup(name).unwrap_or_else(|| panic!("no rule for {name}"));
            assert!(matches!(rule.kind, RuleKind::Inactive), "{name}");
        }
    }
}
