//! Complex arithmetic: compiler-rt's multiply and divide helpers (`__muldc3`, `__divdc3`,
//! `__mulsc3`, `__divsc3`, which clang calls for `_Complex` and `std::complex` `*` and `/`
//! unless it can prove no NaN or infinity arises) and the C99 `<complex.h>` functions libstdc++'s
//! `std::exp`, `std::abs`, `std::pow`, ... call, in `double` and `float`.
//!
//! **ABI.** On x86-64 a `double _Complex` operand is passed as two `double`s and returned as
//! `{ double, double }`; a `float _Complex` is passed and returned as one `<2 x float>`, except
//! by `__mulsc3`/`__divsc3`, which take four `float`s. The rules read whichever layout the call
//! has (a pair of scalars or a two-lane vector per complex operand) and produce the tangent or
//! adjoints in the same layout. `long double _Complex` is passed in memory: its spellings
//! (`cexpl`, `__mulxc3`, ...) have no rule and stay missing-rule errors, and a call whose
//! signature does not fit this shape is an error, never a guess.
//!
//! **Conventions.** With `z = x + iy` and `w = f(z) = u + iv`, the adjoint of a complex value is
//! the pair of real adjoints `(ū, v̄) = (∂L/∂u, ∂L/∂v)`. For holomorphic `f` with derivative
//! `f'(z) = a + ib`, forward mode is the complex product `dw = f'(z) · dz`, and reverse mode,
//! from `du = a dx - b dy`, `dv = b dx + a dy`, is `x̄ + iȳ = conj(f'(z)) · (ū + iv̄)`:
//! `x̄ = a ū + b v̄`, `ȳ = a v̄ - b ū`. Functions of two complex operands (`*`, `/`, `cpow`) sum
//! one such term per operand. The real-valued `cabs`, `carg`, `creal` and `cimag` have plain
//! gradients `(∂g/∂x, ∂g/∂y)`; `conj` is linear (`dw = (dx, -dy)`).
//!
//! Derivatives are built from LLVM instructions and intrinsics (`llvm.sin`, `llvm.cosh`,
//! `llvm.atan2`, ...), so derivative code is differentiable again. Complex division in them is
//! the textbook `z · conj(d) / |d|²` (no scaling against overflow). At the origin `cabs` and
//! `carg` have derivative zero (as a norm's derivative at the origin, BLAS `nrm2`); `clog`,
//! `csqrt`, `cpow` have poles there and `clog`, `csqrt`, `carg`, `cpow` jump across the
//! negative real axis, where the one-sided derivative of the branch libm takes is returned.

use super::calls::{primal_only, RuleEnv};
use super::calls::{
    AdjointCall, ArgAdjoints, ArgNeeds, CustomNeeds, CustomReverse, ForwardCall, ForwardRule,
};
use super::linear;
use super::rule::{Area, Effects, Reverse, Rule, RuleKind};
use crate::diag::{Error, Result};
use crate::ir::{Builder, RealPred, Ty, TyKind, Val};

macro_rules! complex {
    ($name:literal, [$($alias:literal),*], $rev:expr) => {
        Rule {
            name: $name,
            aliases: &[$($alias),*],
            // The `l` spelling passes `long double _Complex` in memory: no `f`/`l` variants,
            // the float spelling is an alias.
            libm_variants: false,
            area: Area::Complex,
            kind: RuleKind::Forward(forward as ForwardRule, Reverse::Custom(&$rev)),
            effects: Effects::NONE,
        }
    };
}

/// What the adjoint of each rule reads from the forward sweep (exactly what its derivative
/// formula reads, so nothing else is taped).
const fn needs(args: ArgNeeds, result: bool) -> CustomReverse {
    CustomReverse {
        augment: primal_only,
        adjoint,
        needs: CustomNeeds {
            args,
            result,
            saved: false,
            shadows_only: ArgNeeds::None,
        },
    }
}
/// `f'` from the operands only (`*`, `clog`, `csin`, `carg`, ...).
static ARGS: CustomReverse = needs(ArgNeeds::All, false);
/// `f'` from the result only (`cexp`: `w`; `csqrt`: `1 / 2w`; `ctan`: `1 + w²`).
static RESULT: CustomReverse = needs(ArgNeeds::None, true);
/// `f'` from both (`cpow`, `cabs`).
static BOTH: CustomReverse = needs(ArgNeeds::All, true);
/// `/`: `1 / d` and `-w / d` read the divisor (arguments 2 and 3) and the quotient.
static DIVIDE: CustomReverse = needs(ArgNeeds::Positions(&[2, 3]), true);
/// Constant derivatives (`conj`, `creal`, `cimag`).
static LINEAR: CustomReverse = needs(ArgNeeds::None, false);

/// Every complex rule.
pub static RULES: &[Rule] = &[
    complex!("__muldc3", ["__mulsc3"], ARGS),
    complex!("__divdc3", ["__divsc3"], DIVIDE),
    complex!("cexp", ["cexpf"], RESULT),
    complex!("clog", ["clogf"], ARGS),
    complex!("csqrt", ["csqrtf"], RESULT),
    complex!("cpow", ["cpowf"], BOTH),
    complex!("csin", ["csinf"], ARGS),
    complex!("ccos", ["ccosf"], ARGS),
    complex!("ctan", ["ctanf"], RESULT),
    complex!("csinh", ["csinhf"], ARGS),
    complex!("ccosh", ["ccoshf"], ARGS),
    complex!("ctanh", ["ctanhf"], RESULT),
    complex!("cabs", ["cabsf"], BOTH),
    complex!("carg", ["cargf"], ARGS),
    complex!("conj", ["conjf"], LINEAR),
    complex!("creal", ["crealf"], LINEAR),
    complex!("cimag", ["cimagf"], LINEAR),
];

/// A complex value as its real and imaginary parts.
#[derive(Clone, Copy)]
struct C {
    re: Val,
    im: Val,
}

/// How a rule differentiates.
#[derive(Clone, Copy)]
enum Deriv {
    /// Holomorphic: `f'` with respect to each complex operand, from the operands and result.
    Holomorphic(fn(&mut Builder, &[C], C) -> Vec<C>),
    /// Real-valued: the gradient `(∂g/∂x, ∂g/∂y)` for each operand, from the operands and the
    /// (real) result.
    Real(fn(&mut Builder, &[C], Val) -> Vec<C>),
    /// `conj`: `(x, y) -> (x, -y)`.
    Conj,
}

/// The derivative of the rule named `name` and its number of complex operands.
fn deriv(name: &str) -> Option<(usize, Deriv)> {
    use Deriv::*;
    Some(match name {
        "__muldc3" => (2, Holomorphic(|_, z, _| vec![z[1], z[0]])),
        "__divdc3" => (
            2,
            Holomorphic(|b, z, w| {
                let inv = cinv(b, z[1]);
                let q = cmul(b, w, inv);
                vec![inv, cneg(b, q)]
            }),
        ),
        "cexp" => (1, Holomorphic(|_, _, w| vec![w])),
        "clog" => (1, Holomorphic(|b, z, _| vec![cinv(b, z[0])])),
        "csqrt" => (
            1,
            Holomorphic(|b, _, w| {
                let w2 = cscale(b, w, 2.0);
                vec![cinv(b, w2)]
            }),
        ),
        // cpow(a, e) = exp(e log a): d/da = e w / a, d/de = w log a (libm's principal log).
        "cpow" => (
            2,
            Holomorphic(|b, z, w| {
                let ew = cmul(b, z[1], w);
                let da = cdiv(b, ew, z[0]);
                let log_a = clog(b, z[0]);
                vec![da, cmul(b, w, log_a)]
            }),
        ),
        "csin" => (1, Holomorphic(|b, z, _| vec![ccos(b, z[0])])),
        "ccos" => (
            1,
            Holomorphic(|b, z, _| {
                let s = csin(b, z[0]);
                vec![cneg(b, s)]
            }),
        ),
        "ctan" => (1, Holomorphic(|b, _, w| vec![one_plus_sq(b, w, 1.0)])),
        "csinh" => (1, Holomorphic(|b, z, _| vec![ccosh(b, z[0])])),
        "ccosh" => (1, Holomorphic(|b, z, _| vec![csinh(b, z[0])])),
        "ctanh" => (1, Holomorphic(|b, _, w| vec![one_plus_sq(b, w, -1.0)])),
        // |z|: (x, y) / |z|, zero at the origin.
        "cabs" => (
            1,
            Real(|b, z, r| {
                let zero = r.ty().float_const(0.0);
                let at_origin = b.fcmp(RealPred::LLVMRealOEQ, r, zero);
                let gx = b.fdiv(z[0].re, r);
                let gy = b.fdiv(z[0].im, r);
                vec![C {
                    re: b.select(at_origin, zero, gx),
                    im: b.select(at_origin, zero, gy),
                }]
            }),
        ),
        // atan2(y, x): (-y, x) / |z|², zero at the origin.
        "carg" => (
            1,
            Real(|b, z, _| {
                let n = norm(b, z[0]);
                let zero = n.ty().float_const(0.0);
                let at_origin = b.fcmp(RealPred::LLVMRealOEQ, n, zero);
                let ny = b.fneg(z[0].im);
                let gx = b.fdiv(ny, n);
                let gy = b.fdiv(z[0].re, n);
                vec![C {
                    re: b.select(at_origin, zero, gx),
                    im: b.select(at_origin, zero, gy),
                }]
            }),
        ),
        "creal" => (1, Real(|_, _, r| vec![constant(r, 1.0, 0.0)])),
        "cimag" => (1, Real(|_, _, r| vec![constant(r, 0.0, 1.0)])),
        "conj" => (1, Conj),
        _ => return None,
    })
}

fn constant(like: Val, re: f64, im: f64) -> C {
    C {
        re: like.ty().float_const(re),
        im: like.ty().float_const(im),
    }
}

fn cmul(b: &mut Builder, p: C, q: C) -> C {
    let rr = b.fmul(p.re, q.re);
    let ii = b.fmul(p.im, q.im);
    let ri = b.fmul(p.re, q.im);
    let ir = b.fmul(p.im, q.re);
    C {
        re: b.fsub(rr, ii),
        im: b.fadd(ri, ir),
    }
}

/// `|z|²`.
fn norm(b: &mut Builder, z: C) -> Val {
    let xx = b.fmul(z.re, z.re);
    let yy = b.fmul(z.im, z.im);
    b.fadd(xx, yy)
}

/// `p / q = p · conj(q) / |q|²`.
fn cdiv(b: &mut Builder, p: C, q: C) -> C {
    let n = norm(b, q);
    let rr = b.fmul(p.re, q.re);
    let ii = b.fmul(p.im, q.im);
    let ir = b.fmul(p.im, q.re);
    let ri = b.fmul(p.re, q.im);
    let re = b.fadd(rr, ii);
    let im = b.fsub(ir, ri);
    C {
        re: b.fdiv(re, n),
        im: b.fdiv(im, n),
    }
}

/// `1 / z = conj(z) / |z|²`.
fn cinv(b: &mut Builder, z: C) -> C {
    let n = norm(b, z);
    let ny = b.fneg(z.im);
    C {
        re: b.fdiv(z.re, n),
        im: b.fdiv(ny, n),
    }
}

fn cneg(b: &mut Builder, z: C) -> C {
    C {
        re: b.fneg(z.re),
        im: b.fneg(z.im),
    }
}

fn cscale(b: &mut Builder, z: C, k: f64) -> C {
    C {
        re: b.fmul_const(z.re, k),
        im: b.fmul_const(z.im, k),
    }
}

/// `1 + s w²` (`s = ±1`: the derivatives of `ctan` and `ctanh` from their results).
fn one_plus_sq(b: &mut Builder, w: C, s: f64) -> C {
    let w2 = cmul(b, w, w);
    let sw2 = cscale(b, w2, s);
    let one = w.re.ty().float_const(1.0);
    C {
        re: b.fadd(one, sw2.re),
        im: sw2.im,
    }
}

/// The principal `log z = (log |z|, arg z)`, as libm's `clog`.
fn clog(b: &mut Builder, z: C) -> C {
    let n = norm(b, z);
    let ln = b.math("llvm.log", &[n]);
    C {
        re: b.fmul_const(ln, 0.5),
        im: b.math("llvm.atan2", &[z.im, z.re]),
    }
}

/// `sin z = (sin x cosh y, cos x sinh y)`.
fn csin(b: &mut Builder, z: C) -> C {
    let [s, c, sh, ch] = trig(b, z);
    C {
        re: b.fmul(s, ch),
        im: b.fmul(c, sh),
    }
}

/// `cos z = (cos x cosh y, -sin x sinh y)`.
fn ccos(b: &mut Builder, z: C) -> C {
    let [s, c, sh, ch] = trig(b, z);
    let ssh = b.fmul(s, sh);
    C {
        re: b.fmul(c, ch),
        im: b.fneg(ssh),
    }
}

/// `sinh z = (sinh x cos y, cosh x sin y)`.
fn csinh(b: &mut Builder, z: C) -> C {
    let [s, c, sh, ch] = trig(b, C { re: z.im, im: z.re });
    C {
        re: b.fmul(sh, c),
        im: b.fmul(ch, s),
    }
}

/// `cosh z = (cosh x cos y, sinh x sin y)`.
fn ccosh(b: &mut Builder, z: C) -> C {
    let [s, c, sh, ch] = trig(b, C { re: z.im, im: z.re });
    C {
        re: b.fmul(ch, c),
        im: b.fmul(sh, s),
    }
}

/// `[sin x, cos x, sinh y, cosh y]` for `z = x + iy`.
fn trig(b: &mut Builder, z: C) -> [Val; 4] {
    [
        b.math("llvm.sin", &[z.re]),
        b.math("llvm.cos", &[z.re]),
        b.math("llvm.sinh", &[z.im]),
        b.math("llvm.cosh", &[z.im]),
    ]
}

/// Where one complex operand sits among a call's arguments.
#[derive(Clone, Copy)]
enum Operand {
    /// Two scalar arguments starting here (`double _Complex`, the `__mulsc3` helpers).
    Pair(usize),
    /// One `<2 x T>` argument (`float _Complex`).
    Lanes(usize),
}

/// How the result comes back.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Returns {
    /// `{ T, T }`.
    Struct,
    /// `<2 x T>`.
    Lanes,
    /// `T` (`cabs`, `carg`, `creal`, `cimag`).
    Real,
}

/// The layout of a complex call under the x86-64 ABI.
struct Abi {
    operands: Vec<Operand>,
    returns: Returns,
}

/// The call's layout, when every operand is a scalar pair or a two-lane vector and the result
/// a pair, a two-lane vector or a scalar, all of one floating-point type.
fn abi(fty: Ty) -> Option<Abi> {
    let params = fty.param_types();
    let mut elem: Option<Ty> = None;
    let mut same = |t: Ty| t.is_float() && *elem.get_or_insert(t) == t;
    let pair_vector = |t: Ty| t.is_vector() && t.vector_len() == 2;
    let mut operands = Vec::new();
    let mut k = 0;
    while k < params.len() {
        let t = params[k];
        if pair_vector(t) && same(t.element()) {
            operands.push(Operand::Lanes(k));
            k += 1;
        } else if params.get(k + 1) == Some(&t) && same(t) {
            operands.push(Operand::Pair(k));
            k += 2;
        } else {
            return None;
        }
    }
    let r = fty.return_type();
    let returns = if r.is_float() && same(r) {
        Returns::Real
    } else if pair_vector(r) && same(r.element()) {
        Returns::Lanes
    } else if r.kind() == TyKind::Struct
        && r.struct_fields().len() == 2
        && r.struct_fields().into_iter().all(&mut same)
    {
        Returns::Struct
    } else {
        return None;
    };
    Some(Abi { operands, returns })
}

impl Abi {
    /// The complex operands of argument list `args`.
    fn operands(&self, b: &mut Builder, args: &[Val]) -> Vec<C> {
        self.operands
            .iter()
            .map(|&o| match o {
                Operand::Pair(k) => C {
                    re: args[k],
                    im: args[k + 1],
                },
                Operand::Lanes(k) => split_lanes(b, args[k]),
            })
            .collect()
    }

    /// The tangent parts of each operand (`None`: a structural zero).
    fn tangents(&self, b: &mut Builder, ts: &[Option<Val>]) -> Vec<[Option<Val>; 2]> {
        self.operands
            .iter()
            .map(|&o| match o {
                Operand::Pair(k) => [ts[k], ts[k + 1]],
                Operand::Lanes(k) => match ts[k] {
                    Some(t) => {
                        let c = split_lanes(b, t);
                        [Some(c.re), Some(c.im)]
                    }
                    None => [None, None],
                },
            })
            .collect()
    }

    /// A complex result (or its adjoint) as parts.
    fn split(&self, b: &mut Builder, v: Val) -> C {
        match self.returns {
            Returns::Struct => C {
                re: b.extract_value(v, 0),
                im: b.extract_value(v, 1),
            },
            Returns::Lanes => split_lanes(b, v),
            Returns::Real => C { re: v, im: v },
        }
    }

    /// Parts packed as a complex value of type `ty` (the result's type).
    fn pack(&self, b: &mut Builder, ty: Ty, z: C) -> Val {
        match self.returns {
            Returns::Struct => {
                let v = b.insert_value(ty.poison(), z.re, 0);
                b.insert_value(v, z.im, 1)
            }
            Returns::Lanes => pack_lanes(b, ty, z),
            Returns::Real => z.re,
        }
    }
}

fn split_lanes(b: &mut Builder, v: Val) -> C {
    C {
        re: b.extract_lane(v, 0),
        im: b.extract_lane(v, 1),
    }
}

fn pack_lanes(b: &mut Builder, ty: Ty, z: C) -> Val {
    let i32t = Ty::int(ty.context(), 32);
    let v = b.insert_element(ty.poison(), z.re, i32t.int_const(0));
    b.insert_element(v, z.im, i32t.int_const(1))
}

/// The derivative and layout of complex call `src`, or an error when its signature does not
/// have the shape of the function its rule is for.
fn resolve(env: &dyn RuleEnv, src: Val) -> Result<(Deriv, Abi)> {
    let Some(name) = env.rule_name(src) else {
        return Err(Error::internal(src, "complex rule at a call without one"));
    };
    let Some((arity, d)) = deriv(name) else {
        return Err(Error::internal(src, "complex rule without a derivative"));
    };
    let fty = src.call_function_type();
    let fits = |a: &Abi| {
        a.operands.len() == arity && (a.returns == Returns::Real) == matches!(d, Deriv::Real(_))
    };
    match abi(fty).filter(fits) {
        Some(a) => Ok((d, a)),
        None => {
            let callee = src.called_function().map(|f| f.name()).unwrap_or_default();
            Err(Error::at(
                src,
                format!(
                    "'{callee}' is differentiated as the complex function '{}' but its signature `{}` is not the x86-64 one (each complex operand as two scalars or one <2 x T>, the result as {{T, T}}, <2 x T> or T); long double complex, passed in memory, has no rule",
                    name,
                    fty.print()
                ),
            ))
        }
    }
}

/// `Σ p · t` over the present tangents `t` (`None` when none is).
fn dot(b: &mut Builder, terms: &[(Val, Option<Val>)]) -> Option<Val> {
    let mut acc: Option<Val> = None;
    for &(p, t) in terms {
        if let Some(t) = t {
            let pt = b.fmul(p, t);
            acc = Some(match acc {
                Some(a) => b.fadd(a, pt),
                None => pt,
            });
        }
    }
    acc
}

fn add(b: &mut Builder, a: Option<Val>, x: Option<Val>) -> Option<Val> {
    match (a, x) {
        (Some(a), Some(x)) => Some(b.fadd(a, x)),
        (a, x) => a.or(x),
    }
}

/// Erases what was built since `before` and is unused, except `keep` (the values handed back,
/// which have no users yet): the derivatives of operands without a tangent or adjoint.
fn tidy(b: &Builder, before: &linear::Mark, keep: &[Val]) {
    let mut built = linear::built_since(b, before);
    built.retain(|i| !keep.contains(i));
    linear::erase_unused(built);
}

/// The forward half: `dw = Σ f'_k(z) · dz_k`, a missing tangent part a structural zero.
fn forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let (d, abi) = resolve(c.env, c.src)?;
    let b = &mut *c.b;
    let dz = abi.tangents(b, &c.tangents);
    if dz.iter().flatten().all(Option::is_none) {
        return Ok(None);
    }
    let before = linear::mark(b);
    let z = abi.operands(b, &c.args);
    let w = abi.split(b, c.call);
    let ty = c.call.ty();
    let out = match d {
        Deriv::Holomorphic(f) => {
            let fp = f(b, &z, w);
            let (mut re, mut im) = (None, None);
            for (p, [dx, dy]) in fp.iter().zip(&dz) {
                // (a + ib)(dx + i dy) = (a dx - b dy) + i (b dx + a dy)
                let nb = b.fneg(p.im);
                let r = dot(b, &[(p.re, *dx), (nb, *dy)]);
                let i = dot(b, &[(p.im, *dx), (p.re, *dy)]);
                re = add(b, re, r);
                im = add(b, im, i);
            }
            let zero = w.re.ty().float_const(0.0);
            let (re, im) = (re.unwrap_or(zero), im.unwrap_or(zero));
            abi.pack(b, ty, C { re, im })
        }
        Deriv::Real(f) => {
            let g = f(b, &z, c.call);
            let mut acc = None;
            for (g, [dx, dy]) in g.iter().zip(&dz) {
                let t = dot(b, &[(g.re, *dx), (g.im, *dy)]);
                acc = add(b, acc, t);
            }
            acc.unwrap_or_else(|| ty.float_const(0.0))
        }
        Deriv::Conj => {
            let zero = w.re.ty().float_const(0.0);
            let [dx, dy] = dz[0];
            let re = dx.unwrap_or(zero);
            let im = match dy {
                Some(dy) => b.fneg(dy),
                None => zero,
            };
            abi.pack(b, ty, C { re, im })
        }
    };
    tidy(b, &before, &[out]);
    Ok(Some(out))
}

/// The adjoint half: `x̄ + iȳ = conj(f'(z)) · (ū + iv̄)` per operand (real-valued functions:
/// `(∂g/∂x, ∂g/∂y) · ḡ`), in the layout of the operand's arguments.
fn adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let mut out: ArgAdjoints = vec![None; c.args.len()];
    let Some(dw) = c.d_result else {
        return Ok(out);
    };
    let (d, abi) = resolve(c.env, c.src)?;
    let b = &mut *c.b;
    let before = linear::mark(b);
    let z = abi.operands(b, &c.args);
    let ty = c.src.ty();
    // Unread by the formulas whose needs leave the result out.
    let result = c.result.unwrap_or_else(|| ty.poison());
    let w = abi.split(b, result);
    let d_w = abi.split(b, dw);
    let adjoints: Vec<C> = match d {
        Deriv::Holomorphic(f) => {
            let fp = f(b, &z, w);
            fp.iter()
                .map(|p| {
                    // conj(a + ib)(ū + iv̄) = (a ū + b v̄) + i (a v̄ - b ū)
                    let au = b.fmul(p.re, d_w.re);
                    let bv = b.fmul(p.im, d_w.im);
                    let av = b.fmul(p.re, d_w.im);
                    let bu = b.fmul(p.im, d_w.re);
                    C {
                        re: b.fadd(au, bv),
                        im: b.fsub(av, bu),
                    }
                })
                .collect()
        }
        Deriv::Real(f) => {
            let g = f(b, &z, result);
            g.iter()
                .map(|g| C {
                    re: b.fmul(g.re, dw),
                    im: b.fmul(g.im, dw),
                })
                .collect()
        }
        Deriv::Conj => vec![C {
            re: d_w.re,
            im: b.fneg(d_w.im),
        }],
    };
    let args = c.src.call_args();
    for (o, a) in abi.operands.iter().zip(adjoints) {
        match *o {
            Operand::Pair(k) => {
                out[k] = c.active[k].then_some(a.re);
                out[k + 1] = c.active[k + 1].then_some(a.im);
            }
            Operand::Lanes(k) if c.active[k] => {
                out[k] = Some(pack_lanes(b, args[k].ty(), a));
            }
            Operand::Lanes(_) => {}
        }
    }
    let keep: Vec<Val> = out.iter().flatten().copied().collect();
    tidy(b, &before, &keep);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::harness::{check_rule, check_second_order, Case};
    use super::RULES;

    /// One point per function, away from poles and branch cuts.
    fn cases() -> Vec<Case> {
        let z = [0.7, -0.4];
        let mut cases: Vec<Case> = [
            "cexp", "clog", "csqrt", "csin", "ccos", "ctan", "csinh", "ccosh", "ctanh", "conj",
        ]
        .iter()
        .map(|n| Case::complex(n, &z))
        .collect();
        cases.extend(
            ["cabs", "carg", "creal", "cimag"]
                .iter()
                .map(|n| Case::complex_real(n, &z)),
        );
        cases.extend([
            Case::complex("clog", &[-1.2, 0.5]),
            Case::complex("csqrt", &[-0.3, -1.1]),
            Case::complex_real("carg", &[-0.6, 0.8]),
            Case::complex("cpow", &[0.8, 0.5, 1.3, -0.6]),
            Case::complex("cpow", &[-0.5, 0.9, 2.0, 0.0]),
            Case::complex_helper(["__muldc3", "__mulsc3"], &[0.7, -0.4, 1.2, 0.9]),
            Case::complex_helper(["__divdc3", "__divsc3"], &[0.7, -0.4, 1.2, 0.9]),
        ]);
        cases
    }

    #[test]
    fn complex_rules_match_finite_differences() {
        for case in cases() {
            check_rule(&case);
        }
    }

    #[test]
    fn complex_derivatives_are_differentiable_again() {
        for case in cases() {
            check_second_order(&case);
        }
    }

    #[test]
    fn every_complex_name_has_a_case() {
        let tested: Vec<String> = cases().iter().flat_map(Case::callee_names).collect();
        for r in RULES {
            for n in r.names() {
                assert!(tested.contains(&n), "no test case calls {n}");
            }
        }
    }

    #[test]
    fn long_double_complex_has_no_rule() {
        // `long double _Complex` is passed in memory: no rule may match its spellings.
        for n in ["cexpl", "cabsl", "__mulxc3", "__divxc3"] {
            assert!(super::super::lookup(n).is_none(), "{n}");
        }
    }
}
