//! BLAS level 3 rule: `gemm` (`C = alpha op(A) op(B) + beta C`), with its signature, its
//! forward rule and its reverse half, and its tests.
//!
//! Guarantees: as for every BLAS rule (see the module overview); the derivative terms are
//! `gemm` calls on the caller's layouts, and the adjoint's inner products use contiguous
//! copies (of dC, and of the saved inputs).

use super::emit::{flip, is, position_after, sel, storage, GeOp, NO_TRANS, TRANS};
use super::routines::GEMM;
use super::site::Site;
use super::tape::{adjoint_site, augmented, save, Keep};
use crate::diag::Result;
use crate::ir::{Builder, Val};
use crate::rules::calls::{
    AdjointCall, ArgAdjoints, AugmentCall, Augmented, CustomReverse, ForwardCall, ForwardRule,
};
use crate::rules::rule::{Area, Effects, Reverse, Rule, RuleKind};

custom!(GEMM_REV, gemm_augment, gemm_adjoint);

/// The level 3 rules.
pub(super) static RULES: &[Rule] = &[blas!(
    "cblas_dgemm",
    ["cblas_sgemm", "dgemm_", "sgemm_"],
    gemm_forward,
    &GEMM_REV,
    Effects::READS_WRITES
)];

pub(super) static SIGNATURES: &[&super::signature::Signature] = &[&GEMM];

// ----- gemm: C = alpha op(A) op(B) + beta C -----

/// The stored shape `(rows, cols)` of a matrix whose op is `r x c` under flag `t`.
fn stored(b: &mut Builder, t: Val, r: Val, c: Val) -> (Val, Val) {
    let plain = is(b, t, NO_TRANS);
    (sel(b, plain, r, c), sel(b, plain, c, r))
}

fn gemm_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let s = Site::new(&GEMM, c.b.module(), c.src, &c.args)?;
    let (d_a, d_b) = (s.shadow(&c.tangents, "A"), s.shadow(&c.tangents, "B"));
    let Some(d_c) = s.shadow(&c.tangents, "C") else {
        return match s.any_input_shadow(&c.tangents) {
            true => Err(s.no_shadow(c.src)),
            false => Ok(None),
        };
    };
    // The beta terms read C before the call overwrites it.
    let b = &mut *c.b;
    b.position_before(c.call);
    let da = s.real_tangent(b, &c.tangents, "alpha");
    let db = s.real_tangent(b, &c.tangents, "beta");
    let v = s.scalars(b, &[]);
    let (o, ta, tb) = (v["order"], v["transa"], v["transb"]);
    let (m, n, k, lda, ldb, ldc) = (v["m"], v["n"], v["k"], v["lda"], v["ldb"], v["ldc"]);
    let (alpha, beta) = (v["alpha"], v["beta"]);
    let (a, bm, cm) = (s.ptr("A"), s.ptr("B"), s.ptr("C"));
    let terms = [
        d_a.map(|d| (alpha, d, bm)),
        d_b.map(|d| (alpha, a, d)),
        da.map(|d| (d, a, bm)),
    ];
    let mut scale = Some(beta);
    for (al, p, q) in terms.into_iter().flatten() {
        let be = scale.take().unwrap_or_else(|| s.blas.real_c(1.0));
        s.blas
            .gemm(b, [o, ta, tb, m, n, k, al, p, lda, q, ldb, be, d_c, ldc]);
    }
    let (len, count) = storage(b, o, m, n);
    if let Some(beta) = scale {
        s.blas
            .ge(b, GeOp::Scale, [len, count, beta, d_c, ldc, d_c, ldc]);
    }
    if let Some(db) = db {
        s.blas.ge(b, GeOp::Add, [len, count, db, cm, ldc, d_c, ldc]);
    }
    position_after(b, c.call);
    Ok(None)
}

fn gemm_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let s = Site::augmenting(&GEMM, c)?;
    let b = &mut *c.b;
    let v = s.scalars(b, &[]);
    let (o, ta, tb) = (v["order"], v["transa"], v["transb"]);
    let (m, n, k) = (v["m"], v["n"], v["k"]);
    let out = s.shadow(&c.shadows, "C").is_some();
    let alpha = out && s.real_maybe_active(c.src, &c.shadows, "alpha");
    let beta = out && s.real_maybe_active(c.src, &c.shadows, "beta");
    // A for dB and for alpha, B for dA and for alpha, C (before the call) for beta.
    let keep_a = alpha || (out && s.shadow(&c.shadows, "B").is_some());
    let keep_b = alpha || (out && s.shadow(&c.shadows, "A").is_some());
    let (ra, ca) = stored(b, ta, m, k);
    let (rb, cb) = stored(b, tb, k, n);
    let (la, na) = storage(b, o, ra, ca);
    let (lb, nb) = storage(b, o, rb, cb);
    let (lc, nc) = storage(b, o, m, n);
    let keeps = [
        ("A", keep_a.then(|| Keep::matrix(&s, &v, "A", la, na))),
        ("B", keep_b.then(|| Keep::matrix(&s, &v, "B", lb, nb))),
        ("C", beta.then(|| Keep::matrix(&s, &v, "C", lc, nc))),
    ];
    let buf = save(b, &s, &v, &keeps);
    let call = c.primal_call();
    Ok(augmented(call, buf))
}

fn gemm_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let (s, sv) = adjoint_site(&GEMM, c)?;
    let (bl, b) = (&s.blas, &mut *c.b);
    let (a_active, b_active) = (
        s.real_active(&c.active, &c.shadows, "alpha"),
        s.real_active(&c.active, &c.shadows, "beta"),
    );
    let (d_a, d_b) = (s.shadow(&c.shadows, "A"), s.shadow(&c.shadows, "B"));
    let mut out = vec![None; c.args.len()];
    let Some(g) = s.shadow(&c.shadows, "C") else {
        if a_active || b_active || d_a.is_some() || d_b.is_some() {
            return Err(s.no_shadow(c.src));
        }
        bl.free(b, sv.buf);
        return Ok(out);
    };
    let v = sv.scalars(b, &s);
    let (o, ta, tb) = (v["order"], v["transa"], v["transb"]);
    let (m, n, k, lda, ldb, ldc) = (v["m"], v["n"], v["k"], v["lda"], v["ldb"], v["ldc"]);
    let (alpha, beta) = (v["alpha"], v["beta"]);
    // The leading dimension of contiguous m x n matrices (dC's copy, C's, the product).
    let (lc, nc) = storage(b, o, m, n);
    let ldc_s = bl.ld_of(b, lc);
    let (one, r1, r0) = (bl.int_c(1), bl.real_c(1.0), bl.real_c(0.0));
    let (no, tr) = (bl.enum_c(NO_TRANS), bl.enum_c(TRANS));
    if a_active || b_active {
        // <dC, X> for X = op(A) op(B) and X = C: both against a contiguous copy of dC.
        let (m64, n64) = (bl.size64(b, m), bl.size64(b, n));
        let mn64 = b.mul(m64, n64);
        let mn = b.mul(m, n);
        let gc = bl.scratch(b, mn64);
        bl.ge(b, GeOp::Copy, [lc, nc, r0, g, ldc, gc, ldc_s]);
        if a_active {
            let (a_s, b_s) = (sv.array(b, &s, "A"), sv.array(b, &s, "B"));
            let prod = bl.scratch(b, mn64);
            bl.gemm(
                b,
                [
                    o, ta, tb, m, n, k, r1, a_s.at, a_s.stride, b_s.at, b_s.stride, r0, prod, ldc_s,
                ],
            );
            let d = bl.dot(b, [mn, gc, one, prod, one]);
            bl.free(b, prod);
            s.give(b, &c.shadows, &mut out, "alpha", d);
        }
        if b_active {
            // C is the call's output, so always a contiguous copy (never read in place).
            let c_s = sv.array(b, &s, "C");
            let d = bl.dot(b, [mn, gc, one, c_s.at, one]);
            s.give(b, &c.shadows, &mut out, "beta", d);
        }
        bl.free(b, gc);
    }
    if let Some(d_a) = d_a {
        // op(A) = A: dA += alpha dC op(B)^T;  op(A) = A^T: dA += alpha op(B) dC^T.
        let b_s = sv.array(b, &s, "B");
        let plain = is(b, ta, NO_TRANS);
        let ftb = flip(bl, b, tb);
        let t1 = sel(b, plain, no, tb);
        let t2 = sel(b, plain, ftb, tr);
        let (d1, d2) = (sel(b, plain, m, k), sel(b, plain, k, m));
        let (p, ldp) = (sel(b, plain, g, b_s.at), sel(b, plain, ldc, b_s.stride));
        let (q, ldq) = (sel(b, plain, b_s.at, g), sel(b, plain, b_s.stride, ldc));
        // dA has A's shape: op(A) is m x k.
        let (ra, ca) = stored(b, ta, m, k);
        let (len, count) = storage(b, o, ra, ca);
        bl.add_into_matrix(b, s.shared("A"), [len, count, d_a, lda], |b, d, ld| {
            bl.gemm(b, [o, t1, t2, d1, d2, n, alpha, p, ldp, q, ldq, r1, d, ld])
        });
    }
    if let Some(d_b) = d_b {
        // op(B) = B: dB += alpha op(A)^T dC;  op(B) = B^T: dB += alpha dC^T op(A).
        let a_s = sv.array(b, &s, "A");
        let plain = is(b, tb, NO_TRANS);
        let fta = flip(bl, b, ta);
        let t1 = sel(b, plain, fta, tr);
        let t2 = sel(b, plain, no, ta);
        let (d1, d2) = (sel(b, plain, k, n), sel(b, plain, n, k));
        let (p, ldp) = (sel(b, plain, a_s.at, g), sel(b, plain, a_s.stride, ldc));
        let (q, ldq) = (sel(b, plain, g, a_s.at), sel(b, plain, ldc, a_s.stride));
        // dB has B's shape: op(B) is k x n.
        let (rb, cb) = stored(b, tb, k, n);
        let (len, count) = storage(b, o, rb, cb);
        bl.add_into_matrix(b, s.shared("B"), [len, count, d_b, ldb], |b, d, ld| {
            bl.gemm(b, [o, t1, t2, d1, d2, m, alpha, p, ldp, q, ldq, r1, d, ld])
        });
    }
    bl.ge(b, GeOp::Scale, [lc, nc, beta, g, ldc, g, ldc]);
    bl.free(b, sv.buf);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, Body};
    use crate::ir::{Builder, Module, Ty, Val};

    /// `gemm` with m = 2, n = 3, k = 2: config `[fortran, order, ta, tb, constant scalars]`
    /// (the last: alpha = 1.5 and beta = 0 as constants instead of parameters).
    fn gemm_body(b: &mut Builder, m: Module, elem: Ty, xs: &[Val], cfg: &[i64]) -> Val {
        let (fortran, order, ta, tb, konst) = (cfg[0] != 0, cfg[1], cfg[2], cfg[3], cfg[4] != 0);
        let (mm, nn, kk) = (2usize, 3usize, 2usize);
        let mut t = Body::new(b, m, elem, xs, fortran);
        let rm = order == 101;
        let alpha = if konst {
            elem.float_const(1.5)
        } else {
            t.param()
        };
        let (ar, ac) = if ta == 111 { (mm, kk) } else { (kk, mm) };
        let (br, bc) = if tb == 111 { (kk, nn) } else { (nn, kk) };
        let (a, lda, la) = t.matrix(ar, ac, rm);
        let (bm, ldb, lb) = t.matrix(br, bc, rm);
        let beta = if konst { elem.zero() } else { t.param() };
        let (c, ldc, _) = t.matrix(mm, nn, rm);
        let mut args = Vec::new();
        if !fortran {
            args.push(t.int(order));
        }
        args.extend([t.trans(ta), t.trans(tb), t.int(mm as i64), t.int(nn as i64)]);
        args.extend([
            t.int(kk as i64),
            t.real(alpha),
            a,
            t.int(lda),
            bm,
            t.int(ldb),
        ]);
        args.extend([t.real(beta), c, t.int(ldc)]);
        t.call("gemm", false, &args);
        let r = t.weigh_matrix(c, mm, nn, rm);
        t.clobber(a, la);
        t.clobber(bm, lb);
        r
    }

    #[test]
    fn gemm() {
        for (fortran, order) in [(0, 101), (0, 102), (1, 102)] {
            for ta in [111, 112] {
                for tb in [111, 112] {
                    check("gemm", 18, &[fortran, order, ta, tb, 0], gemm_body);
                }
            }
        }
        check("gemm", 16, &[0, 101, 112, 111, 1], gemm_body);
        check("gemm", 16, &[1, 102, 111, 112, 1], gemm_body);
    }
}
