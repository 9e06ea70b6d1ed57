//! Allocation rules: every allocation of differentiable memory gets a shadow allocation of the
//! same size, made by the same allocator and zeroed; deallocation releases the shadow alongside.
//!
//! In reverse mode the shadow must outlive the primal: the adjoint sweep still accumulates into
//! it after the forward sweep has freed the primal. So the augmented sweep saves the shadow on
//! the tape, deallocations release only the primal there, and the adjoint sweep releases the
//! shadow when it passes the allocation (the last point it can be used), with the deallocator
//! matching the allocator.
//!
//! Covered: C (`malloc`, `calloc`, `aligned_alloc`, `memalign`, `posix_memalign`, `realloc`,
//! `free`), C++ `operator new`/`new[]` and `delete`/`delete[]` in every mangled variant (sized,
//! aligned, nothrow; 64- and 32-bit `size_t`), and Rust's `__rust_alloc`, `__rust_alloc_zeroed`,
//! `__rust_realloc`, `__rust_dealloc`, under their plain names and under the v0-mangled names
//! recent rustc gives the allocator shim (`_RNvCs<hash>_7___rustc12___rust_alloc`, i.e.
//! `__rustc::__rust_alloc`; see [`rust_shim_name`]); a shadow from a mangled `__rust_alloc` is
//! released through the `__rust_dealloc` of the same mangling, the only one that links.

use super::calls::{
    AdjointCall, ArgAdjoints, ArgNeeds, AugmentCall, Augmented, CustomNeeds, CustomReverse,
    ForwardCall, ForwardRule,
};
use super::rule::{Area, Effects, Reverse, Rule, RuleKind};
use crate::diag::{Error, Result};
use crate::ir::{Builder, IntPred, Module, Ty, Val};

macro_rules! alloc {
    ($name:literal, [$($alias:literal),*], $fwd:expr, $rev:expr, $effects:expr) => {
        Rule {
            name: $name,
            aliases: &[$($alias),*],
            libm_variants: false,
            area: Area::Alloc,
            kind: RuleKind::Forward($fwd as ForwardRule, $rev),
            effects: $effects,
        }
    };
}

/// Shadow saved by the augmented sweep; released by the adjoint sweep with a one-pointer
/// deallocator (`free`, `operator delete`).
macro_rules! release_with {
    ($name:ident, $dealloc:literal) => {
        pub(super) static $name: CustomReverse = CustomReverse {
            augment: |c| allocate_augment(c, $dealloc, &[]),
            adjoint: |c| release_saved(c, $dealloc),
            needs: CustomNeeds {
                args: ArgNeeds::None,
                result: false,
                saved: true,
                shadows_only: ArgNeeds::None,
            },
        };
    };
}

release_with!(FREE_SHADOW, "free");
release_with!(DELETE_SHADOW, "_ZdlPv");
release_with!(DELETE_ARRAY_SHADOW, "_ZdaPv");

/// Aligned `operator new`: released by the aligned `delete` with the same alignment.
static DELETE_ALIGNED_SHADOW: CustomReverse = CustomReverse {
    augment: |c| allocate_augment(c, "_ZdlPvSt11align_val_t", &[1]),
    adjoint: |c| release_aligned(c, "_ZdlPvSt11align_val_t"),
    needs: NEEDS_ARGS_AND_SHADOW,
};
static DELETE_ARRAY_ALIGNED_SHADOW: CustomReverse = CustomReverse {
    augment: |c| allocate_augment(c, "_ZdaPvSt11align_val_t", &[1]),
    adjoint: |c| release_aligned(c, "_ZdaPvSt11align_val_t"),
    needs: NEEDS_ARGS_AND_SHADOW,
};
/// `__rust_alloc(size, align)`: released by `__rust_dealloc(ptr, size, align)`.
static RUST_DEALLOC_SHADOW: CustomReverse = CustomReverse {
    augment: rust_allocate_augment,
    adjoint: rust_release,
    needs: NEEDS_ARGS_AND_SHADOW,
};
/// `posix_memalign(&p, align, size)`: the shadow goes to the shadow of `p`.
static POSIX_MEMALIGN: CustomReverse = CustomReverse {
    augment: posix_memalign_augment,
    adjoint: |c| release_saved(c, "free"),
    needs: CustomNeeds {
        args: ArgNeeds::None,
        result: false,
        saved: true,
        shadows_only: ArgNeeds::None,
    },
};

const NEEDS_ARGS_AND_SHADOW: CustomNeeds = CustomNeeds {
    args: ArgNeeds::All,
    result: false,
    saved: true,
    shadows_only: ArgNeeds::None,
};

/// `realloc(p, n)`: the shadow of the new block is a fresh allocation (the old shadow stays
/// alive: adjoints of accesses before the move still land there) that takes over the moved
/// shadow bytes; the adjoint gives them back, with the adjoints gathered since, and releases
/// the new shadow ([`realloc_shadow_forward`]).
static REALLOC: CustomReverse = CustomReverse {
    augment: realloc_augment,
    adjoint: realloc_adjoint,
    needs: CustomNeeds {
        args: ArgNeeds::Positions(&[0, 1]),
        result: true,
        saved: true,
        shadows_only: ArgNeeds::None,
    },
};

/// `__rust_realloc(p, old_size, align, new_size)`: as `realloc`, with the new shadow from the
/// `__rust_alloc` spelt as the call and released by its `__rust_dealloc`, and the moved
/// length known exactly (`min(old_size, new_size)`).
static RUST_REALLOC: CustomReverse = CustomReverse {
    augment: rust_realloc_augment,
    adjoint: rust_realloc_adjoint,
    needs: CustomNeeds {
        args: ArgNeeds::Positions(&[1, 2, 3]),
        result: false,
        saved: true,
        shadows_only: ArgNeeds::Positions(&[0]),
    },
};

/// Every allocation rule.
pub static RULES: &[Rule] = &[
    alloc!(
        "malloc",
        [
            "aligned_alloc",
            "memalign",
            "valloc",
            "umbra.tape.chunk.alloc"
        ],
        malloc_forward,
        Reverse::Custom(&FREE_SHADOW),
        Effects::ALLOCATES
    ),
    alloc!(
        "calloc",
        [],
        zeroed_forward,
        Reverse::Custom(&FREE_SHADOW),
        Effects::ALLOCATES
    ),
    alloc!(
        "posix_memalign",
        [],
        posix_memalign_forward,
        Reverse::Custom(&POSIX_MEMALIGN),
        Effects {
            writes: true,
            ..Effects::ALLOCATES
        }
    ),
    alloc!(
        "realloc",
        [],
        realloc_forward,
        Reverse::Custom(&REALLOC),
        Effects {
            frees: true,
            ..Effects::ALLOCATES
        }
    ),
    alloc!(
        "free",
        ["umbra.tape.chunk.free"],
        free_forward,
        Reverse::Free,
        Effects::FREES
    ),
    alloc!(
        "operator new",
        [
            "_Znwm",
            "_ZnwmRKSt9nothrow_t",
            "_Znwj",
            "_ZnwjRKSt9nothrow_t"
        ],
        malloc_forward,
        Reverse::Custom(&DELETE_SHADOW),
        Effects::ALLOCATES
    ),
    alloc!(
        "operator new[]",
        [
            "_Znam",
            "_ZnamRKSt9nothrow_t",
            "_Znaj",
            "_ZnajRKSt9nothrow_t"
        ],
        malloc_forward,
        Reverse::Custom(&DELETE_ARRAY_SHADOW),
        Effects::ALLOCATES
    ),
    alloc!(
        "operator new(align_val_t)",
        [
            "_ZnwmSt11align_val_t",
            "_ZnwmSt11align_val_tRKSt9nothrow_t",
            "_ZnwjSt11align_val_t",
            "_ZnwjSt11align_val_tRKSt9nothrow_t"
        ],
        malloc_forward,
        Reverse::Custom(&DELETE_ALIGNED_SHADOW),
        Effects::ALLOCATES
    ),
    alloc!(
        "operator new[](align_val_t)",
        [
            "_ZnamSt11align_val_t",
            "_ZnamSt11align_val_tRKSt9nothrow_t",
            "_ZnajSt11align_val_t",
            "_ZnajSt11align_val_tRKSt9nothrow_t"
        ],
        malloc_forward,
        Reverse::Custom(&DELETE_ARRAY_ALIGNED_SHADOW),
        Effects::ALLOCATES
    ),
    alloc!(
        "operator delete",
        [
            "_ZdlPv",
            "_ZdlPvm",
            "_ZdlPvj",
            "_ZdlPvRKSt9nothrow_t",
            "_ZdlPvSt11align_val_t",
            "_ZdlPvmSt11align_val_t",
            "_ZdlPvjSt11align_val_t",
            "_ZdlPvSt11align_val_tRKSt9nothrow_t"
        ],
        free_forward,
        Reverse::Free,
        Effects::FREES
    ),
    alloc!(
        "operator delete[]",
        [
            "_ZdaPv",
            "_ZdaPvm",
            "_ZdaPvj",
            "_ZdaPvRKSt9nothrow_t",
            "_ZdaPvSt11align_val_t",
            "_ZdaPvmSt11align_val_t",
            "_ZdaPvjSt11align_val_t",
            "_ZdaPvSt11align_val_tRKSt9nothrow_t"
        ],
        free_forward,
        Reverse::Free,
        Effects::FREES
    ),
    alloc!(
        "__rust_alloc",
        [],
        malloc_forward,
        Reverse::Custom(&RUST_DEALLOC_SHADOW),
        Effects::ALLOCATES
    ),
    alloc!(
        "__rust_alloc_zeroed",
        [],
        zeroed_forward,
        Reverse::Custom(&RUST_DEALLOC_SHADOW),
        Effects::ALLOCATES
    ),
    alloc!(
        "__rust_realloc",
        [],
        realloc_forward,
        Reverse::Custom(&RUST_REALLOC),
        Effects {
            frees: true,
            ..Effects::ALLOCATES
        }
    ),
    alloc!(
        "__rust_dealloc",
        [],
        free_forward,
        Reverse::Free,
        Effects::FREES
    ),
];

/// The deallocator that releases, from the pointer alone, what `call` (a free-like call)
/// releases: the callee itself when it takes only the pointer, the unsized `operator delete`
/// (`[]`) for a sized one (C++ allows the unsized form for any block of the non-aligned
/// `operator new`), else `None`. A free deferred to the adjoint is run through it.
pub fn pointer_only_deallocator(call: Val) -> Option<Val> {
    let f = call.called_function()?;
    if call.num_call_args() == 1 {
        return Some(f);
    }
    let plain = match f.name().as_str() {
        "_ZdlPvm" | "_ZdlPvj" => "_ZdlPv",
        "_ZdaPvm" | "_ZdaPvj" => "_ZdaPv",
        _ => return None,
    };
    let m = f.module();
    let ctx = m.context();
    let ty = Ty::function(Ty::void(ctx), &[Ty::ptr(ctx)], false);
    Some(m.get_or_add_function(plain, ty))
}

/// The size argument of an allocation call: the last integer argument of a malloc-like
/// allocator (`malloc(n)`, `aligned_alloc(a, n)`, `memalign(a, n)`, `new(n, align)` has it
/// first), found by name.
fn size_arg(c: &ForwardCall) -> Val {
    let name = c
        .call
        .called_function()
        .map(|f| f.name())
        .unwrap_or_default();
    match name.as_str() {
        "aligned_alloc" | "memalign" => c.args[1],
        _ => c.args[0],
    }
}

/// The same call again: a second allocation with the same arguments.
fn same_call_again(c: &mut ForwardCall) -> Val {
    let s = c.call.clone_instruction();
    c.b.insert(s);
    s
}

/// `malloc`-like: a second allocation, zeroed (the allocator does not zero it).
fn malloc_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let shadow = same_call_again(c);
    let size = size_arg(c);
    c.b.memset_zero(shadow, size, 1);
    Ok(Some(shadow))
}

/// `calloc`-like: the allocator zeroes the shadow already.
fn zeroed_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    Ok(Some(same_call_again(c)))
}

/// `posix_memalign(&p, align, size)`: a second allocation written into the shadow of `p`.
fn posix_memalign_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    posix_memalign_shadow(c.b, c.call, &c.args, &c.tangents)?;
    Ok(None)
}

/// Allocates the shadow of `posix_memalign`'s block into the shadow slot; returns it.
fn posix_memalign_shadow(
    b: &mut Builder,
    call: Val,
    args: &[Val],
    shadows: &[Option<Val>],
) -> Result<Option<Val>> {
    let Some(slot) = shadows[0] else {
        return Ok(None);
    };
    let s = call.clone_instruction();
    s.set_operand(0, slot);
    b.insert(s);
    let ptr = Ty::ptr(b.module().context());
    let shadow = b.load(ptr, slot, 0);
    b.memset_zero(shadow, args[2], 1);
    Ok(Some(shadow))
}

fn realloc_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let old = match c.tangents[0] {
        Some(s) => s,
        None if c.args[0].is_null_constant() => c.args[0],
        None => return Err(Error::at(
            c.src,
            "reallocation of memory without a shadow (a constant argument or global); pass it as dup",
        )),
    };
    let s = c.call.clone_instruction();
    s.set_operand(0, old);
    c.b.insert(s);
    Ok(Some(s))
}

/// Deallocation: the shadow goes with the primal (forward mode; reverse mode keeps it).
fn free_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    if let Some(shadow) = c.tangents[0] {
        let s = c.call.clone_instruction();
        s.set_operand(0, shadow);
        c.b.insert(s);
    }
    Ok(None)
}

/// Augmented sweep of an allocation: the primal call, then the shadow as in forward mode,
/// saved for the adjoint sweep to release with `dealloc(shadow, args[k] for k in extra)`, and
/// recorded for release should an exception unwind first ([`crate::tape::owned`]).
fn allocate_augment(c: &mut AugmentCall, dealloc: &str, extra: &[usize]) -> Result<Augmented> {
    let call = c.primal_call();
    let shadow = c.forward_shadow(call)?;
    if let Some(s) = shadow {
        let extras: Vec<Val> = extra.iter().map(|&k| c.args[k]).collect();
        record_shadow(c, s, dealloc, &extras);
    }
    Ok(Augmented {
        result: Some(call),
        shadow,
        saved: shadow,
    })
}

/// `__rust_alloc(size, align)`: the shadow is released by the `__rust_dealloc` spelt as the
/// allocator, with the same size and alignment.
fn rust_allocate_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let alloc = c
        .src
        .called_function()
        .map(|f| f.name())
        .unwrap_or_default();
    allocate_augment(c, &rust_dealloc_name(&alloc), &[0, 1])
}

/// Records shadow block `shadow` for release by `dealloc(shadow, extras...)` if an exception
/// unwinds through the augmented sweep.
fn record_shadow(c: &mut AugmentCall, shadow: Val, dealloc: &str, extras: &[Val]) {
    let m = c.env.module();
    let mut params = vec![Ty::ptr(m.context())];
    params.extend(extras.iter().map(|v| v.ty()));
    let f = m.get_or_add_function(dealloc, Ty::function(Ty::void(m.context()), &params, false));
    crate::tape::owned::record(c.b, shadow, f, extras);
}

fn posix_memalign_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let call = c.primal_call();
    let shadow = posix_memalign_shadow(c.b, call, &c.args, &c.shadows)?;
    if let Some(s) = shadow {
        record_shadow(c, s, "free", &[]);
    }
    let null = Ty::ptr(c.b.module().context()).zero();
    Ok(Augmented {
        result: Some(call),
        shadow: None,
        saved: Some(shadow.unwrap_or(null)),
    })
}

/// Calls `dealloc(saved, extra...)`, declaring it if needed.
fn call_dealloc(b: &mut Builder, m: Module, dealloc: &str, saved: Val, extra: &[Val]) {
    let ctx = m.context();
    let mut params = vec![Ty::ptr(ctx)];
    params.extend(extra.iter().map(|v| v.ty()));
    let f = m.get_or_add_function(dealloc, Ty::function(Ty::void(ctx), &params, false));
    let mut args = vec![saved];
    args.extend_from_slice(extra);
    b.call_function(f, &args);
}

fn release_saved(c: &mut AdjointCall, dealloc: &str) -> Result<ArgAdjoints> {
    if let Some(s) = c.saved {
        call_dealloc(c.b, c.env.module(), dealloc, s, &[]);
    }
    Ok(Vec::new())
}

/// Aligned `operator delete(ptr, align)`; the alignment is the allocation's last argument
/// (`new(size, align)` or `new(size, align, nothrow)`).
fn release_aligned(c: &mut AdjointCall, dealloc: &str) -> Result<ArgAdjoints> {
    if let Some(s) = c.saved {
        call_dealloc(c.b, c.env.module(), dealloc, s, &[c.args[1]]);
    }
    Ok(Vec::new())
}

/// `__rust_dealloc(ptr, size, align)` with the allocation's size and alignment, spelt as the
/// allocator was.
fn rust_release(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    if let Some(s) = c.saved {
        let alloc = c
            .src
            .called_function()
            .map(|f| f.name())
            .unwrap_or_default();
        let dealloc = rust_dealloc_name(&alloc);
        call_dealloc(c.b, c.env.module(), &dealloc, s, &[c.args[0], c.args[1]]);
    }
    Ok(Vec::new())
}

/// The crate of rustc's allocator shim in v0 mangling: `Cs<disambiguator>_` then the
/// identifier `__rustc` (length 7, then `_` because it starts with an underscore).
const RUSTC_SHIM_CRATE: &str = "_7___rustc";

/// The plain name of a v0-mangled allocator shim function: `__rust_alloc` for
/// `_RNvCsfLfy6EI15iL_7___rustc12___rust_alloc` (`__rustc::__rust_alloc`), as rustc ≥ 1.88
/// names `__rust_alloc` and its kin. `None` for any other name. The disambiguator hash differs
/// between toolchains, so the name is parsed rather than listed.
pub(super) fn rust_shim_name(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("_RNvCs")?;
    let (hash, rest) = rest.split_once(RUSTC_SHIM_CRATE)?;
    if !hash.chars().all(|ch| ch.is_ascii_alphanumeric()) {
        return None;
    }
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    // The `_` separator v0 puts before identifiers that start with `_` or a digit.
    let ident = rest[digits..].strip_prefix('_').unwrap_or(&rest[digits..]);
    (ident.len() == len && ident.starts_with("__rust_")).then_some(ident)
}

/// The deallocator matching Rust allocator `alloc`: `__rust_dealloc` in the same spelling.
fn rust_dealloc_name(alloc: &str) -> String {
    rust_shim_sibling(alloc, "__rust_dealloc")
}

/// Allocator shim `sibling` (`__rust_dealloc`, `__rust_alloc`) spelt as shim `shim` is:
/// plain, or v0-mangled with the same crate disambiguator.
fn rust_shim_sibling(shim: &str, sibling: &str) -> String {
    match rust_shim_name(shim) {
        Some(ident) => {
            let prefix_end = shim.len() - ident.len();
            let prefix = shim[..prefix_end].trim_end_matches('_');
            let prefix = prefix.trim_end_matches(|ch: char| ch.is_ascii_digit());
            format!("{prefix}{}_{sibling}", sibling.len())
        }
        None => sibling.to_string(),
    }
}

fn size_t(m: Module) -> Ty {
    m.intptr_ty()
}

/// `min(a, b)` of two unsigned sizes.
fn umin(b: &mut Builder, x: Val, y: Val) -> Val {
    let smaller = b.icmp(IntPred::LLVMIntULT, x, y);
    b.select(smaller, x, y)
}

/// The bytes a C `realloc` of `old_shadow`'s primal to `n` bytes moved, as far as shadows go:
/// `min(old size, n)`, the old size bounded by the old shadow's usable size (it was allocated
/// like the old block; 0 for null). Bytes past the old block's end that this counts are slack
/// the program never wrote, zero in the shadow.
fn c_moved_len(b: &mut Builder, m: Module, old_shadow: Val, n: Val) -> Val {
    let ptr = Ty::ptr(m.context());
    let usable =
        m.get_or_add_function("malloc_usable_size", Ty::function(size_t(m), &[ptr], false));
    let old = b.call_function(usable, &[old_shadow]);
    umin(b, old, n)
}

/// The shadows of a reallocation, in the augmented sweep: the moved bytes of the old shadow go
/// to the new one (the shadows of moved pointers must be there for later loads; float slots
/// hold zero adjoints, or seeds), and the old shadow's moved bytes are zeroed. Nothing touches
/// the old block again before the adjoint sweep reaches the realloc, whose adjoint copies the
/// moved bytes back ([`realloc_shadow_back`]): the adjoints the moved values gathered in the
/// new shadow then land on zeroed slots, so copying is adding, whatever type the bytes hold:
/// no element type is needed (Rust's `finish_grow` reallocates bytes it never types).
fn realloc_shadow_forward(b: &mut Builder, new: Val, old: Val, len: Val) {
    b.memcpy(new, 1, old, 1, len);
    b.memset_zero(old, len, 1);
}

/// The adjoint of a reallocation's move: the moved bytes of the new shadow back to the old.
fn realloc_shadow_back(b: &mut Builder, new: Val, old: Val, len: Val) {
    b.memcpy(old, 1, new, 1, len);
}

fn realloc_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let call = c.primal_call();
    let m = c.env.module();
    let ptr = Ty::ptr(m.context());
    let calloc = m.get_or_add_function("calloc", Ty::function(ptr, &[size_t(m), size_t(m)], false));
    let one = size_t(m).int_const(1);
    let shadow = c.b.call_function(calloc, &[one, c.args[1]]);
    record_shadow(c, shadow, "free", &[]);
    if let Some(old) = c.shadows[0] {
        let len = c_moved_len(c.b, m, old, c.args[1]);
        let len = unless_failed(c.b, call, len);
        realloc_shadow_forward(c.b, shadow, old, len);
    }
    Ok(Augmented {
        result: Some(call),
        shadow: Some(shadow),
        saved: Some(shadow),
    })
}

/// `len`, or 0 when the `realloc` returned null: it failed, and the old block (with its
/// shadow) stays the program's.
fn unless_failed(b: &mut Builder, result: Val, len: Val) -> Val {
    let failed = b.icmp(IntPred::LLVMIntEQ, result, result.ty().zero());
    b.select(failed, len.ty().zero(), len)
}

fn realloc_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let Some(new_shadow) = c.saved else {
        return Ok(Vec::new());
    };
    if let (Some(old_shadow), Some(result)) = (c.shadows[0], c.result) {
        let len = c_moved_len(c.b, c.env.module(), old_shadow, c.args[1]);
        let len = unless_failed(c.b, result, len);
        realloc_shadow_back(c.b, new_shadow, old_shadow, len);
    }
    call_dealloc(c.b, c.env.module(), "free", new_shadow, &[]);
    Ok(Vec::new())
}

fn rust_realloc_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let call = c.primal_call();
    let m = c.env.module();
    let name = c
        .src
        .called_function()
        .map(|f| f.name())
        .unwrap_or_default();
    let (old_size, align, new_size) = (c.args[1], c.args[2], c.args[3]);
    let ptr = Ty::ptr(m.context());
    // `__rust_alloc` and a memset: a fresh declaration of `__rust_alloc_zeroed` would need the
    // allocator attributes `__rust_alloc`'s `alloc-variant-zeroed` asks of it.
    let alloc = m.get_or_add_function(
        &rust_shim_sibling(&name, "__rust_alloc"),
        Ty::function(ptr, &[new_size.ty(), align.ty()], false),
    );
    let shadow = c.b.call_function(alloc, &[new_size, align]);
    c.b.memset_zero(shadow, new_size, 1);
    record_shadow(c, shadow, &rust_dealloc_name(&name), &[new_size, align]);
    if let Some(old) = c.shadows[0] {
        let len = umin(c.b, old_size, new_size);
        realloc_shadow_forward(c.b, shadow, old, len);
    }
    Ok(Augmented {
        result: Some(call),
        shadow: Some(shadow),
        saved: Some(shadow),
    })
}

fn rust_realloc_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let Some(new_shadow) = c.saved else {
        return Ok(Vec::new());
    };
    let (old_size, align, new_size) = (c.args[1], c.args[2], c.args[3]);
    if let Some(old_shadow) = c.shadows[0] {
        let len = umin(c.b, old_size, new_size);
        realloc_shadow_back(c.b, new_shadow, old_shadow, len);
    }
    let name = c
        .src
        .called_function()
        .map(|f| f.name())
        .unwrap_or_default();
    let dealloc = rust_dealloc_name(&name);
    call_dealloc(
        c.b,
        c.env.module(),
        &dealloc,
        new_shadow,
        &[new_size, align],
    );
    Ok(Vec::new())
}

#[cfg(test)]
mod tests {
    use super::{rust_dealloc_name, rust_shim_name};

    const ALLOC: &str = "_RNvCsfLfy6EI15iL_7___rustc12___rust_alloc";

    #[test]
    fn mangled_allocator_shims_are_recognised() {
        assert_eq!(rust_shim_name(ALLOC), Some("__rust_alloc"));
        assert_eq!(
            rust_shim_name("_RNvCsfLfy6EI15iL_7___rustc19___rust_alloc_zeroed"),
            Some("__rust_alloc_zeroed")
        );
        assert_eq!(
            rust_shim_name("_RNvCs1a2B_7___rustc14___rust_dealloc"),
            Some("__rust_dealloc")
        );
    }

    #[test]
    fn other_names_are_not_shims() {
        assert_eq!(rust_shim_name("__rust_alloc"), None);
        assert_eq!(
            rust_shim_name("_RNvCsfLfy6EI15iL_7___rustc13___rust_alloc"),
            None
        );
        assert_eq!(
            rust_shim_name("_RNvCsfLfy6EI15iL_5alloc12___rust_alloc"),
            None
        );
        assert_eq!(
            rust_shim_name("_RNvNtCslNYArtu3iFV_5alloc7raw_vec12handle_error"),
            None
        );
    }

    #[test]
    fn dealloc_is_spelt_like_its_allocator() {
        assert_eq!(
            rust_dealloc_name(ALLOC),
            "_RNvCsfLfy6EI15iL_7___rustc14___rust_dealloc"
        );
        assert_eq!(rust_dealloc_name("__rust_alloc_zeroed"), "__rust_dealloc");
    }
}
