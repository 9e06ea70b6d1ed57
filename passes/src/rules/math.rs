//! Math rules: the C99 `<math.h>` functions (with their `f`/`l` variants) and the LLVM math
//! intrinsics, each declared once as its partial derivatives. Forward mode multiplies the
//! partials by the argument tangents and sums; reverse mode scales the result's adjoint by them.
//!
//! Partials are built from LLVM intrinsics so they work unchanged on `float`, `double`, long
//! double and vectors, and so every formula is itself differentiable (second order).
//! Non-differentiable points follow the usual conventions: `fabs'(0) = 1`, `fmin`/`fmax` pick
//! the first argument on ties, the rounding functions have derivative zero.
//!
//! Two kinds of formula need more than intrinsics: the gamma functions need digamma, which libm
//! lacks, so it is emitted as an internal helper function with a plain-IR body (differentiable
//! again); the Bessel functions' derivatives are other Bessel functions, called from libm.

use super::rule::{Area, Effects, Hidden, Partials, Rule, RuleKind};
use crate::ir::{Builder, IntPred, Module, RealPred, Ty, Val};
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
    // A function that also writes an integer through a pointer (`frexp`'s exponent,
    // `remquo`'s quotient bits) or to `signgam` (`lgamma`): no derivative flows there, but
    // reverse mode must not replay loads across it.
    (writes $name:literal, [$($alias:literal),*], $partials:expr) => {
        Rule {
            effects: Effects::READS_WRITES.hiding(Hidden::Global("signgam")),
            ..math!($name, [$($alias),*], $partials)
        }
    };
    (writes exact $name:literal, [$($alias:literal),*], $partials:expr) => {
        Rule {
            effects: Effects::READS_WRITES.hiding(Hidden::Global("signgam")),
            ..math!(exact $name, [$($alias),*], $partials)
        }
    };
    // A libm name whose float/long double spellings are not `name` + `f`/`l` (`lgamma_r`,
    // `lgammaf_r`): they are listed as aliases instead.
    (exact $name:literal, [$($alias:literal),*], $partials:expr) => {
        Rule {
            name: $name,
            aliases: &[$($alias),*],
            libm_variants: false,
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

/// Partials of `min`/`max`-like selections: the argument the result equals gets 1, the first
/// one on ties. Comparing with the result (not the arguments with each other) makes one rule
/// right for every variant: NaN-ignoring (`fmax(x, NaN) = x`), NaN-propagating, by magnitude.
fn pick(b: &mut Builder, a: &[Val], r: Val) -> Vec<Option<Val>> {
    let first = b.fcmp(RealPred::LLVMRealOEQ, r, a[0]);
    let p0 = indicator(b, first, a[0]);
    let one = k(a[0], 1.0);
    let p1 = b.fsub(one, p0);
    vec![Some(p0), Some(p1)]
}

/// `ldexp(x, n) = x 2^n` (and `scalbn`, `scalbln`): d/dx = `ldexp(1, n)`, exact even where
/// `x 2^n` overflows or `x = 0`; the integer exponent has no partial.
fn ldexp_partials(b: &mut Builder, a: &[Val], _r: Val) -> Vec<Option<Val>> {
    let one = k(a[0], 1.0);
    let scale = b.intrinsic("llvm.ldexp", &[one.ty(), a[1].ty()], &[one, a[1]]);
    vec![scale, None]
}

/// Partials of a function equal to its first argument up to a step of at most one unit in the
/// last place (`nextafter`, `nexttoward`): d/dx = 1, nothing for the direction argument.
fn identity_first(_b: &mut Builder, a: &[Val], _r: Val) -> Vec<Option<Val>> {
    let mut ps = vec![None; a.len()];
    ps[0] = Some(k(a[0], 1.0));
    ps
}

/// The partials of a function with derivative zero wherever it is differentiable.
fn flat(_b: &mut Builder, a: &[Val], _r: Val) -> Vec<Option<Val>> {
    vec![None; a.len()]
}

/// `remainder(x, y) = x - y roundeven(x / y)` (and `remquo`, whose quotient pointer gets no
/// partial): d/dx = 1, d/dy = -roundeven(x / y), the quotient taken as constant (it jumps at
/// the points where `x / y` is half an odd integer).
fn remainder_partials(b: &mut Builder, a: &[Val], _r: Val) -> Vec<Option<Val>> {
    let q = b.fdiv(a[0], a[1]);
    let t = b.math("llvm.roundeven", &[q]);
    let mut ps = vec![Some(k(a[0], 1.0)), Some(b.fneg(t))];
    ps.resize(a.len(), None);
    ps
}

// ----- digamma -----

/// The helper shifts its argument up by this many steps (`psi(w) = psi(w + N) - sum 1/(w + j)`)
/// so the asymptotic series is evaluated at `y > 8`, where its first omitted term is < 2e-14.
const DIGAMMA_SHIFT: u32 = 8;

/// `B_2k / 2k` for k = 1..6: `psi(y) ~ ln y - 1/(2y) - sum_k (B_2k / 2k) y^-2k`.
const DIGAMMA_SERIES: [f64; 6] = [
    1.0 / 12.0,
    -1.0 / 120.0,
    1.0 / 252.0,
    -1.0 / 240.0,
    1.0 / 132.0,
    -691.0 / 32760.0,
];

/// `digamma(x)`, the derivative of `lgamma`, through the helper `umbra.digamma.<ty>`.
fn digamma(b: &mut Builder, x: Val) -> Val {
    let f = digamma_helper(b.module(), x.ty());
    b.call_function(f, &[x])
}

/// `<ty> umbra.digamma.<ty>(<ty> x)` (`.f64`, `.f32`, `.v2f64`, ...), defined on first use with
/// internal linkage and reused after. Branch-free, so one body serves scalars and vectors alike,
/// and built only from operations Umbra differentiates (for second derivatives).
///
/// Accuracy (double): about 1e-15 absolute, so 1e-13 relative except near digamma's roots.
/// At the poles (0, -1, -2, ...) the result is infinite or NaN.
pub fn digamma_helper(m: Module, ty: Ty) -> Val {
    let name = format!("umbra.digamma.{}", ty.mangled());
    if let Some(f) = m.function(&name) {
        return f;
    }
    let f = m.add_function(&name, Ty::function(ty, &[ty], false));
    f.set_internal();
    let mut b = Builder::new(m);
    b.position_at_end(f.append_block("entry"));
    let x = f.params()[0];
    let v = digamma_body(&mut b, x);
    b.ret(v);
    f
}

/// `psi(x)`: for `x < 0` by reflection, `psi(x) = psi(1 - x) - pi / tan(pi x)`.
fn digamma_body(b: &mut Builder, x: Val) -> Val {
    let neg = b.fcmp(RealPred::LLVMRealOLT, x, k(x, 0.0));
    let one = k(x, 1.0);
    let reflected = b.fsub(one, x);
    let w = b.select(neg, reflected, x);
    let psi_w = digamma_positive(b, w);
    let cot = reflection_term(b, x, neg);
    b.fsub(psi_w, cot)
}

/// `pi / tan(pi x)` where `neg`, else 0.
fn reflection_term(b: &mut Builder, x: Val, neg: Val) -> Val {
    // tan has period pi: subtracting the nearest integer first (exactly) keeps the argument
    // small, so large negative x lose no accuracy.
    let n = b.math("llvm.round", &[x]);
    let frac = b.fsub(x, n);
    // Where unused, evaluate at 1/4 rather than at x: at x = 0 the quotient would be infinite,
    // and a reverse sweep multiplies its derivative by the zero adjoint, giving NaN.
    let safe = b.select(neg, frac, k(x, 0.25));
    let arg = b.fmul_const(safe, PI);
    let tan = b.math("llvm.tan", &[arg]);
    let q = b.fdiv(k(x, PI), tan);
    b.select(neg, q, k(x, 0.0))
}

/// `psi(w)` for `w > 0`: shifted up by [`DIGAMMA_SHIFT`], then the asymptotic series.
fn digamma_positive(b: &mut Builder, w: Val) -> Val {
    let mut sum = recip(b, w);
    for j in 1..DIGAMMA_SHIFT {
        let d = b.fadd(w, k(w, j as f64));
        let r = recip(b, d);
        sum = b.fadd(sum, r);
    }
    let y = b.fadd(w, k(w, DIGAMMA_SHIFT as f64));
    let series = digamma_asymptotic(b, y);
    b.fsub(series, sum)
}

/// `ln y - 1/(2y) - sum_k (B_2k / 2k) y^-2k`, in Horner form in `z = 1/y^2`.
fn digamma_asymptotic(b: &mut Builder, y: Val) -> Val {
    let inv = recip(b, y);
    let z = sq(b, inv);
    let (last, rest) = DIGAMMA_SERIES.split_last().unwrap_or((&0.0, &[]));
    let mut acc = k(y, *last);
    for &c in rest.iter().rev() {
        let t = b.fmul(acc, z);
        acc = b.fadd(k(y, c), t);
    }
    let tail = b.fmul(acc, z);
    let ln = b.math("llvm.log", &[y]);
    let half = b.fmul_const(inv, 0.5);
    let lead = b.fsub(ln, half);
    b.fsub(lead, tail)
}

// ----- Bessel functions -----

/// The derivative of a first-order Bessel function `c1` (`j1`, `y1`) with result `r`:
/// `c0(x) - r / x`. At `x = 0` it is `zero_limit` when given (`j1'(0) = 1/2`); the division is
/// then done by 1 instead, so neither the value nor its derivative is 0/0 there.
fn bessel1_slope(b: &mut Builder, c0: &str, x: Val, r: Val, zero_limit: Option<f64>) -> Val {
    let order0 = b.call_libm(c0, &[x]);
    let Some(limit) = zero_limit else {
        let q = b.fdiv(r, x);
        return b.fsub(order0, q);
    };
    let is0 = b.fcmp(RealPred::LLVMRealOEQ, x, k(x, 0.0));
    let safe = b.select(is0, k(x, 1.0), x);
    let q = b.fdiv(r, safe);
    let d = b.fsub(order0, q);
    b.select(is0, k(x, limit), d)
}

/// `d/dx cn(n, x) = (cn(n - 1, x) - cn(n + 1, x)) / 2` for `jn`, `yn` (`n` an integer).
fn bessel_n_slope(b: &mut Builder, cn: &str, n: Val, x: Val) -> Val {
    let one = n.ty().int_const(1);
    let below = b.sub(n, one);
    let above = b.add(n, one);
    let lo = b.call_libm(cn, &[below, x]);
    let hi = b.call_libm(cn, &[above, x]);
    let d = b.fsub(lo, hi);
    b.fmul_const(d, 0.5)
}

/// The rules whose partial is the other rule of the pair on the same operand (`sin' = cos`,
/// `cos' = -sin`, as [`RULES`] builds them): an adjoint that computes the partial of one and
/// the value of the call again gets both from one `sincos` call, since LLVM's code generation
/// pairs `llvm.sin` and `llvm.cos` of one operand in one basic block (any floating-point type,
/// vectors lane by lane; these intrinsics set no `errno`, so no fast-math flag is needed).
pub const SINCOS_PAIR: [&str; 2] = ["sin", "cos"];

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
        pick
    ),
    math!(
        "fmax",
        ["llvm.maxnum", "llvm.maximum", "llvm.maximumnum"],
        pick
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
    math!("remainder", [], remainder_partials),
    math!("ldexp", ["llvm.ldexp"], ldexp_partials),
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
    // C23 minimum/maximum variants: NaN-propagating, NaN-ignoring (`_num`), by magnitude
    // (`_mag`). The argument the result equals gets 1, the first on ties.
    math!("fminimum", [], pick),
    math!("fmaximum", [], pick),
    math!("fminimum_num", [], pick),
    math!("fmaximum_num", [], pick),
    math!("fminimum_mag", [], pick),
    math!("fmaximum_mag", [], pick),
    math!("fminimum_mag_num", [], pick),
    math!("fmaximum_mag_num", [], pick),
    // fdim(x, y) = max(x - y, 0): (1, -1) where x > y, else (0, 0), including at x = y.
    math!("fdim", [], |b, a, _r| {
        let above = b.fcmp(RealPred::LLVMRealOGT, a[0], a[1]);
        let p = indicator(b, above, a[0]);
        vec![Some(p), Some(b.fneg(p))]
    }),
    math!("scalbn", [], ldexp_partials),
    math!("scalbln", [], ldexp_partials),
    // logb(x) is the exponent of x as a float: a step function, derivative zero.
    math!("logb", [], flat),
    // canonicalize and arithmetic.fence return their operand; nextafter and nexttoward move it
    // by at most one unit in the last place. d/dx = 1 everywhere; the direction has no partial.
    math!("llvm.canonicalize", [], identity_first),
    math!("llvm.arithmetic.fence", [], identity_first),
    math!("nextafter", [], identity_first),
    math!("nexttoward", [], identity_first),
    math!(writes "remquo", [], remainder_partials),
    // frexp(x, &e) = m with x = m 2^e: within a binade e is constant, so dm/dx = 2^-e = m / x.
    // At x = 0 (where frexp stores e = 0) it is taken as 2^0 = 1; the division is then by 1,
    // so its own derivative is not 0/0 there. The exponent pointer gets no partial.
    math!(writes "frexp", [], |b, a, r| {
        let x = a[0];
        let is0 = b.fcmp(RealPred::LLVMRealOEQ, x, k(x, 0.0));
        let safe = b.select(is0, k(x, 1.0), x);
        let q = b.fdiv(r, safe);
        vec![Some(b.select(is0, k(x, 1.0), q)), None]
    }),
    // tgamma' = tgamma psi, lgamma' = psi (also for x < 0, where lgamma = ln |gamma|). At the
    // poles 0, -1, -2, ... the derivative is infinite or NaN, as the functions are.
    math!("tgamma", [], |b, a, r| {
        let psi = digamma(b, a[0]);
        vec![Some(b.fmul(r, psi))]
    }),
    math!(writes "lgamma", [], |b, a, _r| vec![Some(digamma(b, a[0]))]),
    // lgamma_r(x, &sign): as lgamma; the sign pointer gets no partial.
    math!(writes exact "lgamma_r", ["lgammaf_r", "lgammal_r"], |b, a, _r| {
        vec![Some(digamma(b, a[0])), None]
    }),
    // Bessel functions of the first and second kind. j1'(0) is taken as its limit 1/2; y0, y1
    // and yn are singular at 0 and undefined below, and so are their derivatives.
    math!("j0", [], |b, a, _r| {
        let j1 = b.call_libm("j1", &[a[0]]);
        vec![Some(b.fneg(j1))]
    }),
    math!("j1", [], |b, a, r| {
        let d = bessel1_slope(b, "j0", a[0], r, Some(0.5));
        vec![Some(d)]
    }),
    math!("y0", [], |b, a, _r| {
        let y1 = b.call_libm("y1", &[a[0]]);
        vec![Some(b.fneg(y1))]
    }),
    math!("y1", [], |b, a, r| {
        let d = bessel1_slope(b, "y0", a[0], r, None);
        vec![Some(d)]
    }),
    // jn(n, x), yn(n, x): the integer order has no partial.
    math!("jn", [], |b, a, _r| vec![
        None,
        Some(bessel_n_slope(b, "jn", a[0], a[1]))
    ]),
    math!("yn", [], |b, a, _r| vec![
        None,
        Some(bessel_n_slope(b, "yn", a[0], a[1]))
    ]),
];

#[cfg(test)]
mod tests {
    use super::super::harness::{check_rule, evaluate, Arg, Case, Precision};
    use crate::ir::{Builder, Val};

    /// libm functions of float arguments only, at points away from kinks and poles.
    const LIBM: &[(&str, &[f64])] = &[
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
        ("fmin", &[1.4, 0.9]),
        ("fmax", &[0.4, 0.9]),
        ("fmax", &[1.4, 0.9]),
        ("fminimum", &[0.4, 0.9]),
        ("fmaximum", &[0.4, 0.9]),
        ("fminimum_num", &[1.4, 0.9]),
        ("fmaximum_num", &[1.4, 0.9]),
        // By magnitude: the smaller |.| is the second argument, the larger the first.
        ("fminimum_mag", &[-1.4, 0.9]),
        ("fmaximum_mag", &[-1.4, 0.9]),
        ("fminimum_mag_num", &[0.4, -0.9]),
        ("fmaximum_mag_num", &[0.4, -0.9]),
        ("copysign", &[1.4, -2.0]),
        ("fmod", &[5.3, 1.7]),
        ("remainder", &[5.3, 1.7]),
        ("fdim", &[1.9, 0.4]),
        ("fdim", &[0.4, 1.9]),
        ("nextafter", &[1.3, 2.0]),
        ("logb", &[5.3]),
        ("floor", &[1.3]),
        ("ceil", &[1.3]),
        ("trunc", &[1.3]),
        ("round", &[1.3]),
        ("rint", &[1.3]),
        ("nearbyint", &[1.3]),
        ("roundeven", &[1.3]),
        ("fma", &[1.1, -0.7, 0.4]),
        ("tgamma", &[2.7]),
        ("tgamma", &[0.3]),
        ("tgamma", &[-1.6]),
        ("lgamma", &[2.7]),
        ("lgamma", &[0.3]),
        ("lgamma", &[-1.6]),
        ("lgamma", &[35.0]),
        ("j0", &[1.3]),
        ("j1", &[1.3]),
        ("j1", &[-2.4]),
        ("j1", &[0.0]),
        ("y0", &[1.3]),
        ("y1", &[1.3]),
    ];

    /// Overloaded intrinsics of float arguments only.
    const INTRINSICS: &[(&str, &[f64])] = &[
        ("llvm.sin", &[0.7]),
        ("llvm.cos", &[0.7]),
        ("llvm.tan", &[0.4]),
        ("llvm.asin", &[0.3]),
        ("llvm.acos", &[0.3]),
        ("llvm.atan", &[0.8]),
        ("llvm.atan2", &[0.6, -1.3]),
        ("llvm.sinh", &[0.5]),
        ("llvm.cosh", &[0.5]),
        ("llvm.tanh", &[0.5]),
        ("llvm.exp", &[0.3]),
        ("llvm.exp2", &[0.3]),
        ("llvm.exp10", &[0.3]),
        ("llvm.log", &[1.7]),
        ("llvm.log2", &[1.7]),
        ("llvm.log10", &[1.7]),
        ("llvm.pow", &[1.3, 2.7]),
        ("llvm.sqrt", &[2.2]),
        ("llvm.fabs", &[-1.2]),
        ("llvm.minnum", &[0.9, 0.4]),
        ("llvm.maxnum", &[0.9, 0.4]),
        ("llvm.minimum", &[0.4, 0.9]),
        ("llvm.maximum", &[0.4, 0.9]),
        ("llvm.minimumnum", &[0.9, 0.4]),
        ("llvm.maximumnum", &[0.9, 0.4]),
        ("llvm.copysign", &[-1.4, 2.0]),
        ("llvm.fma", &[1.1, -0.7, 0.4]),
        ("llvm.fmuladd", &[1.1, -0.7, 0.4]),
        ("llvm.floor", &[1.3]),
        ("llvm.ceil", &[1.3]),
        ("llvm.trunc", &[1.3]),
        ("llvm.round", &[1.3]),
        ("llvm.rint", &[1.3]),
        ("llvm.nearbyint", &[1.3]),
        ("llvm.roundeven", &[1.3]),
        ("llvm.canonicalize", &[1.3]),
        ("llvm.arithmetic.fence", &[1.3]),
    ];

    /// Every math case the harness runs.
    fn cases() -> Vec<Case> {
        let mut cases: Vec<Case> = LIBM.iter().map(|(n, xs)| Case::libm(n, xs)).collect();
        cases.extend(INTRINSICS.iter().map(|(n, xs)| Case::intrinsic(n, xs)));
        cases.extend([
            Case::with_int("llvm.powi", 1.3, 5),
            Case::with_int("llvm.powi", 0.0, 0),
            // x = 0: d/dy is taken as its limit 0; y = 0: d/dx is 0 (no 0 * inf).
            Case::libm("pow", &[0.0, 2.0]),
            Case::libm("pow", &[1.5, 0.0]),
            Case::with_int("ldexp", 1.3, 3),
            Case::with_int("llvm.ldexp", 1.3, -2),
            Case::with_int("scalbn", 1.3, 3),
            Case::call("scalbln", &[Arg::X(1.3), Arg::Int(64, -3)]),
            Case::call("nexttoward", &[Arg::X(1.3), Arg::LongDouble(2.0)]),
            Case::call("frexp", &[Arg::X(5.3), Arg::IntSlot]),
            Case::call("frexp", &[Arg::X(-0.3), Arg::IntSlot]),
            Case::call("remquo", &[Arg::X(5.3), Arg::X(1.7), Arg::IntSlot]),
            Case::call_named(
                ["lgamma_r", "lgammaf_r", "lgammal_r"],
                &[Arg::X(-2.3), Arg::IntSlot],
            ),
            Case::call("jn", &[Arg::Int(32, 0), Arg::X(1.3)]),
            Case::call("jn", &[Arg::Int(32, 3), Arg::X(2.1)]),
            Case::call("yn", &[Arg::Int(32, 2), Arg::X(1.7)]),
            Case::vector("llvm.sin", &[0.7, -1.1]),
            Case::vector("llvm.exp", &[0.3, -0.4]),
            Case::vector("llvm.pow", &[1.3, 0.8, 2.7, -1.5]),
            Case::vector("llvm.maxnum", &[0.4, 0.9, 0.7, 0.2]),
            Case::vector("llvm.copysign", &[1.4, -0.6, -2.0, 3.0]),
            Case::vector("llvm.fma", &[1.1, -0.7, 0.4, 1.3, 0.5, 2.0]),
            Case::vector("llvm.floor", &[1.3, -2.6]),
        ]);
        cases
    }

    /// `pow(x * x, y) * z`: at `(0, 0.5, 0)` every partial of it is 0, but the partial of
    /// `pow` with respect to its base is `0.5 * 0^-0.5 = inf`; the tangent of the base (`2x dx`)
    /// and the adjoint of the power (`z`) are zero there, and a zero times that infinite
    /// partial must contribute zero (a strong zero), not NaN.
    fn pow_at_zero(b: &mut Builder, xs: &[Val]) -> Val {
        let u = b.fmul(xs[0], xs[0]);
        let p = b.math("llvm.pow", &[u, xs[1]]);
        b.fmul(p, xs[2])
    }

    /// Strong zeros through `pow` at a zero base, in forward and reverse mode (issue 12).
    #[test]
    fn pow_strong_zeros() {
        check_rule(&Case::built(
            "pow(x*x, y) * z",
            pow_at_zero,
            &[0.0, 0.5, 0.0],
        ));
        check_rule(&Case::built(
            "pow(x*x, y) * z",
            pow_at_zero,
            &[0.0, 0.25, 0.0],
        ));
        // Away from zero the same function has ordinary partials.
        check_rule(&Case::built(
            "pow(x*x, y) * z",
            pow_at_zero,
            &[0.7, 0.5, 1.3],
        ));
    }

    /// Each rule against central finite differences, in forward and reverse mode, in float
    /// and double (vector cases on two lanes).
    #[test]
    fn math_rules_match_finite_differences() {
        for case in cases() {
            check_rule(&case);
        }
    }

    /// Every math rule is tested under every name it matches: the libm name in double, float
    /// and long double, each alias (intrinsics with their overload suffixes).
    #[test]
    fn every_math_name_has_a_case() {
        let tested: Vec<String> = cases().iter().flat_map(Case::callee_names).collect();
        let mut missing = Vec::new();
        for rule in super::RULES {
            let mut names = vec![rule.name.to_string()];
            if rule.libm_variants {
                names.push(format!("{}f", rule.name));
                names.push(format!("{}l", rule.name));
            }
            names.extend(rule.aliases.iter().map(|a| a.to_string()));
            missing.extend(names.into_iter().filter(|n| !tested.contains(n)));
        }
        assert!(
            missing.is_empty(),
            "math rules without a test case: {missing:?}"
        );
    }

    fn digamma_of(b: &mut Builder, xs: &[Val]) -> Val {
        super::digamma(b, xs[0])
    }

    fn digamma_of_lanes(b: &mut Builder, xs: &[Val]) -> Val {
        let ty = xs[0].ty();
        let vty = crate::ir::Ty::vector(ty, 2);
        let i32t = crate::ir::Ty::int(b.module().context(), 32);
        let mut v = vty.poison();
        for (k, &x) in xs.iter().enumerate() {
            v = b.insert_element(v, x, i32t.int_const(k as u64));
        }
        let psi = super::digamma(b, v);
        let (p0, p1) = (b.extract_lane(psi, 0), b.extract_lane(psi, 1));
        let p1x3 = b.fmul_const(p1, 3.0);
        b.fadd(p0, p1x3)
    }

    /// The digamma helper against reference values (mpmath at the exact double inputs, rounded to double), to
    /// 1e-13 relative in double and 1e-5 in float, on both sides of zero, near a pole and far
    /// out.
    #[test]
    fn digamma_helper_is_accurate() {
        let reference: &[(f64, f64)] = &[
            (1.0, -0.5772156649015329),
            (0.5, -1.9635100260214235),
            (2.0, 0.42278433509846713),
            (10.0, 2.251752589066721),
            (100.0, 4.600161852738087),
            (1e-3, -1000.5755719318103),
            (0.1, -10.423754940411076),
            (7.9, 2.002238487563571),
            (1e6, 13.815510057964191),
            (-0.5, 0.03648997397857652),
            (-2.5, 1.103156640645243),
            (-3.3, 3.620353460592126),
            (-7.999, -997.856186170324),
            (-100.7, 2.334602156719901),
        ];
        for &(x, want) in reference {
            let case = Case::built("digamma", digamma_of, &[x]);
            let got = evaluate(&case, Precision::Double);
            assert!(
                (got - want).abs() <= 1e-13 * want.abs(),
                "digamma({x}) = {got}, want {want}"
            );
            // In float, compare with the double helper at the same (rounded) input: near the
            // poles the rounding of x alone moves digamma by more than float's precision.
            let xf = x as f32 as f64;
            let want = evaluate(
                &Case::built("digamma", digamma_of, &[xf]),
                Precision::Double,
            );
            let got = evaluate(&Case::built("digamma", digamma_of, &[xf]), Precision::Float);
            assert!(
                (got - want).abs() <= 1e-5 * want.abs().max(1.0),
                "digamma({xf}) in float = {got}, want {want}"
            );
        }
    }

    /// The helper has a body made of differentiable IR, so Umbra differentiates it (its
    /// derivative is trigamma, checked against finite differences): second derivatives of
    /// lgamma work. The vector variant is checked on two lanes the same way.
    #[test]
    fn digamma_helper_is_differentiable() {
        for x in [0.3, 2.7, 9.5, -1.6] {
            check_rule(&Case::built("digamma", digamma_of, &[x]));
        }
        check_rule(&Case::built("digamma.v2", digamma_of_lanes, &[0.3, -1.5]));
    }
}
