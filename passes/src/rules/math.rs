//! Math rules: the C99 `<math.h>` functions (with their `f`/`l` variants) and the LLVM math
//! intrinsics, each declared once as its partial derivatives. Forward mode multiplies the
//! partials by the argument tangents and sums; reverse mode scales the result's adjoint by them.
//!
//! Partials are built from LLVM intrinsics so they work unchanged on `float`, `double`, long
//! double and vectors, and so every formula is itself differentiable (second order).
//! Non-differentiable points follow the usual conventions: `fabs'(0) = 1`, `fmin`/`fmax` pick
//! the first argument on ties, the rounding functions have derivative zero.

use super::{Area, Effects, Partials, Rule, RuleKind};
use crate::ir::{Builder, IntPred, RealPred, Val};
use std::f64::consts::{LN_10, LN_2, PI};

macro_rules! math {
    ($name:literal, [$($alias:literal),*], $partials:expr) => {
        Rule {
            name: $name,
            aliases: &[$($alias),*],
            libm_variants: !is_intrinsic_name($name),
            area: Area::Math,
            kind: RuleKind::Math($partials as Partials),
            effects: Effects::NONE,
        }
    };
}

/// True for `llvm.*` names (usable in statics, unlike `str::starts_with`).
const fn is_intrinsic_name(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() > 5 && b[0] == b'l' && b[1] == b'l' && b[2] == b'v' && b[3] == b'm' && b[4] == b'.'
}

fn k(x: Val, c: f64) -> Val {
    x.ty().float_const(c)
}

/// `1 / d`.
fn recip(b: &mut Builder, d: Val) -> Val {
    let one = k(d, 1.0);
    b.fdiv(one, d)
}

/// `x * x`.
fn sq(b: &mut Builder, x: Val) -> Val {
    b.fmul(x, x)
}

/// `1 / sqrt(c + s * x^2)`.
fn inv_sqrt_quad(b: &mut Builder, x: Val, c: f64, s: f64) -> Val {
    let x2 = sq(b, x);
    let sx2 = b.fmul_const(x2, s);
    let kc = k(x, c);
    let inner = b.fadd(kc, sx2);
    let root = b.math("llvm.sqrt", &[inner]);
    recip(b, root)
}

/// Indicator `cond ? 1 : 0` in the type of `x`.
fn indicator(b: &mut Builder, cond: Val, x: Val) -> Val {
    let (one, zero) = (k(x, 1.0), k(x, 0.0));
    b.select(cond, one, zero)
}

/// `2/sqrt(pi) * exp(-x^2)`, the derivative of `erf`.
fn gauss(b: &mut Builder, x: Val, sign: f64) -> Val {
    let x2 = sq(b, x);
    let nx2 = b.fneg(x2);
    let e = b.math("llvm.exp", &[nx2]);
    b.fmul_const(e, sign * 2.0 / PI.sqrt())
}

/// Partials of `min`/`max`-like selections: the chosen argument gets 1.
fn pick(b: &mut Builder, a: &[Val], pred: RealPred) -> Vec<Option<Val>> {
    let first = b.fcmp(pred, a[0], a[1]);
    let p0 = indicator(b, first, a[0]);
    let one = k(a[0], 1.0);
    let p1 = b.fsub(one, p0);
    vec![Some(p0), Some(p1)]
}

/// Every math rule.
pub static RULES: &[Rule] = &[
    math!("sin", ["llvm.sin"], |b, a, _r| vec![Some(
        b.math("llvm.cos", &[a[0]])
    )]),
    math!("cos", ["llvm.cos"], |b, a, _r| {
        let s = b.math("llvm.sin", &[a[0]]);
        vec![Some(b.fneg(s))]
    }),
    math!("tan", ["llvm.tan"], |b, _a, r| {
        let r2 = sq(b, r);
        let one = k(r, 1.0);
        vec![Some(b.fadd(one, r2))]
    }),
    math!("asin", ["llvm.asin"], |b, a, _r| vec![Some(inv_sqrt_quad(
        b, a[0], 1.0, -1.0
    ))]),
    math!("acos", ["llvm.acos"], |b, a, _r| {
        let p = inv_sqrt_quad(b, a[0], 1.0, -1.0);
        vec![Some(b.fneg(p))]
    }),
    math!("atan", ["llvm.atan"], |b, a, _r| {
        let x2 = sq(b, a[0]);
        let one = k(a[0], 1.0);
        let d = b.fadd(one, x2);
        vec![Some(recip(b, d))]
    }),
    math!("atan2", ["llvm.atan2"], |b, a, _r| {
        // atan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2)
        let (y, x) = (a[0], a[1]);
        let (y2, x2) = (sq(b, y), sq(b, x));
        let d = b.fadd(x2, y2);
        let py = b.fdiv(x, d);
        let ny = b.fneg(y);
        let px = b.fdiv(ny, d);
        vec![Some(py), Some(px)]
    }),
    math!("sinh", ["llvm.sinh"], |b, a, _r| vec![Some(
        b.math("llvm.cosh", &[a[0]])
    )]),
    math!("cosh", ["llvm.cosh"], |b, a, _r| vec![Some(
        b.math("llvm.sinh", &[a[0]])
    )]),
    math!("tanh", ["llvm.tanh"], |b, _a, r| {
        let r2 = sq(b, r);
        let one = k(r, 1.0);
        vec![Some(b.fsub(one, r2))]
    }),
    math!("asinh", [], |b, a, _r| vec![Some(inv_sqrt_quad(
        b, a[0], 1.0, 1.0
    ))]),
    math!("acosh", [], |b, a, _r| vec![Some(inv_sqrt_quad(
        b, a[0], -1.0, 1.0
    ))]),
    math!("atanh", [], |b, a, _r| {
        let x2 = sq(b, a[0]);
        let one = k(a[0], 1.0);
        let d = b.fsub(one, x2);
        vec![Some(recip(b, d))]
    }),
    math!("exp", ["llvm.exp"], |_b, _a, r| vec![Some(r)]),
    math!("exp2", ["llvm.exp2"], |b, _a, r| vec![Some(
        b.fmul_const(r, LN_2)
    )]),
    math!("exp10", ["llvm.exp10"], |b, _a, r| vec![Some(
        b.fmul_const(r, LN_10)
    )]),
    math!("expm1", [], |b, _a, r| {
        let one = k(r, 1.0);
        vec![Some(b.fadd(r, one))]
    }),
    math!("log", ["llvm.log"], |b, a, _r| vec![Some(recip(b, a[0]))]),
    math!("log2", ["llvm.log2"], |b, a, _r| {
        let d = b.fmul_const(a[0], LN_2);
        vec![Some(recip(b, d))]
    }),
    math!("log10", ["llvm.log10"], |b, a, _r| {
        let d = b.fmul_const(a[0], LN_10);
        vec![Some(recip(b, d))]
    }),
    math!("log1p", [], |b, a, _r| {
        let one = k(a[0], 1.0);
        let d = b.fadd(one, a[0]);
        vec![Some(recip(b, d))]
    }),
    math!("pow", ["llvm.pow"], |b, a, r| {
        // d/dx = y * x^(y-1), taken as 0 for y = 0 (x^0 is constant; avoids 0 * inf at x = 0);
        // d/dy = x^y * log(x), taken as 0 at x = 0 (the limit for y > 0).
        let (x, y) = (a[0], a[1]);
        let one = k(y, 1.0);
        let ym1 = b.fsub(y, one);
        let p = b.math("llvm.pow", &[x, ym1]);
        let yp = b.fmul(y, p);
        let y0 = b.fcmp(RealPred::LLVMRealOEQ, y, k(y, 0.0));
        let px = b.select(y0, k(y, 0.0), yp);
        let lx = b.math("llvm.log", &[x]);
        let rl = b.fmul(r, lx);
        let zero = k(x, 0.0);
        let is0 = b.fcmp(RealPred::LLVMRealOEQ, x, zero);
        let py = b.select(is0, zero, rl);
        vec![Some(px), Some(py)]
    }),
    math!("sqrt", ["llvm.sqrt"], |b, _a, r| {
        let two_r = b.fmul_const(r, 2.0);
        vec![Some(recip(b, two_r))]
    }),
    math!("cbrt", [], |b, _a, r| {
        let r2 = sq(b, r);
        let d = b.fmul_const(r2, 3.0);
        vec![Some(recip(b, d))]
    }),
    math!("hypot", [], |b, a, r| vec![
        Some(b.fdiv(a[0], r)),
        Some(b.fdiv(a[1], r))
    ]),
    math!("erf", [], |b, a, _r| vec![Some(gauss(b, a[0], 1.0))]),
    math!("erfc", [], |b, a, _r| vec![Some(gauss(b, a[0], -1.0))]),
    math!("fabs", ["llvm.fabs"], |b, a, _r| {
        let one = k(a[0], 1.0);
        vec![Some(b.math("llvm.copysign", &[one, a[0]]))]
    }),
    math!(
        "fmin",
        ["llvm.minnum", "llvm.minimum", "llvm.minimumnum"],
        |b, a, _r| { pick(b, a, RealPred::LLVMRealOLE) }
    ),
    math!(
        "fmax",
        ["llvm.maxnum", "llvm.maximum", "llvm.maximumnum"],
        |b, a, _r| { pick(b, a, RealPred::LLVMRealOGE) }
    ),
    math!("copysign", ["llvm.copysign"], |b, a, _r| {
        // copysign(x, y) = |x| sign(y): d/dx = sign(x) sign(y).
        let one = k(a[0], 1.0);
        let sx = b.math("llvm.copysign", &[one, a[0]]);
        let sy = b.math("llvm.copysign", &[one, a[1]]);
        vec![Some(b.fmul(sx, sy)), None]
    }),
    math!("fmod", [], |b, a, _r| {
        // fmod(x, y) = x - y * trunc(x / y)
        let q = b.fdiv(a[0], a[1]);
        let t = b.math("llvm.trunc", &[q]);
        vec![Some(k(a[0], 1.0)), Some(b.fneg(t))]
    }),
    math!("remainder", [], |b, a, _r| {
        // remainder(x, y) = x - y * roundeven(x / y)
        let q = b.fdiv(a[0], a[1]);
        let t = b.math("llvm.roundeven", &[q]);
        vec![Some(k(a[0], 1.0)), Some(b.fneg(t))]
    }),
    math!("ldexp", ["llvm.ldexp"], |b, a, _r| {
        // ldexp(x, n) = x * 2^n
        let one = k(a[0], 1.0);
        let scale = b.intrinsic("llvm.ldexp", &[one.ty(), a[1].ty()], &[one, a[1]]);
        vec![scale, None]
    }),
    math!("fma", ["llvm.fma", "llvm.fmuladd"], |_b, a, _r| {
        vec![Some(a[1]), Some(a[0]), Some(k(a[2], 1.0))]
    }),
    math!("llvm.powi", [], |b, a, _r| {
        // powi(x, n) = x^n: d/dx = n x^(n-1), and 0 for n = 0 (avoids 0 * inf at x = 0).
        let (x, n) = (a[0], a[1]);
        let one = n.ty().int_const(1);
        let nm1 = b.sub(n, one);
        let p = b.intrinsic("llvm.powi", &[x.ty(), n.ty()], &[x, nm1]);
        let nf = b.si_to_fp(n, x.ty());
        let n0 = b.icmp(IntPred::LLVMIntEQ, n, n.ty().zero());
        let zero = k(x, 0.0);
        vec![
            p.map(|p| {
                let d = b.fmul(nf, p);
                b.select(n0, zero, d)
            }),
            None,
        ]
    }),
    math!("floor", ["llvm.floor"], |_b, _a, _r| vec![None]),
    math!("ceil", ["llvm.ceil"], |_b, _a, _r| vec![None]),
    math!("trunc", ["llvm.trunc"], |_b, _a, _r| vec![None]),
    math!("round", ["llvm.round"], |_b, _a, _r| vec![None]),
    math!("rint", ["llvm.rint"], |_b, _a, _r| vec![None]),
    math!("nearbyint", ["llvm.nearbyint"], |_b, _a, _r| vec![None]),
    math!("roundeven", ["llvm.roundeven"], |_b, _a, _r| vec![None]),
];

#[cfg(test)]
mod tests {
    use super::super::harness::{check_rule, Case};

    /// Each rule at points away from kinks and poles; both float and double are exercised by
    /// the harness, which compares against central finite differences.
    #[test]
    fn math_rules_match_finite_differences() {
        let cases: &[(&str, &[f64])] = &[
            ("sin", &[0.7]),
            ("cos", &[0.7]),
            ("tan", &[0.4]),
            ("asin", &[0.3]),
            ("acos", &[0.3]),
            ("atan", &[0.8]),
            ("atan2", &[0.6, -1.3]),
            ("sinh", &[0.5]),
            ("cosh", &[0.5]),
            ("tanh", &[0.5]),
            ("asinh", &[0.9]),
            ("acosh", &[1.7]),
            ("atanh", &[0.4]),
            ("exp", &[0.3]),
            ("exp2", &[0.3]),
            ("exp10", &[0.3]),
            ("expm1", &[0.3]),
            ("log", &[1.7]),
            ("log2", &[1.7]),
            ("log10", &[1.7]),
            ("log1p", &[0.7]),
            ("pow", &[1.3, 2.7]),
            ("sqrt", &[2.2]),
            ("cbrt", &[2.2]),
            ("hypot", &[1.5, -0.8]),
            ("erf", &[0.4]),
            ("erfc", &[0.4]),
            ("fabs", &[-1.2]),
            ("fmin", &[0.4, 0.9]),
            ("fmax", &[0.4, 0.9]),
            ("copysign", &[1.4, -2.0]),
            ("fmod", &[5.3, 1.7]),
            ("remainder", &[5.3, 1.7]),
            ("floor", &[1.3]),
            ("ceil", &[1.3]),
            ("trunc", &[1.3]),
            ("round", &[1.3]),
            ("rint", &[1.3]),
            ("nearbyint", &[1.3]),
            ("roundeven", &[1.3]),
            ("fma", &[1.1, -0.7, 0.4]),
        ];
        for (name, xs) in cases {
            check_rule(&Case::libm(name, xs));
        }
        check_rule(&Case::intrinsic("llvm.fmuladd", &[1.1, -0.7, 0.4]));
        check_rule(&Case::intrinsic("llvm.minnum", &[0.9, 0.4]));
        check_rule(&Case::intrinsic("llvm.maxnum", &[0.9, 0.4]));
        check_rule(&Case::with_int("llvm.powi", 1.3, 5));
        check_rule(&Case::with_int("llvm.powi", 0.0, 0));
        // x = 0: d/dy is taken as its limit 0; y = 0: d/dx is 0 (no 0 * inf).
        check_rule(&Case::libm("pow", &[0.0, 2.0]));
        check_rule(&Case::libm("pow", &[1.5, 0.0]));
        check_rule(&Case::with_int("ldexp", 1.3, 3));
    }
}
