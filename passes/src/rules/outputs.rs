//! Math functions with two results: `modf` (fraction and integral part), `frexp` (mantissa and
//! exponent) and `sincos`. Two spellings each:
//!
//! - the LLVM intrinsics `llvm.modf`, `llvm.frexp` and `llvm.sincos`, which return both results
//!   as a two-field struct (`{T, T}`, `{T, i32}`; vectors lane-wise). clang emits `llvm.modf`
//!   for every C `modf` at every optimisation level, and `llvm.sincos` for `sincos` under
//!   `-ffast-math`. Their tangents and adjoints are structs of the same type.
//! - the libm functions that return a result through a pointer: `modf(x, &ip)` and
//!   `sincos(x, &s, &c)` with their `f`/`l` variants. A pointer's shadow receives the tangent
//!   of what the call wrote there (forward mode); in reverse mode the adjoint of that value is
//!   read from the shadow, which is then zeroed, as for a store: the call overwrote the memory.
//!   (libm `frexp` writes only an integer through its pointer: an ordinary partials rule in
//!   `math.rs`.)
//!
//! Derivatives: `d frac = dx` and `d int = 0` (the integral part is a step function);
//! `d m = 2^-e dx` for the mantissa, computed as `m / x` (1 at `x = 0`, as `math.rs`'s `frexp`),
//! and none for the exponent; `d sin = cos dx`, `d cos = -sin dx`. The libm `sincos` rule
//! recomputes `sin x` and `cos x` with `llvm.sin`/`llvm.cos` rather than reading them back
//! through the pointers, which the program may since have overwritten (or which may be one
//! and the same pointer). Everything is built from instructions and intrinsics with rules, so
//! derivative code is differentiable again.

use super::calls::primal_only;
use super::calls::{
    AdjointCall, ArgAdjoints, ArgNeeds, CustomNeeds, CustomReverse, ForwardCall, ForwardRule,
};
use super::rule::{Area, Effects, Hidden, Reverse, Rule, RuleKind};
use crate::diag::{Error, Result};
use crate::ir::{Builder, RealPred, Ty, Val};

macro_rules! outputs {
    ($name:literal, $libm:literal, $fwd:expr, $rev:expr, $effects:expr) => {
        Rule {
            name: $name,
            aliases: &[],
            libm_variants: $libm,
            area: Area::Math,
            kind: RuleKind::Forward($fwd as ForwardRule, Reverse::Custom(&$rev)),
            effects: $effects.hiding(Hidden::Global("signgam")),
        }
    };
}

/// The rules of this file.
pub static RULES: &[Rule] = &[
    outputs!("llvm.modf", false, modf_forward, MODF, Effects::NONE),
    outputs!("llvm.frexp", false, frexp_forward, FREXP, Effects::NONE),
    outputs!("llvm.sincos", false, sincos_forward, SINCOS, Effects::NONE),
    outputs!(
        "modf",
        true,
        modf_libm_forward,
        MODF_LIBM,
        Effects::WRITES.writing_floats()
    ),
    outputs!(
        "sincos",
        true,
        sincos_libm_forward,
        SINCOS_LIBM,
        Effects::WRITES.writing_floats()
    ),
];

const fn needs(args: ArgNeeds, result: bool, shadows_only: ArgNeeds) -> CustomNeeds {
    CustomNeeds {
        args,
        result,
        saved: false,
        shadows_only,
    }
}

static MODF: CustomReverse = CustomReverse {
    augment: primal_only,
    adjoint: modf_adjoint,
    needs: needs(ArgNeeds::None, false, ArgNeeds::None),
};
static FREXP: CustomReverse = CustomReverse {
    augment: primal_only,
    adjoint: frexp_adjoint,
    needs: needs(ArgNeeds::All, true, ArgNeeds::None),
};
static SINCOS: CustomReverse = CustomReverse {
    augment: primal_only,
    adjoint: sincos_adjoint,
    needs: needs(ArgNeeds::None, true, ArgNeeds::None),
};
static MODF_LIBM: CustomReverse = CustomReverse {
    augment: primal_only,
    adjoint: modf_libm_adjoint,
    needs: needs(ArgNeeds::None, false, ArgNeeds::Positions(&[1])),
};
static SINCOS_LIBM: CustomReverse = CustomReverse {
    augment: primal_only,
    adjoint: sincos_libm_adjoint,
    needs: needs(
        ArgNeeds::Positions(&[0]),
        false,
        ArgNeeds::Positions(&[1, 2]),
    ),
};

/// The struct `{first, second}` of type `ty`, a missing field zero.
fn pair(b: &mut Builder, ty: Ty, first: Val, second: Option<Val>) -> Val {
    let v = b.insert_value(ty.zero(), first, 0);
    match second {
        Some(s) => b.insert_value(v, s, 1),
        None => v,
    }
}

/// `dm/dx = 2^-e` for `m = frexp(x)`, as `m / x` (1 at `x = 0`, where `m = 0`: no 0/0, also
/// when differentiated again).
fn mantissa_slope(b: &mut Builder, x: Val, m: Val) -> Val {
    let one = x.ty().float_const(1.0);
    let is0 = b.fcmp(RealPred::LLVMRealOEQ, x, x.ty().float_const(0.0));
    let safe = b.select(is0, one, x);
    let q = b.fdiv(m, safe);
    b.select(is0, one, q)
}

/// `(sin x, cos x)` as intrinsics.
fn sin_cos(b: &mut Builder, x: Val) -> Result<(Val, Val)> {
    let mut one = |name: &str| {
        b.intrinsic(name, &[x.ty()], &[x]).ok_or_else(|| {
            Error::general(format!(
                "LLVM has no intrinsic {name} for {}",
                x.ty().print()
            ))
        })
    };
    Ok((one("llvm.sin")?, one("llvm.cos")?))
}

/// `cos x · ds - sin x · dc`: the adjoint of `x` from those of `sin x` and `cos x`.
fn sincos_pullback(b: &mut Builder, sin: Val, cos: Val, ds: Val, dc: Val) -> Val {
    let a = b.fmul(cos, ds);
    let c = b.fmul(sin, dc);
    b.fsub(a, c)
}

fn modf_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let Some(dx) = c.tangents[0] else {
        return Ok(None);
    };
    Ok(Some(pair(c.b, c.call.ty(), dx, None)))
}

fn modf_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let mut out = vec![None; c.args.len()];
    if let (Some(d), true) = (c.d_result, c.active[0]) {
        out[0] = Some(c.b.extract_value(d, 0));
    }
    Ok(out)
}

fn frexp_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let Some(dx) = c.tangents[0] else {
        return Ok(None);
    };
    let b = &mut *c.b;
    let m = b.extract_value(c.call, 0);
    let slope = mantissa_slope(b, c.args[0], m);
    let dm = b.fmul(slope, dx);
    Ok(Some(pair(b, c.call.ty(), dm, None)))
}

fn frexp_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let mut out = vec![None; c.args.len()];
    let (Some(d), Some(r), true) = (c.d_result, c.result, c.active[0]) else {
        return Ok(out);
    };
    let b = &mut *c.b;
    let m = b.extract_value(r, 0);
    let slope = mantissa_slope(b, c.args[0], m);
    let dm = b.extract_value(d, 0);
    out[0] = Some(b.fmul(slope, dm));
    Ok(out)
}

fn sincos_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let Some(dx) = c.tangents[0] else {
        return Ok(None);
    };
    let b = &mut *c.b;
    let (sin, cos) = (b.extract_value(c.call, 0), b.extract_value(c.call, 1));
    let ds = b.fmul(cos, dx);
    let nsin = b.fneg(sin);
    let dc = b.fmul(nsin, dx);
    Ok(Some(pair(b, c.call.ty(), ds, Some(dc))))
}

fn sincos_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let mut out = vec![None; c.args.len()];
    let (Some(d), Some(r), true) = (c.d_result, c.result, c.active[0]) else {
        return Ok(out);
    };
    let b = &mut *c.b;
    let (sin, cos) = (b.extract_value(r, 0), b.extract_value(r, 1));
    let (ds, dc) = (b.extract_value(d, 0), b.extract_value(d, 1));
    out[0] = Some(sincos_pullback(b, sin, cos, ds, dc));
    Ok(out)
}

fn modf_libm_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    // The integral part is a step function: its tangent is zero.
    if let Some(sip) = c.tangents[1] {
        let zero = c.args[0].ty().zero();
        c.b.store(zero, sip, 0);
    }
    Ok(c.tangents[0])
}

fn modf_libm_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let mut out = vec![None; c.args.len()];
    if let Some(sip) = c.shadows[1] {
        // The adjoint of the integral part goes nowhere; the value the call overwrote has none.
        let zero = c.src.operand(0).ty().zero();
        c.b.store(zero, sip, 0);
    }
    if c.active[0] {
        out[0] = c.d_result;
    }
    Ok(out)
}

fn sincos_libm_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let (ss, sc) = (c.tangents[1], c.tangents[2]);
    if ss.is_none() && sc.is_none() {
        return Ok(None);
    }
    let x = c.args[0];
    let b = &mut *c.b;
    let (ds, dc) = match c.tangents[0] {
        Some(dx) => {
            let (sin, cos) = sin_cos(b, x)?;
            let ds = b.fmul(cos, dx);
            let nsin = b.fneg(sin);
            (ds, b.fmul(nsin, dx))
        }
        None => (x.ty().zero(), x.ty().zero()),
    };
    // In the order libm writes them, so `s == c` leaves the cosine's tangent, as it leaves the
    // cosine.
    if let Some(ss) = ss {
        b.store(ds, ss, 0);
    }
    if let Some(sc) = sc {
        b.store(dc, sc, 0);
    }
    Ok(None)
}

fn sincos_libm_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let mut out = vec![None; c.args.len()];
    let ty = c.src.operand(0).ty();
    let b = &mut *c.b;
    // Reverse order of the writes: with `s == c` the sine's adjoint is then the zero the cosine
    // left, as the sine it stood for was overwritten.
    let mut take = |shadow: Option<Val>| {
        shadow.map(|p| {
            let d = b.load(ty, p, 0);
            b.store(ty.zero(), p, 0);
            d
        })
    };
    let dc = take(c.shadows[2]);
    let ds = take(c.shadows[1]);
    if !c.active[0] || (ds.is_none() && dc.is_none()) {
        return Ok(out);
    }
    let (sin, cos) = sin_cos(b, c.args[0])?;
    let zero = ty.zero();
    out[0] = Some(sincos_pullback(
        b,
        sin,
        cos,
        ds.unwrap_or(zero),
        dc.unwrap_or(zero),
    ));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::harness::{check_rule, check_second_order, Case};
    use super::RULES;

    fn cases() -> Vec<Case> {
        vec![
            Case::parts("llvm.modf", 2.75),
            Case::parts("llvm.modf", -1.3),
            Case::parts("llvm.frexp", 5.3),
            Case::parts("llvm.frexp", -0.3),
            Case::parts("llvm.sincos", 0.7),
            Case::parts("llvm.sincos", -2.1),
            Case::outputs("modf", 2.75, 1, true),
            Case::outputs("modf", -1.3, 1, true),
            Case::outputs("sincos", 0.7, 2, false),
            Case::outputs("sincos", -2.1, 2, false),
        ]
    }

    #[test]
    fn two_result_rules_match_finite_differences() {
        for case in cases() {
            check_rule(&case);
        }
    }

    #[test]
    fn two_result_derivatives_are_differentiable_again() {
        for case in cases() {
            check_second_order(&case);
        }
    }

    #[test]
    fn every_two_result_name_has_a_case() {
        let tested: Vec<String> = cases().iter().flat_map(Case::callee_names).collect();
        for r in RULES {
            for n in r.names() {
                assert!(tested.contains(&n), "no test case calls {n}");
            }
        }
    }
}
