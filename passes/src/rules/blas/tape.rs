//! The buffer a BLAS rule's augmented sweep saves for its adjoint, laid out from the routine's
//! [`Signature`]: one 8-byte slot per saved scalar (flags, integers, reals, then the result if
//! kept), two per keepable array (where the adjoint reads it and its stride or leading
//! dimension; a null pointer when it is not kept), then the array copies.
//!
//! Guarantees: the augmented sweep writes and the adjoint reads the same layout, both derived
//! from the signature, so positions never have to agree by hand. The adjoint reads the
//! caller's memory only where the overwrite analysis proved an input array unchanged until
//! then ([`crate::rules::AugmentCall::in_place`]); everything else it reads from this buffer
//! (and the shadows), which it frees.

use super::emit::{Blas, GeOp};
use super::signature::RESULT;
use super::site::{Scalars, Site};
use crate::diag::{Error, Result};
use crate::ir::{Builder, Ty, Val};
use crate::rules::calls::{AdjointCall, ArgNeeds, Augmented, CustomNeeds};

/// Every BLAS rule saves one buffer and needs the shadows of its pointer arguments.
pub(super) const NEEDS: CustomNeeds = CustomNeeds {
    args: ArgNeeds::All,
    result: false,
    saved: true,
    shadows_only: ArgNeeds::None,
};

/// An input array kept for the adjoint sweep: copied, or read in place.
pub(super) enum Keep {
    /// Read where it is, with its own stride or leading dimension: the caller's memory is
    /// unchanged until the adjoint ([`Site::in_place`]).
    InPlace { a: Val, stride: Val },
    /// `n` elements of stride `inc`, copied contiguously.
    Vector { n: Val, x: Val, inc: Val },
    /// A matrix in storage form (see [`storage`](super::emit::storage)), copied with leading
    /// dimension `max(len, 1)`.
    Matrix {
        len: Val,
        count: Val,
        a: Val,
        ld: Val,
    },
}

impl Keep {
    /// `n` elements of vector `name`, with the stride its signature gives it.
    #[track_caller]
    pub fn vector(s: &Site, v: &Scalars, name: &str, n: Val) -> Keep {
        let inc = v[s.sig.stride_of(name)];
        if s.in_place(name) {
            return Keep::InPlace {
                a: s.ptr(name),
                stride: inc,
            };
        }
        Keep::Vector {
            n,
            x: s.ptr(name),
            inc,
        }
    }

    /// Matrix `name` in storage form, with the leading dimension its signature gives it.
    #[track_caller]
    pub fn matrix(s: &Site, v: &Scalars, name: &str, len: Val, count: Val) -> Keep {
        let ld = v[s.sig.stride_of(name)];
        if s.in_place(name) {
            return Keep::InPlace {
                a: s.ptr(name),
                stride: ld,
            };
        }
        Keep::Matrix {
            len,
            count,
            a: s.ptr(name),
            ld,
        }
    }

    /// The elements its copy takes in the buffer (none when read in place).
    fn elements(&self, bl: &Blas, b: &mut Builder) -> Val {
        match *self {
            Keep::InPlace { .. } => Ty::int(bl.int.context(), 64).zero(),
            Keep::Vector { n, .. } => bl.size64(b, n),
            Keep::Matrix { len, count, .. } => {
                let (l, c) = (bl.size64(b, len), bl.size64(b, count));
                b.mul(l, c)
            }
        }
    }

    /// Copies the array to `dst` (unless it is read in place); returns where the adjoint reads
    /// it and with which stride or leading dimension.
    fn fill(&self, bl: &Blas, b: &mut Builder, dst: Val) -> (Val, Val) {
        match *self {
            Keep::InPlace { a, stride } => (a, stride),
            Keep::Vector { n, x, inc } => {
                let one = bl.int_c(1);
                bl.copy(b, [n, x, inc, dst, one]);
                (dst, one)
            }
            Keep::Matrix { len, count, a, ld } => {
                let ldd = bl.ld_of(b, len);
                bl.ge(b, GeOp::Copy, [len, count, bl.real_c(0.0), a, ld, dst, ldd]);
                (dst, ldd)
            }
        }
    }
}

/// Saves `scalars` (as [`Site::scalars`] read them, plus the result if the signature keeps
/// it) and, for each keepable array of the signature, its entry in `keeps` (`None`: not
/// needed). Returns the buffer.
pub(super) fn save(
    b: &mut Builder,
    s: &Site,
    scalars: &Scalars,
    keeps: &[(&str, Option<Keep>)],
) -> Val {
    let bl = &s.blas;
    let scalars = scalars.values();
    assert_eq!(scalars.len(), s.sig.scalar_slots(), "BLAS {}", s.sig.name);
    let keeps: Vec<&Option<Keep>> = s
        .sig
        .kept_arrays()
        .map(|name| match keeps.iter().find(|(n, _)| *n == name) {
            Some((_, k)) => k,
            None => panic!("BLAS {}: no decision on keeping '{name}'", s.sig.name),
        })
        .collect();
    assert_eq!(
        keeps.len(),
        s.sig.kept_arrays().count(),
        "BLAS {}",
        s.sig.name
    );
    let i64t = Ty::int(bl.int.context(), 64);
    let i8t = Ty::int(bl.int.context(), 8);
    let mut total = i64t.int_const(8 * (scalars.len() + 2 * keeps.len()) as u64);
    let mut offsets = Vec::new();
    for k in &keeps {
        offsets.push(k.as_ref().map(|k| {
            let at = total;
            let n = k.elements(bl, b);
            let bytes = bl.bytes(b, n);
            total = b.add(total, bytes);
            at
        }));
    }
    let buf = bl.malloc(b, total);
    // The adjoint frees it; an exception unwinding through the forward sweep first does.
    let m = b.module();
    let free = m.get_or_add_function(
        "free",
        Ty::function(Ty::void(bl.int.context()), &[bl.ptr], false),
    );
    crate::tape::owned::record(b, buf, free, &[]);
    for (i, &v) in scalars.iter().enumerate() {
        let p = slot(b, buf, i);
        b.store(v, p, 8);
    }
    for (j, (k, off)) in keeps.iter().zip(offsets).enumerate() {
        let p = slot(b, buf, scalars.len() + 2 * j);
        let q = slot(b, buf, scalars.len() + 2 * j + 1);
        match (k, off) {
            (Some(k), Some(off)) => {
                let dst = b.gep(i8t, buf, &[off], true);
                let (at, stride) = k.fill(bl, b, dst);
                b.store(at, p, 8);
                b.store(stride, q, 8);
            }
            _ => {
                b.store(bl.ptr.zero(), p, 8);
                b.store(bl.int.zero(), q, 8);
            }
        }
    }
    buf
}

fn slot(b: &mut Builder, buf: Val, i: usize) -> Val {
    let i64t = Ty::int(buf.ty().context(), 64);
    b.gep(i64t, buf, &[i64t.int_const(i as u64)], true)
}

/// What the augmented sweep hands on: the primal result and the saved buffer.
pub(super) fn augmented(call: Val, buf: Val) -> Augmented {
    Augmented {
        result: (!call.ty().is_void()).then_some(call),
        shadow: None,
        saved: Some(buf),
    }
}

/// Reading the saved buffer back in the adjoint sweep.
pub(super) struct Saved {
    pub buf: Val,
}

impl Saved {
    /// The saved scalars, typed by their roles, by name (the result as [`RESULT`]).
    pub fn scalars(&self, b: &mut Builder, s: &Site) -> Scalars {
        let bl = &s.blas;
        let mut out = Scalars::default();
        let mut i = 0;
        let mut read = |b: &mut Builder, name: &'static str, ty: Ty| {
            let p = slot(b, self.buf, i);
            i += 1;
            out.push(name, b.load(ty, p, 8));
        };
        for p in s.sig.saved_scalars() {
            read(b, p.name, bl.cblas_ty(p.role));
        }
        if s.sig.result_kept {
            read(b, RESULT, bl.elem);
        }
        out
    }

    /// Keepable array `name` as the augmented sweep kept it (a null pointer when it did
    /// not).
    #[track_caller]
    pub fn array(&self, b: &mut Builder, s: &Site, name: &str) -> Kept {
        let j = s.sig.kept_arrays().position(|n| n == name);
        let j = j.unwrap_or_else(|| panic!("BLAS {}: '{name}' is never kept", s.sig.name));
        let p = slot(b, self.buf, s.sig.scalar_slots() + 2 * j);
        let q = slot(b, self.buf, s.sig.scalar_slots() + 2 * j + 1);
        Kept {
            at: b.load(s.blas.ptr, p, 8),
            stride: b.load(s.blas.int, q, 8),
        }
    }
}

/// An input array as the adjoint reads it: a contiguous copy (stride 1, or a matrix's
/// leading dimension the length of its stored rows or columns), or the array itself with its
/// own stride or leading dimension.
#[derive(Clone, Copy)]
pub(super) struct Kept {
    pub at: Val,
    pub stride: Val,
}

/// The adjoint's view of its call: the site and the saved buffer.
pub(super) fn adjoint_site(
    sig: &'static super::signature::Signature,
    c: &AdjointCall,
) -> Result<(Site, Saved)> {
    let s = Site::adjoining(sig, c)?;
    let buf = c.saved.ok_or_else(|| missing_saved(c.src))?;
    Ok((s, Saved { buf }))
}

fn missing_saved(src: Val) -> Error {
    Error::internal(
        src,
        "the BLAS rule's augmented sweep saved no buffer for its adjoint",
    )
}
