//! BLAS level 2 rules: `gemv` (`y = alpha op(A) x + beta y`) and `ger` (`A += alpha x y^T`),
//! each with its signature, its forward rule and its reverse half, and their tests.
//!
//! Guarantees: as for every BLAS rule (see the module overview); both storage orders and
//! transposes are handled by passing them on to the BLAS, never by copying into another
//! layout (only the adjoint's saved copies are contiguous; inputs read in place keep theirs).

use super::emit::{flip, is, position_after, sel, storage, NO_TRANS, TRANS};
use super::routines::{GEMV, GER};
use super::site::Site;
use super::tape::{adjoint_site, augmented, save, Keep};
use crate::diag::Result;
use crate::ir::{Builder, Val};
use crate::rules::calls::{
    AdjointCall, ArgAdjoints, AugmentCall, Augmented, CustomReverse, ForwardCall, ForwardRule,
};
use crate::rules::rule::{Area, Effects, Reverse, Rule, RuleKind};

custom!(GEMV_REV, gemv_augment, gemv_adjoint);
custom!(GER_REV, ger_augment, ger_adjoint);

/// The level 2 rules.
pub(super) static RULES: &[Rule] = &[
    blas!(
        "cblas_dgemv",
        ["cblas_sgemv", "dgemv_", "sgemv_"],
        gemv_forward,
        &GEMV_REV,
        Effects::READS_WRITES
    ),
    blas!(
        "cblas_dger",
        ["cblas_sger", "dger_", "sger_"],
        ger_forward,
        &GER_REV,
        Effects::READS_WRITES
    ),
];

pub(super) static SIGNATURES: &[&super::signature::Signature] = &[&GEMV, &GER];

// ----- gemv: y = alpha op(A) x + beta y -----

/// The lengths of x and y: `(n, m)`, or `(m, n)` when A is transposed.
fn gemv_lens(b: &mut Builder, t: Val, m: Val, n: Val) -> (Val, Val) {
    let plain = is(b, t, NO_TRANS);
    (sel(b, plain, n, m), sel(b, plain, m, n))
}

fn gemv_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let s = Site::new(&GEMV, c.b.module(), c.src, &c.args)?;
    let (d_a, dx) = (s.shadow(&c.tangents, "A"), s.shadow(&c.tangents, "x"));
    let Some(dy) = s.shadow(&c.tangents, "y") else {
        return match s.any_input_shadow(&c.tangents) {
            true => Err(s.no_shadow(c.src)),
            false => Ok(None),
        };
    };
    // The beta terms read y before the call overwrites it.
    let b = &mut *c.b;
    b.position_before(c.call);
    let da = s.real_tangent(b, &c.tangents, "alpha");
    let db = s.real_tangent(b, &c.tangents, "beta");
    let v = s.scalars(b, &[]);
    let (o, t, m, n) = (v["order"], v["trans"], v["m"], v["n"]);
    let (lda, incx, incy, alpha, beta) = (v["lda"], v["incx"], v["incy"], v["alpha"], v["beta"]);
    let (a, x, y) = (s.ptr("A"), s.ptr("x"), s.ptr("y"));
    let terms = [
        d_a.map(|d| (alpha, d, x)),
        dx.map(|d| (alpha, a, d)),
        da.map(|d| (d, a, x)),
    ];
    // The first term scales dy by beta; later ones add to it.
    let mut scale = Some(beta);
    for (al, mat, vec) in terms.into_iter().flatten() {
        let be = scale.take().unwrap_or_else(|| s.blas.real_c(1.0));
        s.blas
            .gemv(b, [o, t, m, n, al, mat, lda, vec, incx, be, dy, incy]);
    }
    let (_, ly) = gemv_lens(b, t, m, n);
    if let Some(beta) = scale {
        s.blas.scal(b, [ly, beta, dy, incy]);
    }
    if let Some(db) = db {
        s.blas.axpy(b, [ly, db, y, incy, dy, incy]);
    }
    position_after(b, c.call);
    Ok(None)
}

fn gemv_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let s = Site::augmenting(&GEMV, c)?;
    let b = &mut *c.b;
    let v = s.scalars(b, &[]);
    let (o, t, m, n) = (v["order"], v["trans"], v["m"], v["n"]);
    let (lx, ly) = gemv_lens(b, t, m, n);
    let out = s.shadow(&c.shadows, "y").is_some();
    let alpha = out && s.real_maybe_active(c.src, &c.shadows, "alpha");
    let beta = out && s.real_maybe_active(c.src, &c.shadows, "beta");
    let (len, count) = storage(b, o, m, n);
    // A for dx and for alpha, x for dA and for alpha, y (before the call) for beta.
    let keep_a = out && (alpha || s.shadow(&c.shadows, "x").is_some());
    let keep_x = out && (alpha || s.shadow(&c.shadows, "A").is_some());
    let keeps = [
        ("A", keep_a.then(|| Keep::matrix(&s, &v, "A", len, count))),
        ("x", keep_x.then(|| Keep::vector(&s, &v, "x", lx))),
        ("y", beta.then(|| Keep::vector(&s, &v, "y", ly))),
    ];
    let buf = save(b, &s, &v, &keeps);
    let call = c.primal_call();
    Ok(augmented(call, buf))
}

fn gemv_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let (s, sv) = adjoint_site(&GEMV, c)?;
    let (bl, b) = (&s.blas, &mut *c.b);
    let (a_active, b_active) = (
        s.real_active(&c.active, &c.shadows, "alpha"),
        s.real_active(&c.active, &c.shadows, "beta"),
    );
    let (d_a, dx) = (s.shadow(&c.shadows, "A"), s.shadow(&c.shadows, "x"));
    let mut out = vec![None; c.args.len()];
    let Some(dy) = s.shadow(&c.shadows, "y") else {
        if a_active || b_active || d_a.is_some() || dx.is_some() {
            return Err(s.no_shadow(c.src));
        }
        bl.free(b, sv.buf);
        return Ok(out);
    };
    let v = sv.scalars(b, &s);
    let (o, t, m, n) = (v["order"], v["trans"], v["m"], v["n"]);
    let (lda, incx, incy, alpha, beta) = (v["lda"], v["incx"], v["incy"], v["alpha"], v["beta"]);
    let (_, ly) = gemv_lens(b, t, m, n);
    let (one, r1, r0) = (bl.int_c(1), bl.real_c(1.0), bl.real_c(0.0));
    if a_active {
        // d alpha = <dy, op(A) x>
        let (a_s, x_s) = (sv.array(b, &s, "A"), sv.array(b, &s, "x"));
        let len64 = bl.size64(b, ly);
        let tmp = bl.scratch(b, len64);
        bl.gemv(
            b,
            [
                o, t, m, n, r1, a_s.at, a_s.stride, x_s.at, x_s.stride, r0, tmp, one,
            ],
        );
        let d = bl.dot(b, [ly, tmp, one, dy, incy]);
        bl.free(b, tmp);
        s.give(b, &c.shadows, &mut out, "alpha", d);
    }
    if b_active {
        let y_s = sv.array(b, &s, "y");
        let d = bl.dot(b, [ly, y_s.at, y_s.stride, dy, incy]);
        s.give(b, &c.shadows, &mut out, "beta", d);
    }
    if let Some(d_a) = d_a {
        // dA += alpha dy x^T, or alpha x dy^T when A is transposed.
        let x_s = sv.array(b, &s, "x");
        let plain = is(b, t, NO_TRANS);
        let (u, incu) = (sel(b, plain, dy, x_s.at), sel(b, plain, incy, x_s.stride));
        let (w, incw) = (sel(b, plain, x_s.at, dy), sel(b, plain, x_s.stride, incy));
        let (len, count) = storage(b, o, m, n);
        bl.add_into_matrix(b, s.shared("A"), [len, count, d_a, lda], |b, d, ld| {
            bl.ger(b, [o, m, n, alpha, u, incu, w, incw, d, ld])
        });
    }
    if let Some(dx) = dx {
        // dx += alpha op(A)^T dy
        let a_s = sv.array(b, &s, "A");
        let ft = flip(bl, b, t);
        let (lx, _) = gemv_lens(b, t, m, n);
        bl.add_into_vector(b, s.shared("x"), [lx, dx, incx], |b, d, inc| {
            bl.gemv(
                b,
                [o, ft, m, n, alpha, a_s.at, a_s.stride, dy, incy, r1, d, inc],
            )
        });
    }
    bl.scal(b, [ly, beta, dy, incy]);
    bl.free(b, sv.buf);
    Ok(out)
}

// ----- ger: A += alpha x y^T -----

fn ger_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let s = Site::new(&GER, c.b.module(), c.src, &c.args)?;
    let da = s.real_tangent(c.b, &c.tangents, "alpha");
    let (dx, dy) = (s.shadow(&c.tangents, "x"), s.shadow(&c.tangents, "y"));
    let Some(d_a) = s.shadow(&c.tangents, "A") else {
        return match da.or(dx).or(dy) {
            Some(_) => Err(s.no_shadow(c.src)),
            None => Ok(None),
        };
    };
    let b = &mut *c.b;
    let v = s.scalars(b, &[]);
    let (o, m, n, alpha) = (v["order"], v["m"], v["n"], v["alpha"]);
    let (incx, incy, lda) = (v["incx"], v["incy"], v["lda"]);
    let (x, y) = (s.ptr("x"), s.ptr("y"));
    let terms = [
        dx.map(|d| (alpha, d, y)),
        dy.map(|d| (alpha, x, d)),
        da.map(|d| (d, x, y)),
    ];
    for (al, u, w) in terms.into_iter().flatten() {
        s.blas.ger(b, [o, m, n, al, u, incx, w, incy, d_a, lda]);
    }
    Ok(None)
}

fn ger_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let s = Site::augmenting(&GER, c)?;
    let b = &mut *c.b;
    let v = s.scalars(b, &[]);
    let out = s.shadow(&c.shadows, "A").is_some();
    let alpha = out && s.real_maybe_active(c.src, &c.shadows, "alpha");
    // x for dy and for alpha, y for dx and for alpha.
    let keep_x = alpha || (out && s.shadow(&c.shadows, "y").is_some());
    let keep_y = alpha || (out && s.shadow(&c.shadows, "x").is_some());
    let keeps = [
        ("x", keep_x.then(|| Keep::vector(&s, &v, "x", v["m"]))),
        ("y", keep_y.then(|| Keep::vector(&s, &v, "y", v["n"]))),
    ];
    let buf = save(b, &s, &v, &keeps);
    let call = c.primal_call();
    Ok(augmented(call, buf))
}

fn ger_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let (s, sv) = adjoint_site(&GER, c)?;
    let (bl, b) = (&s.blas, &mut *c.b);
    let a_active = s.real_active(&c.active, &c.shadows, "alpha");
    let (dx, dy) = (s.shadow(&c.shadows, "x"), s.shadow(&c.shadows, "y"));
    let mut out = vec![None; c.args.len()];
    let Some(g) = s.shadow(&c.shadows, "A") else {
        if a_active || dx.is_some() || dy.is_some() {
            return Err(s.no_shadow(c.src));
        }
        bl.free(b, sv.buf);
        return Ok(out);
    };
    let v = sv.scalars(b, &s);
    let (o, m, n, alpha) = (v["order"], v["m"], v["n"], v["alpha"]);
    let (incx, incy, lda) = (v["incx"], v["incy"], v["lda"]);
    let (one, r1, r0) = (bl.int_c(1), bl.real_c(1.0), bl.real_c(0.0));
    let (plain, tr) = (bl.enum_c(NO_TRANS), bl.enum_c(TRANS));
    if a_active {
        // d alpha = x^T dA y
        let (x_s, y_s) = (sv.array(b, &s, "x"), sv.array(b, &s, "y"));
        let m64 = bl.size64(b, m);
        let tmp = bl.scratch(b, m64);
        bl.gemv(
            b,
            [o, plain, m, n, r1, g, lda, y_s.at, y_s.stride, r0, tmp, one],
        );
        let d = bl.dot(b, [m, x_s.at, x_s.stride, tmp, one]);
        bl.free(b, tmp);
        s.give(b, &c.shadows, &mut out, "alpha", d);
    }
    if let Some(dx) = dx {
        let y_s = sv.array(b, &s, "y");
        bl.add_into_vector(b, s.shared("x"), [m, dx, incx], |b, d, inc| {
            bl.gemv(
                b,
                [
                    o, plain, m, n, alpha, g, lda, y_s.at, y_s.stride, r1, d, inc,
                ],
            )
        });
    }
    if let Some(dy) = dy {
        let x_s = sv.array(b, &s, "x");
        bl.add_into_vector(b, s.shared("y"), [n, dy, incy], |b, d, inc| {
            bl.gemv(
                b,
                [o, tr, m, n, alpha, g, lda, x_s.at, x_s.stride, r1, d, inc],
            )
        });
    }
    bl.free(b, sv.buf);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, Body, STRIDES};
    use crate::ir::{Builder, Module, Ty, Val};

    /// `gemv` on a 2 x 3 matrix: config `[fortran, order, trans, incx, incy]`.
    fn gemv_body(b: &mut Builder, m: Module, elem: Ty, xs: &[Val], cfg: &[i64]) -> Val {
        let (fortran, order, trans, incx, incy) = (cfg[0] != 0, cfg[1], cfg[2], cfg[3], cfg[4]);
        let (rows, cols) = (2usize, 3usize);
        let (lx, ly) = if trans == 111 {
            (cols, rows)
        } else {
            (rows, cols)
        };
        let mut t = Body::new(b, m, elem, xs, fortran);
        let rm = order == 101;
        let alpha = t.param();
        let (a, lda, la) = t.matrix(rows, cols, rm);
        let (x, sx) = t.vector(lx, incx);
        let beta = t.param();
        let (y, _) = t.vector(ly, incy);
        let mut args = Vec::new();
        if !fortran {
            args.push(t.int(order));
        }
        args.extend([
            t.trans(trans),
            t.int(rows as i64),
            t.int(cols as i64),
            t.real(alpha),
        ]);
        args.extend([a, t.int(lda), x, t.int(incx), t.real(beta), y, t.int(incy)]);
        t.call("gemv", false, &args);
        let r = t.weigh_vector(y, ly, incy);
        t.clobber(a, la);
        t.clobber(x, sx);
        r
    }

    /// `ger` on a 2 x 3 matrix: config `[fortran, order, incx, incy]`.
    fn ger_body(b: &mut Builder, m: Module, elem: Ty, xs: &[Val], cfg: &[i64]) -> Val {
        let (fortran, order, incx, incy) = (cfg[0] != 0, cfg[1], cfg[2], cfg[3]);
        let (rows, cols) = (2usize, 3usize);
        let mut t = Body::new(b, m, elem, xs, fortran);
        let rm = order == 101;
        let alpha = t.param();
        let (x, sx) = t.vector(rows, incx);
        let (y, sy) = t.vector(cols, incy);
        let (a, lda, _) = t.matrix(rows, cols, rm);
        let mut args = Vec::new();
        if !fortran {
            args.push(t.int(order));
        }
        args.extend([t.int(rows as i64), t.int(cols as i64), t.real(alpha)]);
        args.extend([x, t.int(incx), y, t.int(incy), a, t.int(lda)]);
        t.call("ger", false, &args);
        let r = t.weigh_matrix(a, rows, cols, rm);
        t.clobber(x, sx);
        t.clobber(y, sy);
        r
    }

    #[test]
    fn gemv_and_ger() {
        for (fortran, order) in [(0, 101), (0, 102), (1, 102)] {
            for trans in [111, 112] {
                for (incx, incy) in STRIDES {
                    check("gemv", 13, &[fortran, order, trans, incx, incy], gemv_body);
                }
            }
            for (incx, incy) in STRIDES {
                check("ger", 12, &[fortran, order, incx, incy], ger_body);
            }
        }
    }
}
