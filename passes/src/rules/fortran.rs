//! flang's runtime array intrinsics, as flang-22 calls them at `-O0` (from `-O1` on it inlines
//! them as loops, which need no rule): `_FortranASumReal8` (`sum(x)` of a `real(8)` array of
//! any rank) and `_FortranADotProductReal8` (`dot_product(x, y)`), forward and reverse halves
//! side by side.
//!
//! Their arrays arrive as Fortran descriptors (the `CFI_cdesc_t` layout: the base address at
//! byte 0, the rank as a byte at byte 20, then for each dimension its lower bound, extent and
//! byte stride, three `i64`s from byte 24). An active array's shadow descriptor is its primal
//! descriptor with the shadow's base address: the derivatives take the base address from the
//! shadow and the shape from the primal, and walk it with small internal IR helpers
//! (`umbra.fortran.*`, one element after the other, column-major).
//!
//! - `sum`: linear; the tangent is the sum of the tangent array; the adjoint adds the result's
//!   adjoint to every element's.
//! - `dot_product`: the tangent is `dot(dx, y) + dot(x, dy)`; the adjoint adds `dr * y` to
//!   `dx` and `dr * x` to `dy`.
//!
//! Guarantees: the adjoint sweep reads none of the caller's memory: the augmented sweep saves
//! the shadows' base addresses, copies of the descriptors and (for `dot_product`) packed copies
//! of both vectors in one `malloc`ed buffer, which the adjoint frees; so a descriptor or an
//! array overwritten after the call does not change the derivative. `sum` with a `mask`
//! argument is refused with an error (its derivative would need the mask's descriptor).
//! Other `_FortranA*` calls (matmul, transpose, `sum(x, dim)`, array assignment at -O0) have
//! no rule: the missing-rule error names them and says that flang inlines most at -O1.
//!
//! Tests: the rule harness JIT cannot link flang's static runtime library, so these rules are
//! checked by the `-O0` runs of `test/integration/fortran/*-runtime-intrinsics.f90` (driver and
//! plugin), against finite differences.

use super::calls::{
    AdjointCall, ArgAdjoints, ArgNeeds, AugmentCall, Augmented, CustomNeeds, CustomReverse,
    ForwardCall, ForwardRule,
};
use super::rule::{Area, Effects, Reverse, Rule, RuleKind};
use crate::diag::{Error, Result};
use crate::ir::{Builder, IntPred, Module, Opcode, Ty, Val};

/// Bytes of a descriptor of the largest rank (15, `CFI_MAX_RANK`): what a saved copy reserves.
const DESC_BYTES: u64 = DIMS_AT + 15 * DIM_BYTES;
/// Where the rank byte is.
const RANK_AT: u64 = 20;
/// Where the first dimension's triple (lower bound, extent, byte stride) is.
const DIMS_AT: u64 = 24;
/// Bytes of one dimension's triple.
const DIM_BYTES: u64 = 24;

macro_rules! runtime {
    ($name:literal, [$($alias:literal),*], $fwd:expr, $rev:expr) => {
        Rule {
            name: $name,
            aliases: &[$($alias),*],
            libm_variants: false,
            area: Area::Fortran,
            kind: RuleKind::Forward($fwd as ForwardRule, Reverse::Custom(&$rev)),
            effects: Effects::READS,
        }
    };
}

/// What both reverse halves tape: only the buffer the augmented sweep saves.
const NEEDS: CustomNeeds = CustomNeeds {
    args: ArgNeeds::None,
    result: false,
    saved: true,
    shadows_only: ArgNeeds::None,
};
static SUM_REV: CustomReverse = CustomReverse {
    augment: sum_augment,
    adjoint: sum_adjoint,
    needs: NEEDS,
};
static DOT_REV: CustomReverse = CustomReverse {
    augment: dot_augment,
    adjoint: dot_adjoint,
    needs: NEEDS,
};

/// The Fortran runtime rules.
pub static RULES: &[Rule] = &[
    // Real4 would work the same way (the helpers take the element type from the call), but
    // has no execution test yet; it stays a missing-rule error until it has one.
    runtime!("_FortranASumReal8", [], sum_forward, SUM_REV),
    runtime!("_FortranADotProductReal8", [], dot_forward, DOT_REV),
];

// ----- sum(x [, dim] [, mask]): (x, source file, line, dim, mask) -----

/// `sum` with a mask is refused (both modes).
fn check_no_mask(src: Val, args: &[Val]) -> Result<()> {
    match args.get(4) {
        Some(m) if !m.is_null_constant() => Err(Error::at(
            src,
            "cannot differentiate 'sum' with a 'mask' argument in flang's runtime (_FortranASum at -O0): write the masked sum as a loop, or compile with -O1 or higher, where flang inlines it",
        )),
        _ => Ok(()),
    }
}

fn sum_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    check_no_mask(c.src, &c.args)?;
    let Some(dx) = c.tangents[0] else {
        return Ok(None);
    };
    let elem = c.src.ty();
    let m = c.b.module();
    let dbase = base_address(c.b, dx);
    let f = reduce_helper(m, elem, false);
    Ok(Some(c.b.call_function(f, &[dbase, c.args[0]])))
}

fn sum_augment(c: &mut AugmentCall) -> Result<Augmented> {
    check_no_mask(c.src, &c.args)?;
    let call = c.primal_call();
    let b = &mut *c.b;
    let ptr = Ty::ptr(b.module().context());
    let buf = malloc_saved(b, 8 + DESC_BYTES);
    let dbase = match c.shadows[0] {
        Some(dx) => base_address(b, dx),
        None => ptr.zero(),
    };
    b.store(dbase, buf, 8);
    let d = at(b, buf, 8);
    copy_descriptor(b, d, c.args[0]);
    Ok(Augmented {
        result: Some(call),
        shadow: None,
        saved: Some(buf),
    })
}

fn sum_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let buf = saved(c)?;
    let b = &mut *c.b;
    let elem = c.src.ty();
    let ptr = Ty::ptr(b.module().context());
    if let (true, Some(dr)) = (c.active[0], c.d_result) {
        let dbase = b.load(ptr, buf, 8);
        let d = at(b, buf, 8);
        let f = add_helper(b.module(), elem, false);
        b.call_function(f, &[dbase, d, dr]);
    }
    free(b, buf);
    Ok(vec![None; c.args.len()])
}

// ----- dot_product(x, y): (x, y, source file, line) -----

fn dot_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let (xd, yd) = (c.args[0], c.args[1]);
    let elem = c.src.ty();
    let f = reduce_helper(c.b.module(), elem, true);
    let b = &mut *c.b;
    let mut t: Option<Val> = None;
    if let Some(dx) = c.tangents[0] {
        let (dxb, y) = (base_address(b, dx), base_address(b, yd));
        let v = b.call_function(f, &[dxb, xd, y, yd]);
        t = Some(v);
    }
    if let Some(dy) = c.tangents[1] {
        let (x, dyb) = (base_address(b, xd), base_address(b, dy));
        let v = b.call_function(f, &[x, xd, dyb, yd]);
        t = Some(match t {
            Some(a) => b.fadd(a, v),
            None => v,
        });
    }
    Ok(t)
}

/// The saved buffer of `dot_product`: the shadows' base addresses, both descriptors, then
/// both vectors packed (n elements each).
struct DotLayout;
impl DotLayout {
    const DX: u64 = 0;
    const DY: u64 = 8;
    const XD: u64 = 16;
    const YD: u64 = 16 + DESC_BYTES;
    const PACKED: u64 = 16 + 2 * DESC_BYTES;
}

fn dot_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let call = c.primal_call();
    let (xd, yd) = (c.args[0], c.args[1]);
    let elem = c.src.ty();
    let b = &mut *c.b;
    let m = b.module();
    let (ptr, i64t) = (Ty::ptr(m.context()), Ty::int(m.context(), 64));
    // Both are rank 1 with the same extent (Fortran requires it).
    let ext_at = at(b, xd, DIMS_AT + 8);
    let n = b.load(i64t, ext_at, 8);
    let positive = b_icmp_sgt0(b, n);
    let n = b.select(positive, n, i64t.zero());
    let size = i64t.int_const(m.alloc_size(elem));
    let vec_bytes = b.mul(n, size);
    let both = b.add(vec_bytes, vec_bytes);
    let total = b.add(both, i64t.int_const(DotLayout::PACKED));
    let buf = malloc_dynamic(b, total);
    for (k, slot) in [(0, DotLayout::DX), (1, DotLayout::DY)] {
        let v = match c.shadows[k] {
            Some(s) => base_address(b, s),
            None => ptr.zero(),
        };
        let p = at(b, buf, slot);
        b.store(v, p, 8);
    }
    let (xdc, ydc) = (at(b, buf, DotLayout::XD), at(b, buf, DotLayout::YD));
    copy_descriptor(b, xdc, xd);
    copy_descriptor(b, ydc, yd);
    let pack = pack_helper(m, elem);
    let xp = at(b, buf, DotLayout::PACKED);
    let i8t = Ty::int(m.context(), 8);
    let yp = b.gep(i8t, xp, &[vec_bytes], true);
    let (x, y) = (base_address(b, xd), base_address(b, yd));
    b.call_function(pack, &[x, xd, xp]);
    b.call_function(pack, &[y, yd, yp]);
    Ok(Augmented {
        result: Some(call),
        shadow: None,
        saved: Some(buf),
    })
}

fn b_icmp_sgt0(b: &mut Builder, n: Val) -> Val {
    b.icmp(IntPred::LLVMIntSGT, n, n.ty().zero())
}

fn dot_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let buf = saved(c)?;
    let elem = c.src.ty();
    let b = &mut *c.b;
    let m = b.module();
    let (ptr, i64t, i8t) = (
        Ty::ptr(m.context()),
        Ty::int(m.context(), 64),
        Ty::int(m.context(), 8),
    );
    if let Some(dr) = c.d_result {
        let axpy = add_helper(m, elem, true);
        let xd = at(b, buf, DotLayout::XD);
        let ext_at = at(b, xd, DIMS_AT + 8);
        let n = b.load(i64t, ext_at, 8);
        let positive = b_icmp_sgt0(b, n);
        let n = b.select(positive, n, i64t.zero());
        let vec_bytes = b.mul(n, i64t.int_const(m.alloc_size(elem)));
        let xp = at(b, buf, DotLayout::PACKED);
        let yp = b.gep(i8t, xp, &[vec_bytes], true);
        // dx += dr y, dy += dr x; each shadow walked with its own descriptor.
        for (k, slot, desc, other) in [
            (0, DotLayout::DX, DotLayout::XD, yp),
            (1, DotLayout::DY, DotLayout::YD, xp),
        ] {
            if c.active[k] {
                let p = at(b, buf, slot);
                let base = b.load(ptr, p, 8);
                let d = at(b, buf, desc);
                b.call_function(axpy, &[base, d, other, dr]);
            }
        }
    }
    free(b, buf);
    Ok(vec![None; c.args.len()])
}

// ----- shared pieces -----

/// `p + off` bytes.
fn at(b: &mut Builder, p: Val, off: u64) -> Val {
    let ctx = p.ty().context();
    if off == 0 {
        return p;
    }
    b.gep(Ty::int(ctx, 8), p, &[Ty::int(ctx, 64).int_const(off)], true)
}

/// The base address a descriptor holds.
fn base_address(b: &mut Builder, desc: Val) -> Val {
    b.load(Ty::ptr(desc.ty().context()), desc, 8)
}

/// Copies descriptor `src` (as many dimensions as its rank says) to `dst`.
fn copy_descriptor(b: &mut Builder, dst: Val, src: Val) {
    let ctx = src.ty().context();
    let (i8t, i64t) = (Ty::int(ctx, 8), Ty::int(ctx, 64));
    let rank_at = at(b, src, RANK_AT);
    let rank = b.load(i8t, rank_at, 1);
    let rank = b.cast(Opcode::LLVMZExt, rank, i64t);
    let dims = b.mul(rank, i64t.int_const(DIM_BYTES));
    let len = b.add(dims, i64t.int_const(DIMS_AT));
    b.memcpy(dst, 8, src, 8, len);
}

fn malloc_dynamic(b: &mut Builder, bytes: Val) -> Val {
    let m = b.module();
    let ctx = m.context();
    let ptr = Ty::ptr(ctx);
    let malloc = m.get_or_add_function("malloc", Ty::function(ptr, &[Ty::int(ctx, 64)], false));
    let buf = b.call_function(malloc, &[bytes]);
    // The adjoint frees it; an exception unwinding through the forward sweep first does.
    let free = m.get_or_add_function("free", Ty::function(Ty::void(ctx), &[ptr], false));
    crate::tape::owned::record(b, buf, free, &[]);
    buf
}

fn malloc_saved(b: &mut Builder, bytes: u64) -> Val {
    let n = Ty::int(b.module().context(), 64).int_const(bytes);
    malloc_dynamic(b, n)
}

fn free(b: &mut Builder, p: Val) {
    let m = b.module();
    let ctx = m.context();
    let f = m.get_or_add_function("free", Ty::function(Ty::void(ctx), &[Ty::ptr(ctx)], false));
    b.call_function(f, &[p]);
}

fn saved(c: &AdjointCall) -> Result<Val> {
    c.saved.ok_or_else(|| {
        Error::internal(
            c.src,
            "the Fortran runtime rule's augmented sweep saved no buffer for its adjoint",
        )
    })
}

/// What a helper does at each element.
#[derive(Clone, Copy)]
enum Body {
    /// `acc += a[e]` (`b` absent) or `acc += a[e] * b[e']`, returned.
    Reduce { pair: bool },
    /// `out[k] = a[e]`.
    Pack,
    /// `a[e] += s` (`y` absent) or `a[e] += s * y[k]`.
    Add { with_y: bool },
}

/// `T umbra.fortran.sum.T(ptr a, ptr ad)` or `T umbra.fortran.dot.T(ptr a, ptr ad, ptr b,
/// ptr bd)`: the sum of `a`'s elements, or of the products of `a`'s and `b`'s (both walked
/// with `ad`'s shape, `b` with `bd`'s strides).
fn reduce_helper(m: Module, elem: Ty, pair: bool) -> Val {
    let name = if pair { "dot" } else { "sum" };
    helper(m, elem, name, Body::Reduce { pair })
}

/// `void umbra.fortran.pack.T(ptr a, ptr ad, ptr out)`: `a`'s elements, contiguous.
fn pack_helper(m: Module, elem: Ty) -> Val {
    helper(m, elem, "pack", Body::Pack)
}

/// `void umbra.fortran.add.T(ptr a, ptr ad, T s)` or `umbra.fortran.axpy.T(ptr a, ptr ad,
/// ptr y, T s)`: `s` (or `s * y[k]`, `y` contiguous) added to each element of `a`.
fn add_helper(m: Module, elem: Ty, with_y: bool) -> Val {
    let name = if with_y { "axpy" } else { "add" };
    helper(m, elem, name, Body::Add { with_y })
}

/// Builds (once per module and type) the helper `umbra.fortran.<name>.<elem>`: a walk over
/// every element of the array its descriptor parameter (the second) describes, flat index `k`
/// column-major, each element's byte offset summed from the dimensions' strides.
fn helper(m: Module, elem: Ty, name: &str, body: Body) -> Val {
    let full = format!("umbra.fortran.{name}.{}", elem.print());
    if let Some(f) = m.function(&full) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i8t, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 8), Ty::int(ctx, 64));
    let (ret, params): (Ty, Vec<Ty>) = match body {
        Body::Reduce { pair: false } => (elem, vec![ptr, ptr]),
        Body::Reduce { pair: true } => (elem, vec![ptr, ptr, ptr, ptr]),
        Body::Pack => (Ty::void(ctx), vec![ptr, ptr, ptr]),
        Body::Add { with_y: false } => (Ty::void(ctx), vec![ptr, ptr, elem]),
        Body::Add { with_y: true } => (Ty::void(ctx), vec![ptr, ptr, ptr, elem]),
    };
    let f = m.add_function(&full, Ty::function(ret, &params, false));
    f.set_internal();
    let ps = f.params();
    let (a, ad) = (ps[0], ps[1]);
    // The second array's descriptor, walked alongside (dot_product's y).
    let bd = match body {
        Body::Reduce { pair: true } => Some(ps[3]),
        _ => None,
    };
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let count_head = f.append_block("count");
    let count_body = f.append_block("count.dim");
    let start = f.append_block("start");
    let outer = f.append_block("element");
    let inner_head = f.append_block("offset");
    let inner_body = f.append_block("offset.dim");
    let each = f.append_block("body");
    let done = f.append_block("done");
    let (zero, one) = (i64t.zero(), i64t.int_const(1));
    let dim_field = |b: &mut Builder, desc: Val, d: Val, field: u64| {
        let off = b.mul(d, i64t.int_const(DIM_BYTES));
        let off = b.add(off, i64t.int_const(DIMS_AT + field));
        let p = b.gep(i8t, desc, &[off], true);
        b.load(i64t, p, 8)
    };

    b.position_at_end(entry);
    let acc = matches!(body, Body::Reduce { .. }).then(|| {
        let slot = b.alloca(elem, "acc");
        b.store(elem.zero(), slot, 8);
        slot
    });
    let rank_at = b.gep(i8t, ad, &[i64t.int_const(RANK_AT)], true);
    let rank = b.load(i8t, rank_at, 1);
    let rank = b.cast(Opcode::LLVMZExt, rank, i64t);
    b.br(count_head);

    // total = the product of the extents.
    b.position_at_end(count_head);
    let d = b.phi(i64t);
    let total = b.phi(i64t);
    let more = b.icmp(IntPred::LLVMIntULT, d, rank);
    b.cond_br(more, count_body, start);
    b.position_at_end(count_body);
    let ext = dim_field(&mut b, ad, d, 8);
    let total2 = b.mul(total, ext);
    let d2 = b.add(d, one);
    b.br(count_head);
    d.add_incoming(zero, entry);
    d.add_incoming(d2, count_body);
    total.add_incoming(one, entry);
    total.add_incoming(total2, count_body);

    b.position_at_end(start);
    let any = b.icmp(IntPred::LLVMIntSGT, total, zero);
    b.cond_br(any, outer, done);

    // Element k: its index in each dimension (k's mixed-radix digits), and byte offsets.
    b.position_at_end(outer);
    let k = b.phi(i64t);
    b.br(inner_head);
    b.position_at_end(inner_head);
    let d = b.phi(i64t);
    let rem = b.phi(i64t);
    let oa = b.phi(i64t);
    let ob = bd.map(|_| b.phi(i64t));
    let more = b.icmp(IntPred::LLVMIntULT, d, rank);
    b.cond_br(more, inner_body, each);
    b.position_at_end(inner_body);
    let ext = dim_field(&mut b, ad, d, 8);
    let stride = dim_field(&mut b, ad, d, 16);
    let idx = b.binop(Opcode::LLVMURem, rem, ext);
    let rem2 = b.binop(Opcode::LLVMUDiv, rem, ext);
    let step = b.mul(idx, stride);
    let oa2 = b.add(oa, step);
    let ob2 = match (bd, ob) {
        (Some(bd), Some(ob)) => {
            let sb = dim_field(&mut b, bd, d, 16);
            let step = b.mul(idx, sb);
            Some((ob, b.add(ob, step)))
        }
        _ => None,
    };
    let d2 = b.add(d, one);
    b.br(inner_head);
    d.add_incoming(zero, outer);
    d.add_incoming(d2, inner_body);
    rem.add_incoming(k, outer);
    rem.add_incoming(rem2, inner_body);
    oa.add_incoming(zero, outer);
    oa.add_incoming(oa2, inner_body);
    if let Some((ob, ob2)) = ob2 {
        ob.add_incoming(zero, outer);
        ob.add_incoming(ob2, inner_body);
    }

    b.position_at_end(each);
    let pa = b.gep(i8t, a, &[oa], true);
    match body {
        Body::Reduce { pair } => {
            let slot = acc.unwrap_or(a);
            let mut v = b.load(elem, pa, 1);
            if let (true, Some(ob)) = (pair, ob) {
                let pb = b.gep(i8t, ps[2], &[ob], true);
                let w = b.load(elem, pb, 1);
                v = b.fmul(v, w);
            }
            let s = b.load(elem, slot, 8);
            let s = b.fadd(s, v);
            b.store(s, slot, 8);
        }
        Body::Pack => {
            let v = b.load(elem, pa, 1);
            let po = b.gep(elem, ps[2], &[k], true);
            b.store(v, po, 1);
        }
        Body::Add { with_y } => {
            let s = ps[params.len() - 1];
            let add = if with_y {
                let py = b.gep(elem, ps[2], &[k], true);
                let y = b.load(elem, py, 1);
                b.fmul(s, y)
            } else {
                s
            };
            let v = b.load(elem, pa, 1);
            let v = b.fadd(v, add);
            b.store(v, pa, 1);
        }
    }
    let k2 = b.add(k, one);
    let more = b.icmp(IntPred::LLVMIntSLT, k2, total);
    b.cond_br(more, outer, done);
    k.add_incoming(zero, start);
    k.add_incoming(k2, each);

    b.position_at_end(done);
    match acc {
        Some(slot) => {
            let s = b.load(elem, slot, 8);
            b.ret(s);
        }
        None => {
            b.ret_void();
        }
    }
    f
}
