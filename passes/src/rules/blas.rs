//! BLAS rules: `dot`, `nrm2`, `axpy`, `scal`, `copy` (level 1), `gemv`, `ger` (level 2) and
//! `gemm` (level 3), in single and double precision, through both the CBLAS interface
//! (`cblas_dgemm(order, transA, ...)`, scalars by value) and the Fortran one (`dgemm_`, every
//! argument by pointer, column-major, transposes as characters).
//!
//! Guarantees:
//! - Derivatives are computed with BLAS calls (never element loops in the caller), on the
//!   caller's storage order, transposes, leading dimensions and strides, negative strides
//!   included (BLAS itself walks them). Every routine the derivative code calls has a rule
//!   here, so derivative code can be differentiated again (forward over reverse).
//! - Missing shadows are zero tangents: their terms are skipped. Derivatives flowing into an
//!   output without a shadow are a compile-time error naming the callee.
//! - Reverse mode never reads the caller's memory in the adjoint sweep: the augmented sweep
//!   saves, in one `malloc`'d buffer, every scalar argument and a contiguous copy of each input
//!   array the adjoint will need (taken before the call when the call overwrites it); the
//!   adjoint frees it. Which copies are taken is decided from shadows and from whether a scalar
//!   argument is a constant, a superset of what the adjoint (which knows exact activity) uses.
//!
//! Emitted calls always use CBLAS (`cblas_d*`/`cblas_s*`) with `i32` enums and the integer
//! type of the user's call (`i32` for Fortran calls, which pass `int *`), declared as clang-22
//! declares them from `cblas.h`. Strided matrix operations the BLAS lacks (copy, add, scale
//! with a leading dimension) are small internal helpers `umbra.blas.<p>ge<op>.i<bits>` that
//! loop over columns calling BLAS level 1.
//!
//! Limitations: BLAS's aliasing rules are assumed (outputs overlap no input); products of
//! dimensions (`m * n` for temporaries) are computed in the BLAS integer type.

use super::{
    AdjointCall, Area, ArgAdjoints, ArgNeeds, AugmentCall, Augmented, CustomNeeds, CustomReverse,
    Effects, ForwardCall, ForwardRule, Reverse, Rule, RuleKind,
};
use crate::diag::{Error, Result};
use crate::ir::{Builder, IntPred, Module, Opcode, RealPred, Ty, Val};

macro_rules! blas {
    ($name:literal, [$($alias:literal),*], $fwd:expr, $rev:expr, $effects:expr) => {
        Rule {
            name: $name,
            aliases: &[$($alias),*],
            libm_variants: false,
            area: Area::Blas,
            kind: RuleKind::Forward($fwd as ForwardRule, Reverse::Custom($rev)),
            effects: $effects,
        }
    };
}

/// Every BLAS rule saves one buffer and needs the shadows of its pointer arguments.
const NEEDS: CustomNeeds = CustomNeeds {
    args: ArgNeeds::All,
    result: false,
    saved: true,
};

macro_rules! custom {
    ($static:ident, $augment:ident, $adjoint:ident) => {
        static $static: CustomReverse = CustomReverse {
            augment: $augment,
            adjoint: $adjoint,
            needs: NEEDS,
        };
    };
}

custom!(DOT, dot_augment, dot_adjoint);
custom!(NRM2, nrm2_augment, nrm2_adjoint);
custom!(AXPY, axpy_augment, axpy_adjoint);
custom!(SCAL, scal_augment, scal_adjoint);
custom!(COPY, copy_augment, copy_adjoint);
custom!(GEMV, gemv_augment, gemv_adjoint);
custom!(GER, ger_augment, ger_adjoint);
custom!(GEMM, gemm_augment, gemm_adjoint);

/// Every BLAS rule.
pub static RULES: &[Rule] = &[
    blas!(
        "cblas_ddot",
        ["cblas_sdot", "ddot_", "sdot_"],
        dot_forward,
        &DOT,
        Effects::READS
    ),
    blas!(
        "cblas_dnrm2",
        ["cblas_snrm2", "dnrm2_", "snrm2_"],
        nrm2_forward,
        &NRM2,
        Effects::READS
    ),
    blas!(
        "cblas_daxpy",
        ["cblas_saxpy", "daxpy_", "saxpy_"],
        axpy_forward,
        &AXPY,
        Effects::READS_WRITES
    ),
    blas!(
        "cblas_dscal",
        ["cblas_sscal", "dscal_", "sscal_"],
        scal_forward,
        &SCAL,
        Effects::READS_WRITES
    ),
    blas!(
        "cblas_dcopy",
        ["cblas_scopy", "dcopy_", "scopy_"],
        copy_forward,
        &COPY,
        Effects::READS_WRITES
    ),
    blas!(
        "cblas_dgemv",
        ["cblas_sgemv", "dgemv_", "sgemv_"],
        gemv_forward,
        &GEMV,
        Effects::READS_WRITES
    ),
    blas!(
        "cblas_dger",
        ["cblas_sger", "dger_", "sger_"],
        ger_forward,
        &GER,
        Effects::READS_WRITES
    ),
    blas!(
        "cblas_dgemm",
        ["cblas_sgemm", "dgemm_", "sgemm_"],
        gemm_forward,
        &GEMM,
        Effects::READS_WRITES
    ),
];

// ----- CBLAS constants -----

const ROW_MAJOR: u64 = 101;
const COL_MAJOR: u64 = 102;
const NO_TRANS: u64 = 111;
const TRANS: u64 = 112;

// ----- call sites: convention, precision, arguments -----

/// A BLAS call site: which interface it uses and how to read its arguments. Argument indices
/// are always given in CBLAS positions; Fortran level-2/3 routines have no order argument, so
/// their indices are one less.
struct Site {
    fortran: bool,
    has_order: bool,
    args: Vec<Val>,
    blas: Blas,
}

impl Site {
    /// `int_at` is the CBLAS position of an integer argument (its type is the BLAS integer).
    fn new(module: Module, src: Val, args: &[Val], has_order: bool, int_at: usize) -> Site {
        let name = src.called_function().map(|f| f.name()).unwrap_or_default();
        let fortran = !name.starts_with("cblas_");
        let single = name.trim_start_matches("cblas_").starts_with('s');
        let ctx = module.context();
        let int = if fortran {
            Ty::int(ctx, 32)
        } else {
            args[int_at].ty()
        };
        Site {
            fortran,
            has_order,
            args: args.to_vec(),
            blas: Blas::new(module, single, int, name),
        }
    }

    fn ix(&self, k: usize) -> usize {
        if self.fortran && self.has_order {
            k - 1
        } else {
            k
        }
    }

    fn ptr(&self, k: usize) -> Val {
        self.args[self.ix(k)]
    }

    fn int(&self, b: &mut Builder, k: usize) -> Val {
        let a = self.ptr(k);
        if self.fortran {
            b.load(self.blas.int, a, 4)
        } else {
            b.sext_or_trunc(a, self.blas.int)
        }
    }

    fn real(&self, b: &mut Builder, k: usize) -> Val {
        let a = self.ptr(k);
        if self.fortran {
            b.load(self.blas.elem, a, 0)
        } else {
            a
        }
    }

    /// The storage order as a CBLAS enum (Fortran is column-major).
    fn order(&self, b: &mut Builder) -> Val {
        if self.fortran {
            self.blas.enum_c(COL_MAJOR)
        } else {
            b.sext_or_trunc(self.args[0], self.blas.i32t)
        }
    }

    /// A transpose flag as a CBLAS enum; Fortran's `'N'`/`'n'` mean no transpose, anything
    /// else (`'T'`, `'C'`) a transpose (the same thing for real matrices).
    fn trans(&self, b: &mut Builder, k: usize) -> Val {
        if !self.fortran {
            return b.sext_or_trunc(self.args[k], self.blas.i32t);
        }
        let i8t = Ty::int(self.blas.i32t.context(), 8);
        let ch = b.load(i8t, self.ptr(k), 1);
        let upper = b.icmp(IntPred::LLVMIntEQ, ch, i8t.int_const(b'N' as u64));
        let lower = b.icmp(IntPred::LLVMIntEQ, ch, i8t.int_const(b'n' as u64));
        let plain = b.binop(Opcode::LLVMOr, upper, lower);
        let (n, t) = (self.blas.enum_c(NO_TRANS), self.blas.enum_c(TRANS));
        b.select(plain, n, t)
    }

    /// The shadow (or tangent) of argument `k` in `shadows`.
    fn shadow(&self, shadows: &[Option<Val>], k: usize) -> Option<Val> {
        shadows.get(self.ix(k)).copied().flatten()
    }

    /// The tangent of scalar `k`: by value (CBLAS) or read from its shadow (Fortran).
    fn real_tangent(&self, b: &mut Builder, tangents: &[Option<Val>], k: usize) -> Option<Val> {
        let t = self.shadow(tangents, k)?;
        Some(if self.fortran {
            b.load(self.blas.elem, t, 0)
        } else {
            t
        })
    }

    /// Whether scalar `k` may carry a derivative, as the augmented sweep can tell: a constant
    /// never does. The adjoint's exact activity implies this, so what it uses was saved.
    fn real_maybe_active(&self, src: Val, shadows: &[Option<Val>], k: usize) -> bool {
        if self.fortran {
            self.shadow(shadows, k).is_some()
        } else {
            !src.call_args()[k].is_constant()
        }
    }

    /// Whether scalar `k` carries a derivative (adjoint sweep).
    fn real_active(&self, active: &[bool], shadows: &[Option<Val>], k: usize) -> bool {
        if self.fortran {
            self.shadow(shadows, k).is_some()
        } else {
            active[k]
        }
    }

    /// Hands the adjoint `d` of scalar `k` back: returned (CBLAS) or added to its shadow.
    fn give(
        &self,
        b: &mut Builder,
        shadows: &[Option<Val>],
        out: &mut ArgAdjoints,
        k: usize,
        d: Val,
    ) {
        if !self.fortran {
            out[k] = Some(d);
        } else if let Some(s) = self.shadow(shadows, k) {
            let old = b.load(self.blas.elem, s, 0);
            let new = b.fadd(old, d);
            b.store(new, s, 0);
        }
    }

    /// The error for derivatives flowing into output `what`, which has no shadow.
    fn no_shadow(&self, src: Val, what: &str) -> Error {
        Error::at(
            src,
            format!(
                "'{}' writes values with derivatives into '{what}', which has no shadow (a constant argument or global); pass it as dup",
                self.blas.callee
            ),
        )
    }
}

fn missing_saved(src: Val) -> Error {
    Error::at(
        src,
        "internal error: the BLAS rule's augmented sweep saved no buffer for its adjoint",
    )
}

// ----- emitting BLAS calls -----

/// Emits CBLAS calls of one precision and integer type, and the strided-matrix helpers.
struct Blas {
    m: Module,
    elem: Ty,
    int: Ty,
    i32t: Ty,
    ptr: Ty,
    /// `d` or `s`.
    p: char,
    /// The user's callee, for messages.
    callee: String,
}

/// A column-wise matrix operation the BLAS has no routine for.
#[derive(Clone, Copy)]
enum GeOp {
    /// `dst[:, j] = src[:, j]`
    Copy,
    /// `dst[:, j] += alpha * src[:, j]`
    Add,
    /// `dst[:, j] *= alpha` (`src` unused)
    Scale,
}

impl Blas {
    fn new(m: Module, single: bool, int: Ty, callee: String) -> Blas {
        let ctx = int.context();
        let elem = if single {
            // SAFETY: a type query on a live context.
            Ty(unsafe { crate::ir::sys::core::LLVMFloatTypeInContext(ctx) })
        } else {
            Ty::double(ctx)
        };
        Blas {
            m,
            elem,
            int,
            i32t: Ty::int(ctx, 32),
            ptr: Ty::ptr(ctx),
            p: if single { 's' } else { 'd' },
            callee,
        }
    }

    fn enum_c(&self, v: u64) -> Val {
        self.i32t.int_const(v)
    }
    fn int_c(&self, v: i64) -> Val {
        self.int.int_const(v as u64)
    }
    fn real_c(&self, v: f64) -> Val {
        self.elem.float_const(v)
    }
    fn esize(&self) -> u64 {
        if self.p == 's' {
            4
        } else {
            8
        }
    }

    /// Calls `cblas_<p><name>`; `sig` gives each parameter's kind: `E` enum (`i32`), `I`
    /// integer, `R` real, `P` pointer.
    fn call(&self, b: &mut Builder, name: &str, sig: &str, real_ret: bool, args: &[Val]) -> Val {
        let params: Vec<Ty> = sig
            .bytes()
            .map(|k| match k {
                b'E' => self.i32t,
                b'I' => self.int,
                b'R' => self.elem,
                _ => self.ptr,
            })
            .collect();
        let ret = if real_ret {
            self.elem
        } else {
            Ty::void(self.int.context())
        };
        let fty = Ty::function(ret, &params, false);
        let f = self
            .m
            .get_or_add_function(&format!("cblas_{}{name}", self.p), fty);
        // Called through our own type: a user declaration with another prototype stays valid.
        b.call(fty, f, args)
    }

    fn dot(&self, b: &mut Builder, a: [Val; 5]) -> Val {
        self.call(b, "dot", "IPIPI", true, &a)
    }
    fn axpy(&self, b: &mut Builder, a: [Val; 6]) {
        self.call(b, "axpy", "IRPIPI", false, &a);
    }
    /// `scal` with the stride's magnitude: the BLAS ignore a scaling with a negative stride,
    /// and scaling touches the same elements whichever way they are walked.
    fn scal(&self, b: &mut Builder, [n, a, x, inc]: [Val; 4]) {
        let neg = b.icmp(IntPred::LLVMIntSLT, inc, self.int.zero());
        let minus = b.sub(self.int.zero(), inc);
        let inc = b.select(neg, minus, inc);
        self.call(b, "scal", "IRPI", false, &[n, a, x, inc]);
    }
    fn copy(&self, b: &mut Builder, a: [Val; 5]) {
        self.call(b, "copy", "IPIPI", false, &a);
    }
    fn gemv(&self, b: &mut Builder, a: [Val; 12]) {
        self.call(b, "gemv", "EEIIRPIPIRPI", false, &a);
    }
    fn ger(&self, b: &mut Builder, a: [Val; 10]) {
        self.call(b, "ger", "EIIRPIPIPI", false, &a);
    }
    fn gemm(&self, b: &mut Builder, a: [Val; 14]) {
        self.call(b, "gemm", "EEEIIIRPIPIRPI", false, &a);
    }

    /// `v := 0` for `n` elements of stride `inc`: a copy from a constant zero with stride 0
    /// (`scal` by zero would keep NaNs in some BLAS versions).
    fn zero(&self, b: &mut Builder, n: Val, v: Val, inc: Val) {
        let name = format!("umbra.blas.zero.{}", self.p);
        let g = self.m.global(&name).unwrap_or_else(|| {
            let g = self.m.add_global(self.elem, &name);
            g.set_initializer(self.elem.zero());
            g.set_global_constant(true);
            g.set_internal();
            g
        });
        self.copy(b, [n, g, self.int_c(0), v, inc]);
    }

    /// `op` on `count` vectors of `len` elements, `lds`/`ldd` apart (a matrix's columns in
    /// column-major order, its rows in row-major): `[len, count, alpha, src, lds, dst, ldd]`.
    fn ge(&self, b: &mut Builder, op: GeOp, a: [Val; 7]) {
        let f = self.ge_helper(op);
        b.call_function(f, &a);
    }

    fn ge_helper(&self, op: GeOp) -> Val {
        let tag = match op {
            GeOp::Copy => "copy",
            GeOp::Add => "add",
            GeOp::Scale => "scale",
        };
        let name = format!("umbra.blas.{}ge{tag}.i{}", self.p, self.int.int_width());
        if let Some(f) = self.m.function(&name) {
            return f;
        }
        let ctx = self.int.context();
        let (int, ptr) = (self.int, self.ptr);
        let fty = Ty::function(
            Ty::void(ctx),
            &[int, int, self.elem, ptr, int, ptr, int],
            false,
        );
        let f = self.m.add_function(&name, fty);
        f.set_internal();
        let p = f.params();
        let (len, count, alpha, src, lds, dst, ldd) = (p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
        let (entry, body, exit) = (
            f.append_block("entry"),
            f.append_block("column"),
            f.append_block("exit"),
        );
        let mut b = Builder::new(self.m);
        b.position_at_end(entry);
        let any = b.icmp(IntPred::LLVMIntSGT, count, int.zero());
        b.cond_br(any, body, exit);
        b.position_at_end(body);
        let j = b.phi(int);
        j.add_incoming(int.zero(), entry);
        let i64t = Ty::int(ctx, 64);
        let j64 = b.sext_or_trunc(j, i64t);
        let column = |b: &mut Builder, base: Val, ld: Val| {
            let ld64 = b.sext_or_trunc(ld, i64t);
            let off = b.mul(j64, ld64);
            b.gep(self.elem, base, &[off], false)
        };
        let s = column(&mut b, src, lds);
        let d = column(&mut b, dst, ldd);
        let one = self.int_c(1);
        match op {
            GeOp::Copy => self.copy(&mut b, [len, s, one, d, one]),
            GeOp::Add => self.axpy(&mut b, [len, alpha, s, one, d, one]),
            GeOp::Scale => self.scal(&mut b, [len, alpha, d, one]),
        }
        let next = b.add(j, one);
        j.add_incoming(next, body);
        let more = b.icmp(IntPred::LLVMIntSLT, next, count);
        b.cond_br(more, body, exit);
        b.position_at_end(exit);
        b.ret_void();
        f
    }

    fn malloc(&self, b: &mut Builder, bytes: Val) -> Val {
        let i64t = Ty::int(self.int.context(), 64);
        let fty = Ty::function(self.ptr, &[i64t], false);
        let f = self.m.get_or_add_function("malloc", fty);
        b.call(fty, f, &[bytes])
    }
    fn free(&self, b: &mut Builder, p: Val) {
        let fty = Ty::function(Ty::void(self.int.context()), &[self.ptr], false);
        let f = self.m.get_or_add_function("free", fty);
        b.call(fty, f, &[p]);
    }
    /// A scratch array of `elements` (an `i64`) reals.
    fn scratch(&self, b: &mut Builder, elements: Val) -> Val {
        let bytes = self.bytes(b, elements);
        self.malloc(b, bytes)
    }
    /// `elements` reals in bytes, rounded up to 8 so saved arrays stay 8-byte aligned.
    fn bytes(&self, b: &mut Builder, elements: Val) -> Val {
        let i64t = Ty::int(self.int.context(), 64);
        let raw = b.mul(elements, i64t.int_const(self.esize()));
        let up = b.add(raw, i64t.int_const(7));
        b.binop(Opcode::LLVMAnd, up, i64t.int_const(!7u64))
    }
    /// `max(v, 0)` as an `i64` (BLAS treats non-positive sizes as empty).
    fn size64(&self, b: &mut Builder, v: Val) -> Val {
        let i64t = Ty::int(self.int.context(), 64);
        let w = b.sext_or_trunc(v, i64t);
        let pos = b.icmp(IntPred::LLVMIntSGT, w, i64t.zero());
        b.select(pos, w, i64t.zero())
    }
    /// `max(v, 1)`: a valid leading dimension for a contiguous copy.
    fn ld_of(&self, b: &mut Builder, len: Val) -> Val {
        let one = self.int_c(1);
        let big = b.icmp(IntPred::LLVMIntSGT, len, one);
        b.select(big, len, one)
    }
}

// ----- small IR helpers -----

fn sel(b: &mut Builder, cond: Val, a: Val, c: Val) -> Val {
    b.select(cond, a, c)
}

fn is(b: &mut Builder, v: Val, code: u64) -> Val {
    b.icmp(IntPred::LLVMIntEQ, v, v.ty().int_const(code))
}

/// The other transpose flag.
fn flip(bl: &Blas, b: &mut Builder, t: Val) -> Val {
    let plain = is(b, t, NO_TRANS);
    sel(b, plain, bl.enum_c(TRANS), bl.enum_c(NO_TRANS))
}

/// How a `rows x cols` matrix of storage order `o` lies in memory: `(len, count)`, `count`
/// vectors of `len` contiguous elements, a leading dimension apart.
fn storage(b: &mut Builder, o: Val, rows: Val, cols: Val) -> (Val, Val) {
    let row = is(b, o, ROW_MAJOR);
    (sel(b, row, cols, rows), sel(b, row, rows, cols))
}

/// Emits after `inst` from now on (forward rules that wrote code before the primal call).
fn position_after(b: &mut Builder, inst: Val) {
    let block = inst.parent_block();
    let insts = block.instructions();
    match insts
        .iter()
        .position(|&i| i == inst)
        .and_then(|p| insts.get(p + 1))
    {
        Some(&next) => b.position_before(next),
        None => b.position_at_end(block),
    }
}

/// `acc + v` with `None` as zero.
fn plus(b: &mut Builder, acc: Option<Val>, v: Val) -> Option<Val> {
    Some(match acc {
        Some(a) => b.fadd(a, v),
        None => v,
    })
}

/// `x / r`, zero where `r` is zero (the norm's derivative at the origin is taken as zero).
fn over_norm(b: &mut Builder, x: Val, r: Val) -> Val {
    let q = b.fdiv(x, r);
    let zero = r.ty().zero();
    let at_zero = b.fcmp(RealPred::LLVMRealOEQ, r, zero);
    b.select(at_zero, zero, q)
}

// ----- the buffer saved for the adjoint -----

/// An input array copied for the adjoint sweep.
enum Keep {
    /// `n` elements of stride `inc`, copied contiguously.
    Vector { n: Val, x: Val, inc: Val },
    /// A matrix in storage form (see [`storage`]), copied with leading dimension `max(len, 1)`.
    Matrix {
        len: Val,
        count: Val,
        a: Val,
        ld: Val,
    },
}

impl Keep {
    fn elements(&self, bl: &Blas, b: &mut Builder) -> Val {
        match *self {
            Keep::Vector { n, .. } => bl.size64(b, n),
            Keep::Matrix { len, count, .. } => {
                let (l, c) = (bl.size64(b, len), bl.size64(b, count));
                b.mul(l, c)
            }
        }
    }
    fn fill(&self, bl: &Blas, b: &mut Builder, dst: Val) {
        match *self {
            Keep::Vector { n, x, inc } => bl.copy(b, [n, x, inc, dst, bl.int_c(1)]),
            Keep::Matrix { len, count, a, ld } => {
                let ldd = bl.ld_of(b, len);
                bl.ge(b, GeOp::Copy, [len, count, bl.real_c(0.0), a, ld, dst, ldd]);
            }
        }
    }
}

/// The saved buffer: one 8-byte slot per scalar, one per kept array (a pointer into the
/// buffer, or null), then the arrays.
fn save(b: &mut Builder, bl: &Blas, scalars: &[Val], keeps: &[Option<Keep>]) -> Val {
    let i64t = Ty::int(bl.int.context(), 64);
    let i8t = Ty::int(bl.int.context(), 8);
    let mut total = i64t.int_const(8 * (scalars.len() + keeps.len()) as u64);
    let mut offsets = Vec::new();
    for k in keeps {
        offsets.push(k.as_ref().map(|k| {
            let at = total;
            let n = k.elements(bl, b);
            let bytes = bl.bytes(b, n);
            total = b.add(total, bytes);
            at
        }));
    }
    let buf = bl.malloc(b, total);
    for (i, &v) in scalars.iter().enumerate() {
        let p = slot(b, buf, i);
        b.store(v, p, 8);
    }
    for (j, (k, off)) in keeps.iter().zip(offsets).enumerate() {
        let p = slot(b, buf, scalars.len() + j);
        match (k, off) {
            (Some(k), Some(off)) => {
                let dst = b.gep(i8t, buf, &[off], true);
                b.store(dst, p, 8);
                k.fill(bl, b, dst);
            }
            _ => {
                b.store(bl.ptr.zero(), p, 8);
            }
        }
    }
    buf
}

fn slot(b: &mut Builder, buf: Val, i: usize) -> Val {
    let i64t = Ty::int(buf.ty().context(), 64);
    b.gep(i64t, buf, &[i64t.int_const(i as u64)], true)
}

/// Reading the saved buffer back in the adjoint sweep.
struct Saved {
    buf: Val,
    scalars: usize,
}

impl Saved {
    /// The scalars, typed by `sig` (`E` enum, `I` integer, `R` real), as saved.
    fn scalars<const N: usize>(&self, b: &mut Builder, bl: &Blas, sig: &[u8; N]) -> [Val; N] {
        std::array::from_fn(|i| {
            let ty = match sig[i] {
                b'E' => bl.i32t,
                b'I' => bl.int,
                _ => bl.elem,
            };
            let p = slot(b, self.buf, i);
            b.load(ty, p, 8)
        })
    }
    /// Kept array `j`.
    fn array(&self, b: &mut Builder, bl: &Blas, j: usize) -> Val {
        let p = slot(b, self.buf, self.scalars + j);
        b.load(bl.ptr, p, 8)
    }
}

/// The adjoint's view of its call: the site and the saved buffer.
fn adjoint_site(
    c: &AdjointCall,
    has_order: bool,
    int_at: usize,
    scalars: usize,
) -> Result<(Site, Saved)> {
    let s = Site::new(c.b.module(), c.src, &c.args, has_order, int_at);
    let buf = c.saved.ok_or_else(|| missing_saved(c.src))?;
    Ok((s, Saved { buf, scalars }))
}

fn augmented(call: Val, buf: Val) -> Augmented {
    Augmented {
        result: (!call.ty().is_void()).then_some(call),
        shadow: None,
        saved: Some(buf),
    }
}

// ----- dot: r = x . y  (n0 x1 incx2 y3 incy4) -----

fn dot_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let s = Site::new(c.b.module(), c.src, &c.args, false, 0);
    let b = &mut *c.b;
    let [n, incx, incy] = [s.int(b, 0), s.int(b, 2), s.int(b, 4)];
    let (x, y) = (s.ptr(1), s.ptr(3));
    let mut acc = None;
    if let Some(dx) = s.shadow(&c.tangents, 1) {
        let t = s.blas.dot(b, [n, dx, incx, y, incy]);
        acc = plus(b, acc, t);
    }
    if let Some(dy) = s.shadow(&c.tangents, 3) {
        let t = s.blas.dot(b, [n, x, incx, dy, incy]);
        acc = plus(b, acc, t);
    }
    Ok(acc)
}

fn dot_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let s = Site::new(c.b.module(), c.src, &c.args, false, 0);
    let b = &mut *c.b;
    let [n, incx, incy] = [s.int(b, 0), s.int(b, 2), s.int(b, 4)];
    let (x, y) = (s.ptr(1), s.ptr(3));
    let keeps = [
        s.shadow(&c.shadows, 3)
            .map(|_| Keep::Vector { n, x, inc: incx }),
        s.shadow(&c.shadows, 1)
            .map(|_| Keep::Vector { n, x: y, inc: incy }),
    ];
    let buf = save(b, &s.blas, &[n, incx, incy], &keeps);
    let call = c.primal_call();
    Ok(augmented(call, buf))
}

fn dot_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let (s, sv) = adjoint_site(c, false, 0, 3)?;
    let (bl, b) = (&s.blas, &mut *c.b);
    if let Some(dr) = c.d_result {
        let [n, incx, incy] = sv.scalars(b, bl, b"III");
        let one = bl.int_c(1);
        if let Some(dx) = s.shadow(&c.shadows, 1) {
            let ys = sv.array(b, bl, 1);
            bl.axpy(b, [n, dr, ys, one, dx, incx]);
        }
        if let Some(dy) = s.shadow(&c.shadows, 3) {
            let xs = sv.array(b, bl, 0);
            bl.axpy(b, [n, dr, xs, one, dy, incy]);
        }
    }
    bl.free(b, sv.buf);
    Ok(Vec::new())
}

// ----- nrm2: r = ||x||  (n0 x1 incx2) -----

fn nrm2_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let s = Site::new(c.b.module(), c.src, &c.args, false, 0);
    let Some(dx) = s.shadow(&c.tangents, 1) else {
        return Ok(None);
    };
    let b = &mut *c.b;
    let [n, incx] = [s.int(b, 0), s.int(b, 2)];
    let d = s.blas.dot(b, [n, s.ptr(1), incx, dx, incx]);
    Ok(Some(over_norm(b, d, c.call)))
}

fn nrm2_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let s = Site::new(c.b.module(), c.src, &c.args, false, 0);
    let call = c.primal_call();
    let b = &mut *c.b;
    let [n, incx] = [s.int(b, 0), s.int(b, 2)];
    let keep = s.shadow(&c.shadows, 1).map(|_| Keep::Vector {
        n,
        x: s.ptr(1),
        inc: incx,
    });
    let buf = save(b, &s.blas, &[n, incx, call], &[keep]);
    Ok(augmented(call, buf))
}

fn nrm2_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let (s, sv) = adjoint_site(c, false, 0, 3)?;
    let (bl, b) = (&s.blas, &mut *c.b);
    if let (Some(dr), Some(dx)) = (c.d_result, s.shadow(&c.shadows, 1)) {
        let [n, incx, r] = sv.scalars(b, bl, b"IIR");
        let q = over_norm(b, dr, r);
        let xs = sv.array(b, bl, 0);
        bl.axpy(b, [n, q, xs, bl.int_c(1), dx, incx]);
    }
    bl.free(b, sv.buf);
    Ok(Vec::new())
}

// ----- axpy: y += a x  (n0 a1 x2 incx3 y4 incy5) -----

fn axpy_scalars(s: &Site, b: &mut Builder) -> [Val; 4] {
    [s.int(b, 0), s.int(b, 3), s.int(b, 5), s.real(b, 1)]
}

fn axpy_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let s = Site::new(c.b.module(), c.src, &c.args, false, 0);
    let b = &mut *c.b;
    let da = s.real_tangent(b, &c.tangents, 1);
    let dx = s.shadow(&c.tangents, 2);
    let Some(dy) = s.shadow(&c.tangents, 4) else {
        return match da.is_some() || dx.is_some() {
            true => Err(s.no_shadow(c.src, "y")),
            false => Ok(None),
        };
    };
    let [n, incx, incy, a] = axpy_scalars(&s, b);
    if let Some(dx) = dx {
        s.blas.axpy(b, [n, a, dx, incx, dy, incy]);
    }
    if let Some(da) = da {
        s.blas.axpy(b, [n, da, s.ptr(2), incx, dy, incy]);
    }
    Ok(None)
}

fn axpy_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let s = Site::new(c.b.module(), c.src, &c.args, false, 0);
    let b = &mut *c.b;
    let v = axpy_scalars(&s, b);
    let [n, incx, ..] = v;
    let need_x = s.shadow(&c.shadows, 4).is_some() && s.real_maybe_active(c.src, &c.shadows, 1);
    let keep = need_x.then(|| Keep::Vector {
        n,
        x: s.ptr(2),
        inc: incx,
    });
    let buf = save(b, &s.blas, &v, &[keep]);
    let call = c.primal_call();
    Ok(augmented(call, buf))
}

fn axpy_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let (s, sv) = adjoint_site(c, false, 0, 4)?;
    let (bl, b) = (&s.blas, &mut *c.b);
    let a_active = s.real_active(&c.active, &c.shadows, 1);
    let dx = s.shadow(&c.shadows, 2);
    let mut out = vec![None; c.args.len()];
    match s.shadow(&c.shadows, 4) {
        None if a_active || dx.is_some() => return Err(s.no_shadow(c.src, "y")),
        None => {}
        Some(dy) => {
            let [n, incx, incy, a] = sv.scalars(b, bl, b"IIIR");
            if a_active {
                let xs = sv.array(b, bl, 0);
                let da = bl.dot(b, [n, xs, bl.int_c(1), dy, incy]);
                s.give(b, &c.shadows, &mut out, 1, da);
            }
            if let Some(dx) = dx {
                bl.axpy(b, [n, a, dy, incy, dx, incx]);
            }
        }
    }
    bl.free(b, sv.buf);
    Ok(out)
}

// ----- scal: x = a x  (n0 a1 x2 incx3) -----

/// The number of elements `scal` scales: none for a non-positive stride (the BLAS then do
/// nothing), so neither do its derivatives.
fn scal_len(s: &Site, b: &mut Builder) -> Val {
    let (n, inc) = (s.int(b, 0), s.int(b, 3));
    let forward = b.icmp(IntPred::LLVMIntSGT, inc, s.blas.int.zero());
    b.select(forward, n, s.blas.int.zero())
}

fn scal_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let s = Site::new(c.b.module(), c.src, &c.args, false, 0);
    let Some(dx) = s.shadow(&c.tangents, 2) else {
        return match s.shadow(&c.tangents, 1) {
            Some(_) => Err(s.no_shadow(c.src, "x")),
            None => Ok(None),
        };
    };
    // dx = a dx + da x reads x before the call overwrites it.
    let b = &mut *c.b;
    b.position_before(c.call);
    let da = s.real_tangent(b, &c.tangents, 1);
    let [n, a, incx] = [scal_len(&s, b), s.real(b, 1), s.int(b, 3)];
    s.blas.scal(b, [n, a, dx, incx]);
    if let Some(da) = da {
        s.blas.axpy(b, [n, da, s.ptr(2), incx, dx, incx]);
    }
    position_after(b, c.call);
    Ok(None)
}

fn scal_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let s = Site::new(c.b.module(), c.src, &c.args, false, 0);
    let b = &mut *c.b;
    let [n, incx, a] = [scal_len(&s, b), s.int(b, 3), s.real(b, 1)];
    let need_x = s.shadow(&c.shadows, 2).is_some() && s.real_maybe_active(c.src, &c.shadows, 1);
    let keep = need_x.then(|| Keep::Vector {
        n,
        x: s.ptr(2),
        inc: incx,
    });
    let buf = save(b, &s.blas, &[n, incx, a], &[keep]);
    let call = c.primal_call();
    Ok(augmented(call, buf))
}

fn scal_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let (s, sv) = adjoint_site(c, false, 0, 3)?;
    let (bl, b) = (&s.blas, &mut *c.b);
    let a_active = s.real_active(&c.active, &c.shadows, 1);
    let mut out = vec![None; c.args.len()];
    match s.shadow(&c.shadows, 2) {
        None if a_active => return Err(s.no_shadow(c.src, "x")),
        None => {}
        Some(dx) => {
            let [n, incx, a] = sv.scalars(b, bl, b"IIR");
            if a_active {
                let xs = sv.array(b, bl, 0);
                let da = bl.dot(b, [n, xs, bl.int_c(1), dx, incx]);
                s.give(b, &c.shadows, &mut out, 1, da);
            }
            bl.scal(b, [n, a, dx, incx]);
        }
    }
    bl.free(b, sv.buf);
    Ok(out)
}

// ----- copy: y = x  (n0 x1 incx2 y3 incy4) -----

fn copy_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let s = Site::new(c.b.module(), c.src, &c.args, false, 0);
    let dx = s.shadow(&c.tangents, 1);
    let Some(dy) = s.shadow(&c.tangents, 3) else {
        return match dx {
            Some(_) => Err(s.no_shadow(c.src, "y")),
            None => Ok(None),
        };
    };
    let b = &mut *c.b;
    let [n, incx, incy] = [s.int(b, 0), s.int(b, 2), s.int(b, 4)];
    match dx {
        Some(dx) => s.blas.copy(b, [n, dx, incx, dy, incy]),
        None => s.blas.zero(b, n, dy, incy),
    }
    Ok(None)
}

fn copy_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let s = Site::new(c.b.module(), c.src, &c.args, false, 0);
    let b = &mut *c.b;
    let v = [s.int(b, 0), s.int(b, 2), s.int(b, 4)];
    let buf = save(b, &s.blas, &v, &[]);
    let call = c.primal_call();
    Ok(augmented(call, buf))
}

fn copy_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let (s, sv) = adjoint_site(c, false, 0, 3)?;
    let (bl, b) = (&s.blas, &mut *c.b);
    let dx = s.shadow(&c.shadows, 1);
    match s.shadow(&c.shadows, 3) {
        None if dx.is_some() => return Err(s.no_shadow(c.src, "y")),
        None => {}
        Some(dy) => {
            let [n, incx, incy] = sv.scalars(b, bl, b"III");
            if let Some(dx) = dx {
                bl.axpy(b, [n, bl.real_c(1.0), dy, incy, dx, incx]);
            }
            bl.zero(b, n, dy, incy);
        }
    }
    bl.free(b, sv.buf);
    Ok(Vec::new())
}

// ----- gemv: y = alpha op(A) x + beta y
//       (order0 trans1 m2 n3 alpha4 A5 lda6 x7 incx8 beta9 y10 incy11) -----

/// `[order, trans, m, n, lda, incx, incy, alpha, beta]`
fn gemv_scalars(s: &Site, b: &mut Builder) -> [Val; 9] {
    [
        s.order(b),
        s.trans(b, 1),
        s.int(b, 2),
        s.int(b, 3),
        s.int(b, 6),
        s.int(b, 8),
        s.int(b, 11),
        s.real(b, 4),
        s.real(b, 9),
    ]
}
const GEMV_SIG: &[u8; 9] = b"EEIIIIIRR";

/// The lengths of x and y: `(n, m)`, or `(m, n)` when A is transposed.
fn gemv_lens(b: &mut Builder, t: Val, m: Val, n: Val) -> (Val, Val) {
    let plain = is(b, t, NO_TRANS);
    (sel(b, plain, n, m), sel(b, plain, m, n))
}

fn gemv_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let s = Site::new(c.b.module(), c.src, &c.args, true, 2);
    let (d_a, dx) = (s.shadow(&c.tangents, 5), s.shadow(&c.tangents, 7));
    let Some(dy) = s.shadow(&c.tangents, 10) else {
        return match [4, 5, 7, 9]
            .iter()
            .any(|&k| s.shadow(&c.tangents, k).is_some())
        {
            true => Err(s.no_shadow(c.src, "y")),
            false => Ok(None),
        };
    };
    // The beta terms read y before the call overwrites it.
    let b = &mut *c.b;
    b.position_before(c.call);
    let da = s.real_tangent(b, &c.tangents, 4);
    let db = s.real_tangent(b, &c.tangents, 9);
    let [o, t, m, n, lda, incx, incy, alpha, beta] = gemv_scalars(&s, b);
    let (a, x, y) = (s.ptr(5), s.ptr(7), s.ptr(10));
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
    let s = Site::new(c.b.module(), c.src, &c.args, true, 2);
    let b = &mut *c.b;
    let v = gemv_scalars(&s, b);
    let [o, t, m, n, lda, incx, incy, ..] = v;
    let (lx, ly) = gemv_lens(b, t, m, n);
    let out = s.shadow(&c.shadows, 10).is_some();
    let alpha = out && s.real_maybe_active(c.src, &c.shadows, 4);
    let beta = out && s.real_maybe_active(c.src, &c.shadows, 9);
    let (len, count) = storage(b, o, m, n);
    let keeps = [
        (out && (alpha || s.shadow(&c.shadows, 7).is_some())).then(|| Keep::Matrix {
            len,
            count,
            a: s.ptr(5),
            ld: lda,
        }),
        (out && (alpha || s.shadow(&c.shadows, 5).is_some())).then(|| Keep::Vector {
            n: lx,
            x: s.ptr(7),
            inc: incx,
        }),
        beta.then(|| Keep::Vector {
            n: ly,
            x: s.ptr(10),
            inc: incy,
        }),
    ];
    let buf = save(b, &s.blas, &v, &keeps);
    let call = c.primal_call();
    Ok(augmented(call, buf))
}

fn gemv_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let (s, sv) = adjoint_site(c, true, 2, 9)?;
    let (bl, b) = (&s.blas, &mut *c.b);
    let (a_active, b_active) = (
        s.real_active(&c.active, &c.shadows, 4),
        s.real_active(&c.active, &c.shadows, 9),
    );
    let (d_a, dx) = (s.shadow(&c.shadows, 5), s.shadow(&c.shadows, 7));
    let mut out = vec![None; c.args.len()];
    let Some(dy) = s.shadow(&c.shadows, 10) else {
        if a_active || b_active || d_a.is_some() || dx.is_some() {
            return Err(s.no_shadow(c.src, "y"));
        }
        bl.free(b, sv.buf);
        return Ok(out);
    };
    let [o, t, m, n, lda, incx, incy, alpha, beta] = sv.scalars(b, bl, GEMV_SIG);
    let (_, ly) = gemv_lens(b, t, m, n);
    let (len, _) = storage(b, o, m, n);
    let lda_s = bl.ld_of(b, len);
    let (one, r1, r0) = (bl.int_c(1), bl.real_c(1.0), bl.real_c(0.0));
    if a_active {
        // d alpha = <dy, op(A) x>
        let (a_s, x_s) = (sv.array(b, bl, 0), sv.array(b, bl, 1));
        let len64 = bl.size64(b, ly);
        let tmp = bl.scratch(b, len64);
        bl.gemv(b, [o, t, m, n, r1, a_s, lda_s, x_s, one, r0, tmp, one]);
        let d = bl.dot(b, [ly, tmp, one, dy, incy]);
        bl.free(b, tmp);
        s.give(b, &c.shadows, &mut out, 4, d);
    }
    if b_active {
        let y_s = sv.array(b, bl, 2);
        let d = bl.dot(b, [ly, y_s, one, dy, incy]);
        s.give(b, &c.shadows, &mut out, 9, d);
    }
    if let Some(d_a) = d_a {
        // dA += alpha dy x^T, or alpha x dy^T when A is transposed.
        let x_s = sv.array(b, bl, 1);
        let plain = is(b, t, NO_TRANS);
        let (u, incu) = (sel(b, plain, dy, x_s), sel(b, plain, incy, one));
        let (w, incw) = (sel(b, plain, x_s, dy), sel(b, plain, one, incy));
        bl.ger(b, [o, m, n, alpha, u, incu, w, incw, d_a, lda]);
    }
    if let Some(dx) = dx {
        // dx += alpha op(A)^T dy
        let a_s = sv.array(b, bl, 0);
        let ft = flip(bl, b, t);
        bl.gemv(b, [o, ft, m, n, alpha, a_s, lda_s, dy, incy, r1, dx, incx]);
    }
    bl.scal(b, [ly, beta, dy, incy]);
    bl.free(b, sv.buf);
    Ok(out)
}

// ----- ger: A += alpha x y^T  (order0 m1 n2 alpha3 x4 incx5 y6 incy7 A8 lda9) -----

/// `[order, m, n, incx, incy, lda, alpha]`
fn ger_scalars(s: &Site, b: &mut Builder) -> [Val; 7] {
    [
        s.order(b),
        s.int(b, 1),
        s.int(b, 2),
        s.int(b, 5),
        s.int(b, 7),
        s.int(b, 9),
        s.real(b, 3),
    ]
}

fn ger_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let s = Site::new(c.b.module(), c.src, &c.args, true, 1);
    let da = s.real_tangent(c.b, &c.tangents, 3);
    let (dx, dy) = (s.shadow(&c.tangents, 4), s.shadow(&c.tangents, 6));
    let Some(d_a) = s.shadow(&c.tangents, 8) else {
        return match da.or(dx).or(dy) {
            Some(_) => Err(s.no_shadow(c.src, "A")),
            None => Ok(None),
        };
    };
    let b = &mut *c.b;
    let [o, m, n, incx, incy, lda, alpha] = ger_scalars(&s, b);
    let (x, y) = (s.ptr(4), s.ptr(6));
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
    let s = Site::new(c.b.module(), c.src, &c.args, true, 1);
    let b = &mut *c.b;
    let v = ger_scalars(&s, b);
    let [_, m, n, incx, incy, ..] = v;
    let out = s.shadow(&c.shadows, 8).is_some();
    let alpha = out && s.real_maybe_active(c.src, &c.shadows, 3);
    let keeps = [
        (alpha || (out && s.shadow(&c.shadows, 6).is_some())).then(|| Keep::Vector {
            n: m,
            x: s.ptr(4),
            inc: incx,
        }),
        (alpha || (out && s.shadow(&c.shadows, 4).is_some())).then(|| Keep::Vector {
            n,
            x: s.ptr(6),
            inc: incy,
        }),
    ];
    let buf = save(b, &s.blas, &v, &keeps);
    let call = c.primal_call();
    Ok(augmented(call, buf))
}

fn ger_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let (s, sv) = adjoint_site(c, true, 1, 7)?;
    let (bl, b) = (&s.blas, &mut *c.b);
    let a_active = s.real_active(&c.active, &c.shadows, 3);
    let (dx, dy) = (s.shadow(&c.shadows, 4), s.shadow(&c.shadows, 6));
    let mut out = vec![None; c.args.len()];
    let Some(g) = s.shadow(&c.shadows, 8) else {
        if a_active || dx.is_some() || dy.is_some() {
            return Err(s.no_shadow(c.src, "A"));
        }
        bl.free(b, sv.buf);
        return Ok(out);
    };
    let [o, m, n, incx, incy, lda, alpha] = sv.scalars(b, bl, b"EIIIIIR");
    let (one, r1, r0) = (bl.int_c(1), bl.real_c(1.0), bl.real_c(0.0));
    let (plain, tr) = (bl.enum_c(NO_TRANS), bl.enum_c(TRANS));
    if a_active {
        // d alpha = x^T dA y
        let (x_s, y_s) = (sv.array(b, bl, 0), sv.array(b, bl, 1));
        let m64 = bl.size64(b, m);
        let tmp = bl.scratch(b, m64);
        bl.gemv(b, [o, plain, m, n, r1, g, lda, y_s, one, r0, tmp, one]);
        let d = bl.dot(b, [m, x_s, one, tmp, one]);
        bl.free(b, tmp);
        s.give(b, &c.shadows, &mut out, 3, d);
    }
    if let Some(dx) = dx {
        let y_s = sv.array(b, bl, 1);
        bl.gemv(b, [o, plain, m, n, alpha, g, lda, y_s, one, r1, dx, incx]);
    }
    if let Some(dy) = dy {
        let x_s = sv.array(b, bl, 0);
        bl.gemv(b, [o, tr, m, n, alpha, g, lda, x_s, one, r1, dy, incy]);
    }
    bl.free(b, sv.buf);
    Ok(out)
}

// ----- gemm: C = alpha op(A) op(B) + beta C
//       (order0 ta1 tb2 m3 n4 k5 alpha6 A7 lda8 B9 ldb10 beta11 C12 ldc13) -----

/// `[order, ta, tb, m, n, k, lda, ldb, ldc, alpha, beta]`
fn gemm_scalars(s: &Site, b: &mut Builder) -> [Val; 11] {
    [
        s.order(b),
        s.trans(b, 1),
        s.trans(b, 2),
        s.int(b, 3),
        s.int(b, 4),
        s.int(b, 5),
        s.int(b, 8),
        s.int(b, 10),
        s.int(b, 13),
        s.real(b, 6),
        s.real(b, 11),
    ]
}
const GEMM_SIG: &[u8; 11] = b"EEEIIIIIIRR";

/// The stored shape `(rows, cols)` of a matrix whose op is `r x c` under flag `t`.
fn stored(b: &mut Builder, t: Val, r: Val, c: Val) -> (Val, Val) {
    let plain = is(b, t, NO_TRANS);
    (sel(b, plain, r, c), sel(b, plain, c, r))
}

fn gemm_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let s = Site::new(c.b.module(), c.src, &c.args, true, 3);
    let (d_a, d_b) = (s.shadow(&c.tangents, 7), s.shadow(&c.tangents, 9));
    let Some(d_c) = s.shadow(&c.tangents, 12) else {
        return match [6, 7, 9, 11]
            .iter()
            .any(|&k| s.shadow(&c.tangents, k).is_some())
        {
            true => Err(s.no_shadow(c.src, "C")),
            false => Ok(None),
        };
    };
    // The beta terms read C before the call overwrites it.
    let b = &mut *c.b;
    b.position_before(c.call);
    let da = s.real_tangent(b, &c.tangents, 6);
    let db = s.real_tangent(b, &c.tangents, 11);
    let [o, ta, tb, m, n, k, lda, ldb, ldc, alpha, beta] = gemm_scalars(&s, b);
    let (a, bm, cm) = (s.ptr(7), s.ptr(9), s.ptr(12));
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
    let s = Site::new(c.b.module(), c.src, &c.args, true, 3);
    let b = &mut *c.b;
    let v = gemm_scalars(&s, b);
    let [o, ta, tb, m, n, k, lda, ldb, ldc, ..] = v;
    let out = s.shadow(&c.shadows, 12).is_some();
    let alpha = out && s.real_maybe_active(c.src, &c.shadows, 6);
    let beta = out && s.real_maybe_active(c.src, &c.shadows, 11);
    let keep_a = alpha || (out && s.shadow(&c.shadows, 9).is_some());
    let keep_b = alpha || (out && s.shadow(&c.shadows, 7).is_some());
    let (ra, ca) = stored(b, ta, m, k);
    let (rb, cb) = stored(b, tb, k, n);
    let (la, na) = storage(b, o, ra, ca);
    let (lb, nb) = storage(b, o, rb, cb);
    let (lc, nc) = storage(b, o, m, n);
    let matrix = |len, count, a, ld| Keep::Matrix { len, count, a, ld };
    let keeps = [
        keep_a.then(|| matrix(la, na, s.ptr(7), lda)),
        keep_b.then(|| matrix(lb, nb, s.ptr(9), ldb)),
        beta.then(|| matrix(lc, nc, s.ptr(12), ldc)),
    ];
    let buf = save(b, &s.blas, &v, &keeps);
    let call = c.primal_call();
    Ok(augmented(call, buf))
}

fn gemm_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let (s, sv) = adjoint_site(c, true, 3, 11)?;
    let (bl, b) = (&s.blas, &mut *c.b);
    let (a_active, b_active) = (
        s.real_active(&c.active, &c.shadows, 6),
        s.real_active(&c.active, &c.shadows, 11),
    );
    let (d_a, d_b) = (s.shadow(&c.shadows, 7), s.shadow(&c.shadows, 9));
    let mut out = vec![None; c.args.len()];
    let Some(g) = s.shadow(&c.shadows, 12) else {
        if a_active || b_active || d_a.is_some() || d_b.is_some() {
            return Err(s.no_shadow(c.src, "C"));
        }
        bl.free(b, sv.buf);
        return Ok(out);
    };
    let [o, ta, tb, m, n, k, lda, ldb, ldc, alpha, beta] = sv.scalars(b, bl, GEMM_SIG);
    // Leading dimensions of the saved (contiguous) copies.
    let (ra, ca) = stored(b, ta, m, k);
    let (rb, cb) = stored(b, tb, k, n);
    let (la, _) = storage(b, o, ra, ca);
    let (lb, _) = storage(b, o, rb, cb);
    let (lc, nc) = storage(b, o, m, n);
    let (lda_s, ldb_s, ldc_s) = (bl.ld_of(b, la), bl.ld_of(b, lb), bl.ld_of(b, lc));
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
            let (a_s, b_s) = (sv.array(b, bl, 0), sv.array(b, bl, 1));
            let prod = bl.scratch(b, mn64);
            bl.gemm(
                b,
                [
                    o, ta, tb, m, n, k, r1, a_s, lda_s, b_s, ldb_s, r0, prod, ldc_s,
                ],
            );
            let d = bl.dot(b, [mn, gc, one, prod, one]);
            bl.free(b, prod);
            s.give(b, &c.shadows, &mut out, 6, d);
        }
        if b_active {
            let c_s = sv.array(b, bl, 2);
            let d = bl.dot(b, [mn, gc, one, c_s, one]);
            s.give(b, &c.shadows, &mut out, 11, d);
        }
        bl.free(b, gc);
    }
    if let Some(d_a) = d_a {
        // op(A) = A: dA += alpha dC op(B)^T;  op(A) = A^T: dA += alpha op(B) dC^T.
        let b_s = sv.array(b, bl, 1);
        let plain = is(b, ta, NO_TRANS);
        let ftb = flip(bl, b, tb);
        let t1 = sel(b, plain, no, tb);
        let t2 = sel(b, plain, ftb, tr);
        let (d1, d2) = (sel(b, plain, m, k), sel(b, plain, k, m));
        let (p, ldp) = (sel(b, plain, g, b_s), sel(b, plain, ldc, ldb_s));
        let (q, ldq) = (sel(b, plain, b_s, g), sel(b, plain, ldb_s, ldc));
        bl.gemm(
            b,
            [o, t1, t2, d1, d2, n, alpha, p, ldp, q, ldq, r1, d_a, lda],
        );
    }
    if let Some(d_b) = d_b {
        // op(B) = B: dB += alpha op(A)^T dC;  op(B) = B^T: dB += alpha dC^T op(A).
        let a_s = sv.array(b, bl, 0);
        let plain = is(b, tb, NO_TRANS);
        let fta = flip(bl, b, ta);
        let t1 = sel(b, plain, fta, tr);
        let t2 = sel(b, plain, no, ta);
        let (d1, d2) = (sel(b, plain, k, n), sel(b, plain, n, k));
        let (p, ldp) = (sel(b, plain, a_s, g), sel(b, plain, lda_s, ldc));
        let (q, ldq) = (sel(b, plain, g, a_s), sel(b, plain, ldc, lda_s));
        bl.gemm(
            b,
            [o, t1, t2, d1, d2, m, alpha, p, ldp, q, ldq, r1, d_b, ldb],
        );
    }
    bl.ge(b, GeOp::Scale, [lc, nc, beta, g, ldc, g, ldc]);
    bl.free(b, sv.buf);
    Ok(out)
}

#[cfg(test)]
mod tests {
    //! Every rule in both modes against central finite differences, through the shared
    //! harness: each case's `f` lays its parameters out in stack arrays (with strides,
    //! padding and storage orders), calls the routine (CBLAS or Fortran), returns a weighted
    //! sum of the output and then overwrites the inputs, so the adjoint must use saved copies.

    use super::super::harness::{check_rule, Case};
    use crate::ir::{Builder, Module, Ty, Val};

    /// Makes OpenBLAS's symbols resolvable by the JIT.
    fn openblas() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let lib = std::path::Path::new("libopenblas.so.0");
            if let Err(e) = inkwell::support::load_library_permanently(lib) {
                panic!("cannot load libopenblas.so.0 (install libopenblas-dev): {e:?}");
            }
        });
    }

    /// A test point of `n` distinct, non-zero values.
    fn point(n: usize) -> Vec<f64> {
        (0..n)
            .map(|k| 0.6 * (1.3 * k as f64 + 0.4).sin() + 0.05 * k as f64 + 0.3)
            .collect()
    }

    fn check(name: &str, n: usize, config: &[i64], body: super::super::harness::Body) {
        openblas();
        check_rule(&Case::body(name, &point(n), config, body));
    }

    /// Builds a case's body: arrays and scalars taken from `f`'s parameters in order.
    struct Body<'a> {
        b: &'a mut Builder,
        m: Module,
        elem: Ty,
        xs: &'a [Val],
        next: usize,
        fortran: bool,
        weights: f64,
    }

    impl<'a> Body<'a> {
        fn new(b: &'a mut Builder, m: Module, elem: Ty, xs: &'a [Val], fortran: bool) -> Self {
            Body {
                b,
                m,
                elem,
                xs,
                next: 0,
                fortran,
                weights: 1.0,
            }
        }
        fn param(&mut self) -> Val {
            self.next += 1;
            self.xs[self.next - 1]
        }
        fn at(&mut self, p: Val, i: usize) -> Val {
            let i64t = Ty::int(self.m.context(), 64);
            self.b.gep(self.elem, p, &[i64t.int_const(i as u64)], true)
        }
        /// A zeroed stack array of `len` reals.
        fn buffer(&mut self, len: usize) -> Val {
            let i64t = Ty::int(self.m.context(), 64);
            let p = self
                .b
                .array_alloca(self.elem, i64t.int_const(len as u64), "arr");
            self.clobber(p, len);
            p
        }
        fn clobber(&mut self, p: Val, len: usize) {
            for i in 0..len {
                let q = self.at(p, i);
                self.b.store(self.elem.zero(), q, 0);
            }
        }
        /// Where logical element `i` of an `n`-vector of stride `inc` lies (BLAS walks a
        /// negative stride from the end).
        fn vpos(n: usize, inc: i64, i: usize) -> usize {
            let step = inc.unsigned_abs() as usize;
            if inc > 0 {
                i * step
            } else {
                (n - 1 - i) * step
            }
        }
        fn vector(&mut self, n: usize, inc: i64) -> (Val, usize) {
            let span = 1 + (n - 1) * inc.unsigned_abs() as usize;
            let p = self.buffer(span);
            for i in 0..n {
                let v = self.param();
                let q = self.at(p, Self::vpos(n, inc, i));
                self.b.store(v, q, 0);
            }
            (p, span)
        }
        /// A `rows x cols` matrix with one element of padding per leading dimension.
        fn matrix(&mut self, rows: usize, cols: usize, row_major: bool) -> (Val, i64, usize) {
            let ld = if row_major { cols } else { rows } + 1;
            let span = ld * if row_major { rows } else { cols };
            let p = self.buffer(span);
            for i in 0..rows {
                for j in 0..cols {
                    let v = self.param();
                    let at = if row_major { i * ld + j } else { i + j * ld };
                    let q = self.at(p, at);
                    self.b.store(v, q, 0);
                }
            }
            (p, ld as i64, span)
        }
        /// `sum_k w_k p[k]` over the given positions, with weights distinct across calls.
        fn weigh(&mut self, p: Val, positions: &[usize]) -> Val {
            let mut acc = self.elem.zero();
            for &at in positions {
                self.weights += 0.37;
                let q = self.at(p, at);
                let v = self.b.load(self.elem, q, 0);
                let t = self.b.fmul(v, self.elem.float_const(self.weights));
                acc = self.b.fadd(acc, t);
            }
            acc
        }
        fn weigh_vector(&mut self, p: Val, n: usize, inc: i64) -> Val {
            let at: Vec<usize> = (0..n).map(|i| Self::vpos(n, inc, i)).collect();
            self.weigh(p, &at)
        }
        fn weigh_matrix(&mut self, p: Val, rows: usize, cols: usize, rm: bool) -> Val {
            let ld = if rm { cols } else { rows } + 1;
            let mut at = Vec::new();
            for i in 0..rows {
                for j in 0..cols {
                    at.push(if rm { i * ld + j } else { i + j * ld });
                }
            }
            self.weigh(p, &at)
        }
        /// A by-reference argument for Fortran, the value itself for CBLAS.
        fn by_ref(&mut self, v: Val) -> Val {
            if !self.fortran {
                return v;
            }
            let slot = self.b.alloca(v.ty(), "arg");
            self.b.store(v, slot, 0);
            slot
        }
        fn int(&mut self, v: i64) -> Val {
            let i = Ty::int(self.m.context(), 32).int_const(v as u64);
            self.by_ref(i)
        }
        fn real(&mut self, v: Val) -> Val {
            self.by_ref(v)
        }
        /// A transpose flag: the CBLAS enum, or Fortran's character.
        fn trans(&mut self, t: i64) -> Val {
            if self.fortran {
                let ch = if t == 111 { b'N' } else { b't' };
                let i8t = Ty::int(self.m.context(), 8);
                self.by_ref(i8t.int_const(ch as u64))
            } else {
                self.int(t)
            }
        }
        /// Calls routine `name` (`dot`, `gemm`, ...) in the case's precision and interface.
        fn call(&mut self, name: &str, returns_real: bool, args: &[Val]) -> Val {
            let p = if self.elem == Ty::double(self.m.context()) {
                'd'
            } else {
                's'
            };
            let full = if self.fortran {
                format!("{p}{name}_")
            } else {
                format!("cblas_{p}{name}")
            };
            let ret = if returns_real {
                self.elem
            } else {
                Ty::void(self.m.context())
            };
            let tys: Vec<Ty> = args.iter().map(|a| a.ty()).collect();
            let f = self
                .m
                .get_or_add_function(&full, Ty::function(ret, &tys, false));
            self.b.call_function(f, args)
        }
    }

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

    /// Stride pairs: unit, and strided with a negative stride.
    const STRIDES: [(i64, i64); 2] = [(1, 1), (2, -3)];

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
