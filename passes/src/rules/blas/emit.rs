//! Emitting BLAS from derivative code: CBLAS calls of one precision and integer type, whose
//! prototypes come from the routines' [`Signature`]s, the strided-matrix helpers the BLAS
//! lacks, scratch memory, and the small IR helpers shared by the levels.
//!
//! Guarantees: emitted calls are declared as clang-22 declares them from `cblas.h` (`i32`
//! enums, the user's BLAS integer type) and are called through that type, so a user
//! declaration with another prototype stays valid; every routine emitted here has a rule, so
//! derivative code can be differentiated again.

use super::routines::{AXPY, COPY, DOT, GEMM, GEMV, GER, SCAL};
use super::signature::{Role, Signature};
use crate::ir::{Builder, IntPred, Module, Opcode, Ty, Val};

// ----- CBLAS constants -----

pub(super) const ROW_MAJOR: u64 = 101;
pub(super) const COL_MAJOR: u64 = 102;
pub(super) const NO_TRANS: u64 = 111;
pub(super) const TRANS: u64 = 112;

/// Emits CBLAS calls of one precision and integer type, and the strided-matrix helpers.
pub(super) struct Blas {
    m: Module,
    pub elem: Ty,
    pub int: Ty,
    pub i32t: Ty,
    pub ptr: Ty,
    /// `d` or `s`.
    p: char,
    /// The user's callee, for messages.
    pub callee: String,
}

/// A column-wise matrix operation the BLAS has no routine for.
#[derive(Clone, Copy)]
pub(super) enum GeOp {
    /// `dst[:, j] = src[:, j]`
    Copy,
    /// `dst[:, j] += alpha * src[:, j]`
    Add,
    /// `dst[:, j] *= alpha` (`src` unused)
    Scale,
    /// `dst[:, j] += src[:, j]` with atomic adds (`alpha` unused): other threads may add into
    /// `dst` at the same time.
    AtomicAdd,
}

impl Blas {
    pub fn new(m: Module, single: bool, int: Ty, callee: String) -> Blas {
        let ctx = int.context();
        let elem = if single {
            Ty::float(ctx)
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

    pub fn enum_c(&self, v: u64) -> Val {
        self.i32t.int_const(v)
    }
    pub fn int_c(&self, v: i64) -> Val {
        self.int.int_const(v as u64)
    }
    pub fn real_c(&self, v: f64) -> Val {
        self.elem.float_const(v)
    }
    fn esize(&self) -> u64 {
        if self.p == 's' {
            4
        } else {
            8
        }
    }

    /// The type a parameter of role `r` has in CBLAS, in this precision and integer type.
    pub fn cblas_ty(&self, r: Role) -> Ty {
        match r {
            Role::Order | Role::Trans => self.i32t,
            Role::Int => self.int,
            Role::Real => self.elem,
            Role::Vector { .. } | Role::Matrix { .. } => self.ptr,
        }
    }

    /// Calls `cblas_<p><routine>` with `args` in CBLAS order.
    fn call(&self, b: &mut Builder, sig: &Signature, args: &[Val]) -> Val {
        debug_assert_eq!(args.len(), sig.params.len(), "cblas_{}", sig.name);
        let params: Vec<Ty> = sig.params.iter().map(|p| self.cblas_ty(p.role)).collect();
        let ret = if sig.returns_real {
            self.elem
        } else {
            Ty::void(self.int.context())
        };
        let fty = Ty::function(ret, &params, false);
        let f = self
            .m
            .get_or_add_function(&format!("cblas_{}{}", self.p, sig.name), fty);
        // Called through our own type: a user declaration with another prototype stays valid.
        b.call(fty, f, args)
    }

    pub fn dot(&self, b: &mut Builder, a: [Val; 5]) -> Val {
        self.call(b, &DOT, &a)
    }
    pub fn axpy(&self, b: &mut Builder, a: [Val; 6]) {
        self.call(b, &AXPY, &a);
    }
    /// `scal` with the stride's magnitude: the BLAS ignore a scaling with a negative stride,
    /// and scaling touches the same elements whichever way they are walked.
    pub fn scal(&self, b: &mut Builder, [n, a, x, inc]: [Val; 4]) {
        let neg = b.icmp(IntPred::LLVMIntSLT, inc, self.int.zero());
        let minus = b.sub(self.int.zero(), inc);
        let inc = b.select(neg, minus, inc);
        self.call(b, &SCAL, &[n, a, x, inc]);
    }
    pub fn copy(&self, b: &mut Builder, a: [Val; 5]) {
        self.call(b, &COPY, &a);
    }
    pub fn gemv(&self, b: &mut Builder, a: [Val; 12]) {
        self.call(b, &GEMV, &a);
    }
    pub fn ger(&self, b: &mut Builder, a: [Val; 10]) {
        self.call(b, &GER, &a);
    }
    pub fn gemm(&self, b: &mut Builder, a: [Val; 14]) {
        self.call(b, &GEMM, &a);
    }

    /// `v := 0` for `n` elements of stride `inc`: a copy from a constant zero with stride 0
    /// (`scal` by zero would keep NaNs in some BLAS versions).
    pub fn zero(&self, b: &mut Builder, n: Val, v: Val, inc: Val) {
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
    pub fn ge(&self, b: &mut Builder, op: GeOp, a: [Val; 7]) {
        let f = self.ge_helper(op);
        b.call_function(f, &a);
    }

    fn ge_helper(&self, op: GeOp) -> Val {
        let tag = match op {
            GeOp::Copy => "copy",
            GeOp::Add => "add",
            GeOp::Scale => "scale",
            GeOp::AtomicAdd => "atomicadd",
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
            GeOp::AtomicAdd => self.atomic_add(&mut b, [len, s, d, one]),
        }
        let next = b.add(j, one);
        j.add_incoming(next, body);
        let more = b.icmp(IntPred::LLVMIntSLT, next, count);
        b.cond_br(more, body, exit);
        b.position_at_end(exit);
        b.ret_void();
        f
    }

    /// `dst += src` for `n` elements, `src` contiguous and `dst` of stride `inc` (walked as the
    /// BLAS walk it: from its far end when `inc` is negative), each element with an atomic add:
    /// `[n, src, dst, inc]`.
    pub fn atomic_add(&self, b: &mut Builder, a: [Val; 4]) {
        let f = self.atomic_add_helper();
        b.call_function(f, &a);
    }

    fn atomic_add_helper(&self) -> Val {
        let name = format!("umbra.blas.{}atomicadd.i{}", self.p, self.int.int_width());
        if let Some(f) = self.m.function(&name) {
            return f;
        }
        let ctx = self.int.context();
        let (int, ptr) = (self.int, self.ptr);
        let fty = Ty::function(Ty::void(ctx), &[int, ptr, ptr, int], false);
        let f = self.m.add_function(&name, fty);
        f.set_internal();
        let p = f.params();
        let (n, src, dst, inc) = (p[0], p[1], p[2], p[3]);
        let (entry, body, exit) = (
            f.append_block("entry"),
            f.append_block("element"),
            f.append_block("exit"),
        );
        let mut b = Builder::new(self.m);
        b.position_at_end(entry);
        let i64t = Ty::int(ctx, 64);
        let (n64, inc64) = (b.sext_or_trunc(n, i64t), b.sext_or_trunc(inc, i64t));
        // Element k of a vector with a negative stride is at (k - (n - 1)) * inc.
        let neg = b.icmp(IntPred::LLVMIntSLT, inc64, i64t.zero());
        let last = b.sub(n64, i64t.int_const(1));
        let back = b.mul(last, inc64);
        let back = b.sub(i64t.zero(), back);
        let start = b.select(neg, back, i64t.zero());
        let any = b.icmp(IntPred::LLVMIntSGT, n64, i64t.zero());
        b.cond_br(any, body, exit);
        b.position_at_end(body);
        let k = b.phi(i64t);
        k.add_incoming(i64t.zero(), entry);
        let s = b.gep(self.elem, src, &[k], false);
        let v = b.load(self.elem, s, 0);
        let step = b.mul(k, inc64);
        let off = b.add(start, step);
        let d = b.gep(self.elem, dst, &[off], false);
        b.atomic_fadd(d, v);
        let next = b.add(k, i64t.int_const(1));
        k.add_incoming(next, body);
        let more = b.icmp(IntPred::LLVMIntSLT, next, n64);
        b.cond_br(more, body, exit);
        b.position_at_end(exit);
        b.ret_void();
        f
    }

    /// Runs `op(dst, inc)`, which adds into `n` elements of a vector of stride `inc`, on `dst`
    /// itself, or, when other threads may add into `dst` at the same time (`shared`), on a
    /// zeroed contiguous scratch vector that is then added into `dst` atomically.
    pub fn add_into_vector(
        &self,
        b: &mut Builder,
        shared: bool,
        [n, dst, inc]: [Val; 3],
        op: impl FnOnce(&mut Builder, Val, Val),
    ) {
        if !shared {
            return op(b, dst, inc);
        }
        let one = self.int_c(1);
        let n64 = self.size64(b, n);
        let tmp = self.scratch(b, n64);
        self.zero(b, n, tmp, one);
        op(b, tmp, one);
        self.atomic_add(b, [n, tmp, dst, inc]);
        self.free(b, tmp);
    }

    /// Runs `op(dst, ld)`, which adds into a matrix of `count` vectors of `len` elements, `ld`
    /// apart (its storage form), on `dst` itself, or, when other threads may add into `dst` at
    /// the same time (`shared`), on a zeroed contiguous scratch matrix that is then added into
    /// `dst` atomically.
    pub fn add_into_matrix(
        &self,
        b: &mut Builder,
        shared: bool,
        [len, count, dst, ld]: [Val; 4],
        op: impl FnOnce(&mut Builder, Val, Val),
    ) {
        if !shared {
            return op(b, dst, ld);
        }
        let (l64, c64) = (self.size64(b, len), self.size64(b, count));
        let elements = b.mul(l64, c64);
        let tmp = self.scratch(b, elements);
        let ldt = self.ld_of(b, len);
        let all = b.mul(len, count);
        self.zero(b, all, tmp, self.int_c(1));
        op(b, tmp, ldt);
        self.ge(
            b,
            GeOp::AtomicAdd,
            [len, count, self.real_c(0.0), tmp, ldt, dst, ld],
        );
        self.free(b, tmp);
    }

    pub fn malloc(&self, b: &mut Builder, bytes: Val) -> Val {
        let i64t = Ty::int(self.int.context(), 64);
        let fty = Ty::function(self.ptr, &[i64t], false);
        let f = self.m.get_or_add_function("malloc", fty);
        b.call(fty, f, &[bytes])
    }
    pub fn free(&self, b: &mut Builder, p: Val) {
        let fty = Ty::function(Ty::void(self.int.context()), &[self.ptr], false);
        let f = self.m.get_or_add_function("free", fty);
        b.call(fty, f, &[p]);
    }
    /// A scratch array of `elements` (an `i64`) reals.
    pub fn scratch(&self, b: &mut Builder, elements: Val) -> Val {
        let bytes = self.bytes(b, elements);
        self.malloc(b, bytes)
    }
    /// `elements` reals in bytes, rounded up to 8 so saved arrays stay 8-byte aligned.
    pub fn bytes(&self, b: &mut Builder, elements: Val) -> Val {
        let i64t = Ty::int(self.int.context(), 64);
        let raw = b.mul(elements, i64t.int_const(self.esize()));
        let up = b.add(raw, i64t.int_const(7));
        b.binop(Opcode::LLVMAnd, up, i64t.int_const(!7u64))
    }
    /// `max(v, 0)` as an `i64` (BLAS treats non-positive sizes as empty).
    pub fn size64(&self, b: &mut Builder, v: Val) -> Val {
        let i64t = Ty::int(self.int.context(), 64);
        let w = b.sext_or_trunc(v, i64t);
        let pos = b.icmp(IntPred::LLVMIntSGT, w, i64t.zero());
        b.select(pos, w, i64t.zero())
    }
    /// `max(v, 1)`: a valid leading dimension for a contiguous copy.
    pub fn ld_of(&self, b: &mut Builder, len: Val) -> Val {
        let one = self.int_c(1);
        let big = b.icmp(IntPred::LLVMIntSGT, len, one);
        b.select(big, len, one)
    }
}

// ----- small IR helpers -----

pub(super) fn sel(b: &mut Builder, cond: Val, a: Val, c: Val) -> Val {
    b.select(cond, a, c)
}

pub(super) fn is(b: &mut Builder, v: Val, code: u64) -> Val {
    b.icmp(IntPred::LLVMIntEQ, v, v.ty().int_const(code))
}

/// The other transpose flag.
pub(super) fn flip(bl: &Blas, b: &mut Builder, t: Val) -> Val {
    let plain = is(b, t, NO_TRANS);
    sel(b, plain, bl.enum_c(TRANS), bl.enum_c(NO_TRANS))
}

/// How a `rows x cols` matrix of storage order `o` lies in memory: `(len, count)`, `count`
/// vectors of `len` contiguous elements, a leading dimension apart.
pub(super) fn storage(b: &mut Builder, o: Val, rows: Val, cols: Val) -> (Val, Val) {
    let row = is(b, o, ROW_MAJOR);
    (sel(b, row, cols, rows), sel(b, row, rows, cols))
}

/// Emits after `inst` from now on (forward rules that wrote code before the primal call).
pub(super) fn position_after(b: &mut Builder, inst: Val) {
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
