//! The shared test harness of the BLAS rules: every rule in both modes against central finite
//! differences, through the rules' harness. Each case's `f` lays its parameters out in stack
//! arrays (with strides, padding and storage orders), calls the routine (CBLAS or Fortran),
//! returns a weighted sum of the output and then overwrites the inputs, so the adjoint must
//! use saved copies. The cases themselves live beside their rules, in `level*.rs`.

use crate::ir::{Builder, Module, Ty, Val};
use crate::rules::harness::{check_rule, Body as BodyFn, Case};

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

pub(super) fn check(name: &str, n: usize, config: &[i64], body: BodyFn) {
    openblas();
    check_rule(&Case::body(name, &point(n), config, body));
}

/// Builds a case's body: arrays and scalars taken from `f`'s parameters in order.
pub(super) struct Body<'a> {
    b: &'a mut Builder,
    m: Module,
    elem: Ty,
    xs: &'a [Val],
    next: usize,
    fortran: bool,
    weights: f64,
}

impl<'a> Body<'a> {
    pub(super) fn new(
        b: &'a mut Builder,
        m: Module,
        elem: Ty,
        xs: &'a [Val],
        fortran: bool,
    ) -> Self {
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
    pub(super) fn param(&mut self) -> Val {
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
    pub(super) fn clobber(&mut self, p: Val, len: usize) {
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
    pub(super) fn vector(&mut self, n: usize, inc: i64) -> (Val, usize) {
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
    pub(super) fn matrix(
        &mut self,
        rows: usize,
        cols: usize,
        row_major: bool,
    ) -> (Val, i64, usize) {
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
    pub(super) fn weigh_vector(&mut self, p: Val, n: usize, inc: i64) -> Val {
        let at: Vec<usize> = (0..n).map(|i| Self::vpos(n, inc, i)).collect();
        self.weigh(p, &at)
    }
    pub(super) fn weigh_matrix(&mut self, p: Val, rows: usize, cols: usize, rm: bool) -> Val {
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
    pub(super) fn int(&mut self, v: i64) -> Val {
        let i = Ty::int(self.m.context(), 32).int_const(v as u64);
        self.by_ref(i)
    }
    pub(super) fn real(&mut self, v: Val) -> Val {
        self.by_ref(v)
    }
    /// A transpose flag: the CBLAS enum, or Fortran's character.
    pub(super) fn trans(&mut self, t: i64) -> Val {
        if self.fortran {
            let ch = if t == 111 { b'N' } else { b't' };
            let i8t = Ty::int(self.m.context(), 8);
            self.by_ref(i8t.int_const(ch as u64))
        } else {
            self.int(t)
        }
    }
    /// Calls routine `name` (`dot`, `gemm`, ...) in the case's precision and interface.
    pub(super) fn call(&mut self, name: &str, returns_real: bool, args: &[Val]) -> Val {
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

/// Stride pairs: unit, and strided with a negative stride.
pub(super) const STRIDES: [(i64, i64); 2] = [(1, 1), (2, -3)];
