//! BLAS level 1 rules: `dot`, `nrm2`, `axpy`, `scal` and `copy`, each with its signature, its
//! forward rule and its reverse half (augmented and adjoint sweeps), and their tests.
//!
//! Guarantees: as for every BLAS rule (see the module overview); besides, `nrm2`'s derivative
//! at the origin is taken as zero, and `scal` with a non-positive stride (which the BLAS
//! ignore) has no derivative either.

use super::emit::position_after;
use super::routines::{AXPY, COPY, DOT, NRM2, SCAL};
use super::site::Site;
use super::tape::{adjoint_site, augmented, save, Keep};
use crate::diag::Result;
use crate::ir::{Builder, IntPred, RealPred, Val};
use crate::rules::calls::{
    AdjointCall, ArgAdjoints, AugmentCall, Augmented, CustomReverse, ForwardCall, ForwardRule,
};
use crate::rules::rule::{Area, Effects, Reverse, Rule, RuleKind};

custom!(DOT_REV, dot_augment, dot_adjoint);
custom!(NRM2_REV, nrm2_augment, nrm2_adjoint);
custom!(AXPY_REV, axpy_augment, axpy_adjoint);
custom!(SCAL_REV, scal_augment, scal_adjoint);
custom!(COPY_REV, copy_augment, copy_adjoint);

/// The level 1 rules.
pub(super) static RULES: &[Rule] = &[
    blas!(
        "cblas_ddot",
        ["cblas_sdot", "ddot_", "sdot_"],
        dot_forward,
        &DOT_REV,
        Effects::READS
    ),
    blas!(
        "cblas_dnrm2",
        ["cblas_snrm2", "dnrm2_", "snrm2_"],
        nrm2_forward,
        &NRM2_REV,
        Effects::READS
    ),
    blas!(
        "cblas_daxpy",
        ["cblas_saxpy", "daxpy_", "saxpy_"],
        axpy_forward,
        &AXPY_REV,
        Effects::READS_WRITES
    ),
    blas!(
        "cblas_dscal",
        ["cblas_sscal", "dscal_", "sscal_"],
        scal_forward,
        &SCAL_REV,
        Effects::READS_WRITES
    ),
    blas!(
        "cblas_dcopy",
        ["cblas_scopy", "dcopy_", "scopy_"],
        copy_forward,
        &COPY_REV,
        Effects::READS_WRITES
    ),
];

pub(super) static SIGNATURES: &[&super::signature::Signature] = &[&DOT, &NRM2, &AXPY, &SCAL, &COPY];

// ----- dot: r = x . y -----

/// `acc + v` with `None` as zero.
fn plus(b: &mut Builder, acc: Option<Val>, v: Val) -> Option<Val> {
    Some(match acc {
        Some(a) => b.fadd(a, v),
        None => v,
    })
}

fn dot_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let s = Site::new(&DOT, c.b.module(), c.src, &c.args)?;
    let b = &mut *c.b;
    let v = s.scalars(b, &[]);
    let (n, incx, incy) = (v["n"], v["incx"], v["incy"]);
    let (x, y) = (s.ptr("x"), s.ptr("y"));
    let mut acc = None;
    if let Some(dx) = s.shadow(&c.tangents, "x") {
        let t = s.blas.dot(b, [n, dx, incx, y, incy]);
        acc = plus(b, acc, t);
    }
    if let Some(dy) = s.shadow(&c.tangents, "y") {
        let t = s.blas.dot(b, [n, x, incx, dy, incy]);
        acc = plus(b, acc, t);
    }
    Ok(acc)
}

fn dot_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let s = Site::augmenting(&DOT, c)?;
    let b = &mut *c.b;
    let v = s.scalars(b, &[]);
    let n = v["n"];
    // Each vector is needed for the other's adjoint.
    let keeps = [
        (
            "x",
            s.shadow(&c.shadows, "y")
                .map(|_| Keep::vector(&s, &v, "x", n)),
        ),
        (
            "y",
            s.shadow(&c.shadows, "x")
                .map(|_| Keep::vector(&s, &v, "y", n)),
        ),
    ];
    let buf = save(b, &s, &v, &keeps);
    let call = c.primal_call();
    Ok(augmented(call, buf))
}

fn dot_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let (s, sv) = adjoint_site(&DOT, c)?;
    let (bl, b) = (&s.blas, &mut *c.b);
    if let Some(dr) = c.d_result {
        let v = sv.scalars(b, &s);
        let (n, incx, incy) = (v["n"], v["incx"], v["incy"]);
        if let Some(dx) = s.shadow(&c.shadows, "x") {
            let ys = sv.array(b, &s, "y");
            bl.add_into_vector(b, s.shared("x"), [n, dx, incx], |b, d, inc| {
                bl.axpy(b, [n, dr, ys.at, ys.stride, d, inc])
            });
        }
        if let Some(dy) = s.shadow(&c.shadows, "y") {
            let xs = sv.array(b, &s, "x");
            bl.add_into_vector(b, s.shared("y"), [n, dy, incy], |b, d, inc| {
                bl.axpy(b, [n, dr, xs.at, xs.stride, d, inc])
            });
        }
    }
    bl.free(b, sv.buf);
    Ok(Vec::new())
}

// ----- nrm2: r = ||x|| -----

/// `x / r`, zero where `r` is zero (the norm's derivative at the origin is taken as zero).
fn over_norm(b: &mut Builder, x: Val, r: Val) -> Val {
    let q = b.fdiv(x, r);
    let zero = r.ty().zero();
    let at_zero = b.fcmp(RealPred::LLVMRealOEQ, r, zero);
    b.select(at_zero, zero, q)
}

fn nrm2_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let s = Site::new(&NRM2, c.b.module(), c.src, &c.args)?;
    let Some(dx) = s.shadow(&c.tangents, "x") else {
        return Ok(None);
    };
    let b = &mut *c.b;
    let v = s.scalars(b, &[]);
    let (n, incx) = (v["n"], v["incx"]);
    let d = s.blas.dot(b, [n, s.ptr("x"), incx, dx, incx]);
    Ok(Some(over_norm(b, d, c.call)))
}

fn nrm2_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let s = Site::augmenting(&NRM2, c)?;
    let call = c.primal_call();
    let b = &mut *c.b;
    let mut v = s.scalars(b, &[]);
    let keep = s
        .shadow(&c.shadows, "x")
        .map(|_| Keep::vector(&s, &v, "x", v["n"]));
    v.push(super::signature::RESULT, call);
    let buf = save(b, &s, &v, &[("x", keep)]);
    Ok(augmented(call, buf))
}

fn nrm2_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let (s, sv) = adjoint_site(&NRM2, c)?;
    let (bl, b) = (&s.blas, &mut *c.b);
    if let (Some(dr), Some(dx)) = (c.d_result, s.shadow(&c.shadows, "x")) {
        let v = sv.scalars(b, &s);
        let q = over_norm(b, dr, v[super::signature::RESULT]);
        let xs = sv.array(b, &s, "x");
        let (n, incx) = (v["n"], v["incx"]);
        bl.add_into_vector(b, s.shared("x"), [n, dx, incx], |b, d, inc| {
            bl.axpy(b, [n, q, xs.at, xs.stride, d, inc])
        });
    }
    bl.free(b, sv.buf);
    Ok(Vec::new())
}

// ----- axpy: y += alpha x -----

fn axpy_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let s = Site::new(&AXPY, c.b.module(), c.src, &c.args)?;
    let b = &mut *c.b;
    let da = s.real_tangent(b, &c.tangents, "alpha");
    let dx = s.shadow(&c.tangents, "x");
    let Some(dy) = s.shadow(&c.tangents, "y") else {
        return match da.is_some() || dx.is_some() {
            true => Err(s.no_shadow(c.src)),
            false => Ok(None),
        };
    };
    let v = s.scalars(b, &[]);
    let (n, incx, incy, alpha) = (v["n"], v["incx"], v["incy"], v["alpha"]);
    if let Some(dx) = dx {
        s.blas.axpy(b, [n, alpha, dx, incx, dy, incy]);
    }
    if let Some(da) = da {
        s.blas.axpy(b, [n, da, s.ptr("x"), incx, dy, incy]);
    }
    Ok(None)
}

fn axpy_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let s = Site::augmenting(&AXPY, c)?;
    let b = &mut *c.b;
    let v = s.scalars(b, &[]);
    // x is needed only for alpha's adjoint.
    let need_x =
        s.shadow(&c.shadows, "y").is_some() && s.real_maybe_active(c.src, &c.shadows, "alpha");
    let keep = need_x.then(|| Keep::vector(&s, &v, "x", v["n"]));
    let buf = save(b, &s, &v, &[("x", keep)]);
    let call = c.primal_call();
    Ok(augmented(call, buf))
}

fn axpy_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let (s, sv) = adjoint_site(&AXPY, c)?;
    let (bl, b) = (&s.blas, &mut *c.b);
    let a_active = s.real_active(&c.active, &c.shadows, "alpha");
    let dx = s.shadow(&c.shadows, "x");
    let mut out = vec![None; c.args.len()];
    match s.shadow(&c.shadows, "y") {
        None if a_active || dx.is_some() => return Err(s.no_shadow(c.src)),
        None => {}
        Some(dy) => {
            let v = sv.scalars(b, &s);
            let (n, incx, incy, alpha) = (v["n"], v["incx"], v["incy"], v["alpha"]);
            if a_active {
                let xs = sv.array(b, &s, "x");
                let da = bl.dot(b, [n, xs.at, xs.stride, dy, incy]);
                s.give(b, &c.shadows, &mut out, "alpha", da);
            }
            if let Some(dx) = dx {
                bl.add_into_vector(b, s.shared("x"), [n, dx, incx], |b, d, inc| {
                    bl.axpy(b, [n, alpha, dy, incy, d, inc])
                });
            }
        }
    }
    bl.free(b, sv.buf);
    Ok(out)
}

// ----- scal: x = alpha x -----

/// The number of elements `scal` scales: none for a non-positive stride (the BLAS then do
/// nothing), so neither do its derivatives.
fn scal_len(s: &Site, b: &mut Builder) -> Val {
    let (n, inc) = (s.int(b, "n"), s.int(b, "incx"));
    let forward = b.icmp(IntPred::LLVMIntSGT, inc, s.blas.int.zero());
    b.select(forward, n, s.blas.int.zero())
}

fn scal_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let s = Site::new(&SCAL, c.b.module(), c.src, &c.args)?;
    let Some(dx) = s.shadow(&c.tangents, "x") else {
        return match s.shadow(&c.tangents, "alpha") {
            Some(_) => Err(s.no_shadow(c.src)),
            None => Ok(None),
        };
    };
    // dx = alpha dx + dalpha x reads x before the call overwrites it.
    let b = &mut *c.b;
    b.position_before(c.call);
    let da = s.real_tangent(b, &c.tangents, "alpha");
    let n = scal_len(&s, b);
    let (alpha, incx) = (s.real(b, "alpha"), s.int(b, "incx"));
    s.blas.scal(b, [n, alpha, dx, incx]);
    if let Some(da) = da {
        s.blas.axpy(b, [n, da, s.ptr("x"), incx, dx, incx]);
    }
    position_after(b, c.call);
    Ok(None)
}

fn scal_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let s = Site::augmenting(&SCAL, c)?;
    let b = &mut *c.b;
    let n = scal_len(&s, b);
    let v = s.scalars(b, &[("n", n)]);
    // x is needed only for alpha's adjoint.
    let need_x =
        s.shadow(&c.shadows, "x").is_some() && s.real_maybe_active(c.src, &c.shadows, "alpha");
    let keep = need_x.then(|| Keep::vector(&s, &v, "x", n));
    let buf = save(b, &s, &v, &[("x", keep)]);
    let call = c.primal_call();
    Ok(augmented(call, buf))
}

fn scal_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let (s, sv) = adjoint_site(&SCAL, c)?;
    let (bl, b) = (&s.blas, &mut *c.b);
    let a_active = s.real_active(&c.active, &c.shadows, "alpha");
    let mut out = vec![None; c.args.len()];
    match s.shadow(&c.shadows, "x") {
        None if a_active => return Err(s.no_shadow(c.src)),
        None => {}
        Some(dx) => {
            // The saved n is scal's effective length (zero for a non-positive stride).
            let v = sv.scalars(b, &s);
            let (n, incx, alpha) = (v["n"], v["incx"], v["alpha"]);
            if a_active {
                let xs = sv.array(b, &s, "x");
                let da = bl.dot(b, [n, xs.at, xs.stride, dx, incx]);
                s.give(b, &c.shadows, &mut out, "alpha", da);
            }
            bl.scal(b, [n, alpha, dx, incx]);
        }
    }
    bl.free(b, sv.buf);
    Ok(out)
}

// ----- copy: y = x -----

fn copy_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let s = Site::new(&COPY, c.b.module(), c.src, &c.args)?;
    let dx = s.shadow(&c.tangents, "x");
    let Some(dy) = s.shadow(&c.tangents, "y") else {
        return match dx {
            Some(_) => Err(s.no_shadow(c.src)),
            None => Ok(None),
        };
    };
    let b = &mut *c.b;
    let v = s.scalars(b, &[]);
    let (n, incx, incy) = (v["n"], v["incx"], v["incy"]);
    match dx {
        Some(dx) => s.blas.copy(b, [n, dx, incx, dy, incy]),
        None => s.blas.zero(b, n, dy, incy),
    }
    Ok(None)
}

fn copy_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let s = Site::augmenting(&COPY, c)?;
    let b = &mut *c.b;
    let v = s.scalars(b, &[]);
    let buf = save(b, &s, &v, &[]);
    let call = c.primal_call();
    Ok(augmented(call, buf))
}

fn copy_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let (s, sv) = adjoint_site(&COPY, c)?;
    let (bl, b) = (&s.blas, &mut *c.b);
    let dx = s.shadow(&c.shadows, "x");
    match s.shadow(&c.shadows, "y") {
        None if dx.is_some() => return Err(s.no_shadow(c.src)),
        None => {}
        Some(dy) => {
            let v = sv.scalars(b, &s);
            let (n, incx, incy) = (v["n"], v["incx"], v["incy"]);
            if let Some(dx) = dx {
                bl.add_into_vector(b, s.shared("x"), [n, dx, incx], |b, d, inc| {
                    bl.axpy(b, [n, bl.real_c(1.0), dy, incy, d, inc])
                });
            }
            bl.zero(b, n, dy, incy);
        }
    }
    bl.free(b, sv.buf);
    Ok(Vec::new())
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, Body, STRIDES};
    use crate::ir::{Builder, Module, Ty, Val};

    const N: usize = 3;

    fn dot_body(b: &mut Builder, m: Module, elem: Ty, xs: &[Val], cfg: &[i64]) -> Val {
        let (fortran, incx, incy) = (cfg[0] != 0, cfg[1], cfg[2]);
        let mut t = Body::new(b, m, elem, xs, fortran);
        let (x, lx) = t.vector(N, incx);
        let (y, ly) = t.vector(N, incy);
        let args = [t.int(N as i64), x, t.int(incx), y, t.int(incy)];
        let r = t.call("dot", true, &args);
        t.clobber(x, lx);
        t.clobber(y, ly);
        r
    }

    fn nrm2_body(b: &mut Builder, m: Module, elem: Ty, xs: &[Val], cfg: &[i64]) -> Val {
        let (fortran, incx) = (cfg[0] != 0, cfg[1]);
        let mut t = Body::new(b, m, elem, xs, fortran);
        let (x, lx) = t.vector(N, incx);
        let args = [t.int(N as i64), x, t.int(incx)];
        let r = t.call("nrm2", true, &args);
        t.clobber(x, lx);
        r
    }

    fn axpy_body(b: &mut Builder, m: Module, elem: Ty, xs: &[Val], cfg: &[i64]) -> Val {
        let (fortran, incx, incy) = (cfg[0] != 0, cfg[1], cfg[2]);
        let mut t = Body::new(b, m, elem, xs, fortran);
        let a = t.param();
        let (x, lx) = t.vector(N, incx);
        let (y, _) = t.vector(N, incy);
        let args = [t.int(N as i64), t.real(a), x, t.int(incx), y, t.int(incy)];
        t.call("axpy", false, &args);
        let r = t.weigh_vector(y, N, incy);
        t.clobber(x, lx);
        r
    }

    fn scal_body(b: &mut Builder, m: Module, elem: Ty, xs: &[Val], cfg: &[i64]) -> Val {
        let (fortran, incx) = (cfg[0] != 0, cfg[1]);
        let mut t = Body::new(b, m, elem, xs, fortran);
        let a = t.param();
        let (x, _) = t.vector(N, incx);
        let args = [t.int(N as i64), t.real(a), x, t.int(incx)];
        t.call("scal", false, &args);
        t.weigh_vector(x, N, incx)
    }

    fn copy_body(b: &mut Builder, m: Module, elem: Ty, xs: &[Val], cfg: &[i64]) -> Val {
        let (fortran, incx, incy) = (cfg[0] != 0, cfg[1], cfg[2]);
        let mut t = Body::new(b, m, elem, xs, fortran);
        let (x, lx) = t.vector(N, incx);
        let (y, _) = t.vector(N, incy);
        let args = [t.int(N as i64), x, t.int(incx), y, t.int(incy)];
        t.call("copy", false, &args);
        let r = t.weigh_vector(y, N, incy);
        t.clobber(x, lx);
        r
    }

    #[test]
    fn level1() {
        for fortran in [0, 1] {
            for (incx, incy) in STRIDES {
                check("dot", 2 * N, &[fortran, incx, incy], dot_body);
                check("nrm2", N, &[fortran, incy], nrm2_body);
                check("axpy", 1 + 2 * N, &[fortran, incx, incy], axpy_body);
                check("scal", 1 + N, &[fortran, incy], scal_body);
                check("copy", 2 * N, &[fortran, incx, incy], copy_body);
            }
        }
    }
}
