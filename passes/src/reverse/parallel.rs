//! What a sweep that runs on several threads at once (an OpenMP region's outlined function)
//! must do differently, for the visitors to call without depending on [`super::openmp`]
//! (which extends them): add adjoints atomically, and refuse calls whose adjoints would add
//! into shared memory without synchronisation.

use crate::diag::{Error, Result};
use crate::ir::{Builder, Ty, Val};

/// `*sp += d` with atomic adds (lane by lane for vectors): an adjoint other threads may add to
/// at the same time. Types without an atomic add are refused at `at`.
pub(super) fn atomic_add(b: &mut Builder, sp: Val, d: Val, at: Val) -> Result<()> {
    let ty = d.ty();
    let ok = |t: Ty| matches!(t.print().as_str(), "float" | "double" | "half" | "bfloat");
    if ok(ty) {
        b.atomic_fadd(sp, d);
        return Ok(());
    }
    if ty.is_vector() && ok(ty.element()) {
        let i64t = Ty::int(ty.context(), 64);
        for k in 0..ty.vector_len() {
            let lane = b.extract_lane(d, k);
            let p = b.gep(ty.element(), sp, &[i64t.int_const(k as u64)], true);
            b.atomic_fadd(p, lane);
        }
        return Ok(());
    }
    Err(Error::at(
        at,
        format!(
            "cannot differentiate this load inside an OpenMP parallel region: its adjoint ({}) has no atomic add, and other threads may add to the same memory",
            ty.print()
        ),
    ))
}

/// In a function that runs on several threads at once, calls whose adjoints add into memory
/// are refused unless they synchronise (the OpenMP rules) or touch only memory private to the
/// thread (a memory intrinsic whose differentiable pointers all address local variables of
/// the function, [`crate::openmp::thread_private`]: `float etot[8]` cleared with `memset`)
/// or add into shadows other threads share atomically (the BLAS rules);
/// scalar math, hand-written rules that touch no memory (complex functions, struct-valued
/// intrinsics such as `llvm.modf`: their adjoints only return values), primal-only calls and
/// derived callees (themselves differentiated as running in parallel) are fine.
pub(super) fn check_parallel_callee(
    i: Val,
    callee: super::classify::ReverseCallee,
    is_active: impl Fn(Val) -> bool,
) -> Result<()> {
    use super::classify::ReverseCallee::*;
    let refused = match callee {
        Custom(rule, _) if matches!(rule.name, "llvm.memcpy" | "llvm.memmove" | "llvm.memset") => {
            i.call_args().into_iter().any(|a| {
                a.ty().is_ptr_or_ptr_vector() && is_active(a) && !crate::openmp::thread_private(a)
            })
        }
        // Rules reading and writing whole arrays (BLAS) add into the shadows other threads
        // may share atomically (`AdjointCall::shared`).
        Custom(rule, _) if rule.effects.arrays.is_some() => false,
        Custom(rule, _) => !rule.effects.synchronises && rule.effects.touches_memory(),
        User(_) => true,
        _ => false,
    };
    if refused {
        let name = i.called_function().map(|f| f.name()).unwrap_or_default();
        return Err(Error::at(
            i,
            format!("reverse mode cannot differentiate the call to '{name}' inside an OpenMP parallel region yet: its adjoint would add into memory other threads may share without synchronisation"),
        ));
    }
    Ok(())
}
