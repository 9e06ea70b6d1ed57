//! BLAS rules: `dot`, `nrm2`, `axpy`, `scal`, `copy` (level 1), `gemv`, `ger` (level 2) and
//! `gemm` (level 3), in single and double precision, through both the CBLAS interface
//! (`cblas_dgemm(order, transA, ...)`, scalars by value) and the Fortran one (`dgemm_`, every
//! argument by pointer, column-major, transposes as characters).
//!
//! Layout: each routine declares its parameters once, as a [`Signature`] beside its rules
//! (`level1.rs`, `level2.rs`, `level3.rs`); the forward rule, the augmented sweep, the adjoint
//! sweep and the calls the derivative code emits all read argument positions, interface
//! differences and the saved buffer's layout from it. Shared machinery: `site.rs` reads a
//! user's call, `emit.rs` emits CBLAS calls and strided-matrix helpers, `tape.rs` saves and
//! reads back the buffer the adjoint needs.
//!
//! Guarantees:
//! - Derivatives are computed with BLAS calls (never element loops in the caller), on the
//!   caller's storage order, transposes, leading dimensions and strides, negative strides
//!   included (BLAS itself walks them). Every routine the derivative code calls has a rule
//!   here, so derivative code can be differentiated again (forward over reverse).
//! - Missing shadows are zero tangents: their terms are skipped. Derivatives flowing into an
//!   output without a shadow are a compile-time error naming the callee.
//! - In a function that runs on several threads at once (an OpenMP region), the adjoint adds
//!   into the shadow of an input that other threads may share (`AdjointCall::shared`) through
//!   a zeroed scratch array and then element-wise atomic adds (`Blas::add_into_vector`,
//!   `add_into_matrix`); the output's shadow, which only this thread's call wrote, is
//!   updated in place.
//! - The augmented sweep saves, in one `malloc`'d buffer, every scalar argument and, for each
//!   input array the adjoint will need, either a contiguous copy (taken before the call when
//!   the call overwrites it) or, when the overwrite analysis proves the array unchanged until
//!   the adjoint (`analysis/overwrite/arrays.rs`: nothing after the call, the call itself
//!   included, may write it, and the caller writes nothing before the adjoint), the array's
//!   own address and stride, so the adjoint reads it in place; the adjoint frees the buffer.
//!   Which arrays are kept is decided from shadows and from whether a scalar argument is a
//!   constant, a superset of what the adjoint (which knows exact activity) uses.
//!
//! Emitted calls always use CBLAS (`cblas_d*`/`cblas_s*`) with `i32` enums and the integer
//! type of the user's call (`i32` for Fortran calls, which pass `int *`), declared as clang-22
//! declares them from `cblas.h`. Strided matrix operations the BLAS lacks (copy, add, scale
//! with a leading dimension) are small internal helpers `umbra.blas.<p>ge<op>.i<bits>` that
//! loop over columns calling BLAS level 1.
//!
//! Limitations: BLAS's aliasing rules are assumed (outputs overlap no input); products of
//! dimensions (`m * n` for temporaries) are computed in the BLAS integer type.

use crate::rules::rule::{ArrayArgs, Rule};

/// A BLAS rule row: both interfaces and precisions share one forward rule and one reverse half.
macro_rules! blas {
    ($name:literal, [$($alias:literal),*], $fwd:expr, $rev:expr, $effects:expr) => {
        Rule {
            name: $name,
            aliases: &[$($alias),*],
            libm_variants: false,
            area: Area::Blas,
            kind: RuleKind::Forward($fwd as ForwardRule, Reverse::Custom($rev)),
            effects: $effects
                .hiding(crate::rules::rule::Hidden::None)
                .with_arrays(crate::rules::blas::array_args),
        }
    };
}

/// A routine's reverse half: its augmented and adjoint sweeps, with the needs all BLAS rules
/// share.
macro_rules! custom {
    ($static:ident, $augment:ident, $adjoint:ident) => {
        static $static: CustomReverse = CustomReverse {
            augment: $augment,
            adjoint: $adjoint,
            needs: super::tape::NEEDS,
        };
    };
}

mod emit;
mod level1;
mod level2;
mod level3;
mod routines;
mod signature;
mod site;
mod tape;
#[cfg(test)]
mod testing;

/// Every BLAS rule, level by level (the order `umbra rules` lists them in).
pub fn rules() -> impl Iterator<Item = &'static Rule> {
    level1::RULES
        .iter()
        .chain(level2::RULES)
        .chain(level3::RULES)
}

/// The [`ArrayArgs`] of a call to a BLAS routine the module declares (every BLAS rule's
/// [`Effects::arrays`](crate::rules::Effects::arrays)): its keepable input arrays and its
/// output, at their positions in the call's interface. `None` for a routine the module defines
/// (differentiated through its body) or a callee of another name.
pub fn array_args(call: crate::ir::Val) -> Option<ArrayArgs> {
    let f = call.called_function().filter(|f| f.is_declaration())?;
    let name = f.name();
    let rule = crate::rules::lookup(&name)?;
    // `cblas_dgemv` (also `sgemv_`, ...): the routine is what follows the precision letter.
    let routine = rule.name.strip_prefix("cblas_")?.get(1..)?;
    let sig = level1::SIGNATURES
        .iter()
        .chain(level2::SIGNATURES)
        .chain(level3::SIGNATURES)
        .find(|s| s.name == routine)?;
    let fortran = !name.starts_with("cblas_");
    let pos = |p: &str| sig.position(p, fortran);
    let found = ArrayArgs {
        inputs: sig
            .kept_arrays()
            .filter(|&a| Some(a) != sig.output)
            .map(pos)
            .collect(),
        output: sig.output.map(pos),
    };
    // A call through another prototype (too few arguments, an array passed as something
    // else) is not one whose arrays are known: the analyses then assume the worst.
    let args = call.call_args();
    let pointer = |k: &usize| args.get(*k).is_some_and(|a| a.ty().is_ptr());
    (found.inputs.iter().all(pointer) && found.output.iter().all(pointer)).then_some(found)
}
