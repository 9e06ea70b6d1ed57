//! Affine forms: an integer value, or a pointer as (base pointer, byte offset), written as
//! `Σ c · atom + c₀` over integer *atoms*:
//!
//! - `Counter(L)`: the iteration number (from 0) of natural loop `L` — the current iteration
//!   where the value is used inside `L`, its last iteration where it is used after `L`;
//! - `Floor(x, k)`: `⌊x / 2^k⌋`, so `0 ≤ x - 2^k · Floor(x, k) < 2^k`: the masks of low and
//!   high bits (`x & 7` is `x - 8 · Floor(x, 3)`, `x & -8` is `8 · Floor(x, 3)`) and shifts
//!   right;
//! - `Value(v)`: any other integer SSA value, opaque;
//! - `Lane(n)`: the lane (`0 ≤ Lane < n`) of an access through a vector of `n` pointers (a
//!   gather or scatter). A vector of integers has a form only when each lane `k` is the same
//!   affine form with `Lane = k` (splats of scalars, constants in arithmetic progression, and
//!   exact lane-wise arithmetic on them); anything else about a vector has no form at all,
//!   since an opaque atom would claim one value in every lane.
//!
//! A header phi `i = phi [init, preheader], [i + C, latch]` of a loop with one latch is
//! `init + C · Counter(L)`. A phi of another block or a `select` is one of several
//! *alternatives*; a phi's alternative holds with the facts of its incoming edge.
//!
//! A form is *exact*: in every execution without undefined behaviour the value equals the
//! form, as a mathematical integer (signed), provided the alternative's `obligations` (each
//! `≥ 0`) hold where it is used. `nsw` arithmetic, `or disjoint`, `sext`, `zext nneg` and
//! `inbounds` GEPs are exact (wrapping would be poison, and using poison as an address or a
//! branch condition is undefined); other arithmetic carries the obligation that its
//! mathematical result fits its type, and an offset summed by GEPs without `inbounds` the
//! obligation that it lies within ±2^62 bytes (so two such offsets that differ modulo 2^64
//! differ as integers). Induction variables without `nsw` of 64 bits and steps of at most 256
//! are taken as exact when `|init| ≤ 2^61`: that assumes no loop runs 2^52 iterations.
//! `freeze` is opaque (it may turn poison into any value).

use super::loops::Loops;
use super::solver::Lin;
use crate::ir::{Block, Module, Opcode, TyKind, Val};
use std::collections::{HashMap, HashSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Atom {
    Counter(usize),
    Floor(Val, u32),
    Value(Val),
    Lane(u32),
}

/// One alternative of a form.
#[derive(Clone, Debug)]
pub struct Alt {
    /// The base pointer (pointer forms only).
    pub base: Option<Val>,
    pub lin: Lin,
    /// Edges (predecessor, phi block) this alternative came through: their facts hold.
    pub edges: Vec<(Block, Block)>,
    /// Each must be `≥ 0` for `lin` to be the value.
    pub obligations: Vec<Lin>,
}

const MAX_ALTS: usize = 8;

pub struct Forms {
    m: Module,
    pub atoms: Vec<Atom>,
    ids: HashMap<Atom, usize>,
    memo: HashMap<Val, Vec<Alt>>,
    visiting: HashSet<Val>,
    /// Increments `i + C` of exact induction variables `i`: exact as `i` is.
    increments: HashSet<Val>,
}

fn lin_alt(lin: Lin) -> Alt {
    Alt {
        base: None,
        lin,
        edges: Vec::new(),
        obligations: Vec::new(),
    }
}

/// `lo ≤ lin ≤ hi` as obligations (trivially true ones dropped).
fn within(lin: &Lin, lo: i128, hi: i128) -> Vec<Lin> {
    let mut out = Vec::new();
    if let Some(a) = lin.plus(-lo) {
        out.push(a);
    }
    if let Some(b) = lin.scale(-1).and_then(|x| x.plus(hi)) {
        out.push(b);
    }
    out.retain(|o| !(o.terms.is_empty() && o.constant >= 0));
    out
}

fn signed_range(w: u32) -> (i128, i128) {
    (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
}

impl Forms {
    pub fn new(m: Module) -> Forms {
        Forms {
            m,
            atoms: Vec::new(),
            ids: HashMap::new(),
            memo: HashMap::new(),
            visiting: HashSet::new(),
            increments: HashSet::new(),
        }
    }

    pub fn atom(&mut self, a: Atom) -> usize {
        if let Some(&k) = self.ids.get(&a) {
            return k;
        }
        self.atoms.push(a);
        self.ids.insert(a, self.atoms.len() - 1);
        self.atoms.len() - 1
    }

    fn opaque(&mut self, v: Val) -> Vec<Alt> {
        vec![lin_alt(Lin::var(self.atom(Atom::Value(v))))]
    }

    /// The block where atom `a`'s value is computed (`None`: fixed for the whole call).
    pub fn def_block(&self, loops: &Loops, a: usize) -> Option<Block> {
        match self.atoms[a] {
            Atom::Counter(l) => Some(loops.loops[l].header),
            Atom::Floor(v, _) | Atom::Value(v) => v.is_instruction().then(|| v.parent_block()),
            // Never shared by two accesses; callers check [`Atom::Lane`] first.
            Atom::Lane(_) => None,
        }
    }

    /// Alternatives combined pairwise by `f` (all alternatives of `a` against all of `b`).
    fn combine(a: &[Alt], b: &[Alt], f: impl Fn(&Alt, &Alt) -> Option<Lin>) -> Option<Vec<Alt>> {
        if a.len() * b.len() > MAX_ALTS {
            return None;
        }
        let mut out = Vec::new();
        for x in a {
            for y in b {
                let mut edges = x.edges.clone();
                edges.extend(y.edges.iter().copied());
                let mut obligations = x.obligations.clone();
                obligations.extend(y.obligations.iter().cloned());
                out.push(Alt {
                    base: x.base.or(y.base),
                    lin: f(x, y)?,
                    edges,
                    obligations,
                });
            }
        }
        Some(out)
    }

    fn map(a: Vec<Alt>, f: impl Fn(&Lin) -> Option<Lin>) -> Option<Vec<Alt>> {
        a.into_iter()
            .map(|mut x| {
                x.lin = f(&x.lin)?;
                Some(x)
            })
            .collect()
    }

    /// The form of integer value `v` (at most 64 bits; wider or other values are opaque).
    pub fn int(&mut self, loops: &Loops, v: Val) -> Vec<Alt> {
        let ty = v.ty();
        if !ty.is_int() || ty.int_width() > 64 || ty.int_width() < 2 {
            return self.opaque(v);
        }
        if let Some(c) = v.const_int_sext() {
            return vec![lin_alt(Lin::constant(c as i128))];
        }
        if !v.is_instruction() || !loops.reachable(v.parent_block()) {
            return self.opaque(v);
        }
        if let Some(f) = self.memo.get(&v) {
            return f.clone();
        }
        if !self.visiting.insert(v) {
            return self.opaque(v);
        }
        let f = self.int_inner(loops, v).unwrap_or_else(|| self.opaque(v));
        self.visiting.remove(&v);
        self.memo.insert(v, f.clone());
        f
    }

    fn int_inner(&mut self, loops: &Loops, v: Val) -> Option<Vec<Alt>> {
        let w = v.ty().int_width();
        let (lo, hi) = signed_range(w);
        let fits = |alts: Vec<Alt>| -> Vec<Alt> {
            alts.into_iter()
                .map(|mut a| {
                    a.obligations.extend(within(&a.lin, lo, hi));
                    a
                })
                .collect()
        };
        use Opcode::*;
        match v.opcode() {
            LLVMAdd | LLVMSub => {
                let (a, b) = (v.operand(0), v.operand(1));
                // An exact induction variable's increment is exact as the variable is.
                for p in [a, b] {
                    if p.is_instruction() && p.opcode() == LLVMPHI {
                        self.int(loops, p);
                    }
                }
                let exact = v.has_nsw() || self.increments.contains(&v);
                let (fa, fb) = (self.int(loops, a), self.int(loops, b));
                let sub = v.opcode() == LLVMSub;
                let r = Self::combine(&fa, &fb, |x, y| {
                    if sub {
                        x.lin.sub(&y.lin)
                    } else {
                        x.lin.add(&y.lin)
                    }
                })?;
                Some(if exact { r } else { fits(r) })
            }
            LLVMMul => {
                let (a, b) = (v.operand(0), v.operand(1));
                let (c, x) = match (a.const_int_sext(), b.const_int_sext()) {
                    (_, Some(c)) => (c, a),
                    (Some(c), _) => (c, b),
                    _ => return None,
                };
                let r = Self::map(self.int(loops, x), |l| l.scale(c as i128))?;
                Some(if v.has_nsw() { r } else { fits(r) })
            }
            LLVMShl => {
                let k = v.operand(1).const_int_value()?;
                if k >= u64::from(w) - 1 || k > 62 {
                    return None;
                }
                let r = Self::map(self.int(loops, v.operand(0)), |l| l.scale(1i128 << k))?;
                Some(if v.has_nsw() { r } else { fits(r) })
            }
            LLVMOr if v.is_disjoint() => {
                let (fa, fb) = (self.int(loops, v.operand(0)), self.int(loops, v.operand(1)));
                Self::combine(&fa, &fb, |x, y| x.lin.add(&y.lin))
            }
            LLVMAnd => self.mask(loops, v, w),
            LLVMLShr | LLVMAShr => self.shift_right(loops, v),
            LLVMSExt => {
                let x = v.operand(0);
                (x.ty().int_width() >= 2).then(|| self.int(loops, x))
            }
            LLVMZExt => {
                let x = v.operand(0);
                if x.ty().int_width() < 2 {
                    return None;
                }
                let r = self.int(loops, x);
                if v.has_nneg() {
                    return Some(r);
                }
                Some(
                    r.into_iter()
                        .map(|mut a| {
                            a.obligations.push(a.lin.clone());
                            a
                        })
                        .collect(),
                )
            }
            LLVMTrunc => Some(fits(self.int(loops, v.operand(0)))),
            LLVMPHI => self.phi(loops, v, &|s, x| s.int(loops, x)),
            LLVMSelect => {
                let (a, b) = (self.int(loops, v.operand(1)), self.int(loops, v.operand(2)));
                let mut out = a;
                out.extend(b);
                (out.len() <= MAX_ALTS).then_some(out)
            }
            _ => None,
        }
    }

    /// `x & m` for a mask of the contiguous bits `k..h`: `x mod 2^h - x mod 2^k`, where
    /// `x mod 2^h = x - 2^h · Floor(x, h)` (and `x` itself for `h` the width).
    fn mask(&mut self, loops: &Loops, v: Val, w: u32) -> Option<Vec<Alt>> {
        let (x, m) = match (
            v.operand(0).const_int_value(),
            v.operand(1).const_int_value(),
        ) {
            (_, Some(m)) => (v.operand(0), m),
            (Some(m), _) => (v.operand(1), m),
            _ => return None,
        };
        let all = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        let m = m & all;
        if m == 0 {
            return None;
        }
        let k = m.trailing_zeros();
        let mut h = (k + (m >> k).trailing_ones()).min(w);
        let ones = if h - k == 64 {
            u64::MAX
        } else {
            ((1u64 << (h - k)) - 1) << k
        };
        if m != ones {
            return None;
        }
        // The sign bit alone cleared: `x mod 2^(w-1)` is `x` when `x ≥ 0` (rather than an
        // atom of coefficient 2^(w-1), too large for the solver).
        let mut obligations = Vec::new();
        if h == w - 1 {
            h = w;
            obligations = self.int(loops, x).into_iter().map(|a| a.lin).collect();
        }
        if k == 0 && h == w {
            let mut out = self.int(loops, x);
            for a in out.iter_mut() {
                a.obligations.push(a.lin.clone());
            }
            return Some(out);
        }
        // `x mod 2^e` as `x + c · Floor(x, e)`: the Floor part.
        let floor = |s: &mut Forms, e: u32| -> Option<Lin> {
            Lin::var(s.atom(Atom::Floor(x, e))).scale(-(1i128 << e))
        };
        match (k, h == w) {
            // x mod 2^h
            (0, false) => {
                let f = floor(self, h)?;
                Self::map(self.int(loops, x), |l| l.add(&f))
            }
            // x - x mod 2^k
            (_, true) => {
                let mut out = lin_alt(floor(self, k)?.scale(-1)?);
                out.obligations = obligations;
                Some(vec![out])
            }
            // x mod 2^h - x mod 2^k
            _ => {
                let (fh, fk) = (floor(self, h)?, floor(self, k)?);
                Some(vec![lin_alt(fh.sub(&fk)?)])
            }
        }
    }

    /// `x >> k`: `Floor(x, k)` (for a logical shift, when `x ≥ 0`).
    fn shift_right(&mut self, loops: &Loops, v: Val) -> Option<Vec<Alt>> {
        let x = v.operand(0);
        let k = u32::try_from(v.operand(1).const_int_value()?).ok()?;
        if k == 0 || k >= x.ty().int_width() - 1 {
            return None;
        }
        let mut out = lin_alt(Lin::var(self.atom(Atom::Floor(x, k))));
        if v.opcode() == Opcode::LLVMLShr {
            out.obligations = self.int(loops, x).into_iter().map(|a| a.lin).collect();
        }
        Some(vec![out])
    }

    /// A phi: the induction variable of its loop, or one of its incoming values.
    fn phi(
        &mut self,
        loops: &Loops,
        v: Val,
        inner: &dyn Fn(&mut Forms, Val) -> Vec<Alt>,
    ) -> Option<Vec<Alt>> {
        let b = v.parent_block();
        let inc = v.incoming();
        if let Some(l) = loops.loops.iter().position(|l| l.header == b) {
            return self.induction(loops, v, l, inner);
        }
        let mut out = Vec::new();
        for (x, p) in inc {
            for mut a in inner(self, x) {
                a.edges.push((p, b));
                out.push(a);
            }
        }
        (out.len() <= MAX_ALTS).then_some(out)
    }

    fn induction(
        &mut self,
        loops: &Loops,
        v: Val,
        l: usize,
        inner: &dyn Fn(&mut Forms, Val) -> Vec<Alt>,
    ) -> Option<Vec<Alt>> {
        let lp = &loops.loops[l];
        let (&[latch], Some(pre)) = (lp.latches.as_slice(), lp.preheader) else {
            return None;
        };
        let inc = v.incoming();
        let init = inc.iter().find(|(_, p)| *p == pre)?.0;
        let next = inc.iter().find(|(_, p)| *p == latch)?.0;
        if inc.iter().any(|(_, p)| *p != pre && *p != latch) || !next.is_instruction() {
            return None;
        }
        let (step, exact) = if v.ty().is_ptr() {
            // next = gep inbounds (i8 or typed) v, C
            if next.opcode() != Opcode::LLVMGetElementPtr || next.operand(0) != v {
                return None;
            }
            (
                i128::from(self.m.const_gep_offset(next)?),
                next.gep_inbounds(),
            )
        } else {
            let c = match next.opcode() {
                Opcode::LLVMAdd if next.operand(0) == v => next.operand(1).const_int_sext()?,
                Opcode::LLVMAdd if next.operand(1) == v => next.operand(0).const_int_sext()?,
                Opcode::LLVMSub if next.operand(0) == v => -next.operand(1).const_int_sext()?,
                _ => return None,
            };
            (c as i128, next.has_nsw())
        };
        let practical = !exact && !v.ty().is_ptr() && v.ty().int_width() >= 64 && step.abs() <= 256;
        if !exact && !practical {
            return None;
        }
        let t = self.atom(Atom::Counter(l));
        let mut out = Self::map(inner(self, init), |x| x.add_scaled(&Lin::var(t), step))?;
        if practical {
            let bound = 1i128 << 61;
            for a in out.iter_mut() {
                let init_lin = a.lin.add_scaled(&Lin::var(t), -step)?;
                a.obligations.extend(within(&init_lin, -bound, bound));
            }
        }
        self.increments.insert(next);
        Some(out)
    }

    /// The form of pointer `p` as (base, byte offset).
    pub fn ptr(&mut self, loops: &Loops, p: Val) -> Vec<Alt> {
        let base = |p: Val| {
            vec![Alt {
                base: Some(p),
                lin: Lin::default(),
                edges: Vec::new(),
                obligations: Vec::new(),
            }]
        };
        let op = if p.is_instruction() {
            if !loops.reachable(p.parent_block()) {
                return base(p);
            }
            p.opcode()
        } else if p.is_constant_expr() {
            p.const_opcode()
        } else {
            return base(p);
        };
        if let Some(f) = self.memo.get(&p) {
            return f.clone();
        }
        if !self.visiting.insert(p) {
            return base(p);
        }
        let f = match op {
            Opcode::LLVMBitCast => Some(self.ptr(loops, p.operand(0))),
            Opcode::LLVMGetElementPtr => self.gep(loops, p),
            // A vector of one pointer in every lane: that pointer's form.
            Opcode::LLVMShuffleVector if p.is_instruction() => {
                splat_source(p).map(|x| self.ptr(loops, x))
            }
            Opcode::LLVMPHI if p.is_instruction() => self.phi(loops, p, &|s, x| s.ptr(loops, x)),
            Opcode::LLVMSelect if p.is_instruction() => {
                let (a, b) = (self.ptr(loops, p.operand(1)), self.ptr(loops, p.operand(2)));
                let mut out = a;
                out.extend(b);
                (out.len() <= MAX_ALTS).then_some(out)
            }
            _ => None,
        }
        .unwrap_or_else(|| base(p));
        self.visiting.remove(&p);
        self.memo.insert(p, f.clone());
        f
    }

    fn gep(&mut self, loops: &Loops, g: Val) -> Option<Vec<Alt>> {
        let m = self.m;
        let mut out = self.ptr(loops, g.operand(0));
        let mut ty = g.gep_source_type();
        let n = g.num_operands();
        for k in 1..n {
            let idx = g.operand(k);
            let scale: i128;
            if k == 1 {
                scale = alloc_size(m, ty)?;
            } else {
                match ty.kind() {
                    TyKind::Struct => {
                        let f = idx.const_int_value()?;
                        let field = *ty.struct_fields().get(usize::try_from(f).ok()?)?;
                        let off = m.field_offset(ty, f as u32) as i128;
                        out = Self::map(out, |l| l.plus(off))?;
                        ty = field;
                        continue;
                    }
                    TyKind::Array => {
                        ty = ty.element();
                        scale = alloc_size(m, ty)?;
                    }
                    _ => return None,
                }
            }
            let fi = if idx.ty().kind() == TyKind::Vector {
                self.lanes(loops, idx)?
            } else if idx.ty().is_int() {
                self.int(loops, idx)
            } else {
                return None;
            };
            out = Self::combine(&out, &fi, |x, y| x.lin.add_scaled(&y.lin, scale))?;
        }
        if !g.gep_inbounds() {
            let bound = 1i128 << 62;
            for a in out.iter_mut() {
                a.obligations.extend(within(&a.lin, -bound, bound));
            }
        }
        Some(out)
    }
}

impl Forms {
    /// The form of a vector of integers, lane `k` being the form with `Lane = k`; `None` when
    /// the lanes are not one affine form (see the module doc).
    pub fn lanes(&mut self, loops: &Loops, v: Val) -> Option<Vec<Alt>> {
        let ty = v.ty();
        if ty.kind() != TyKind::Vector {
            return None;
        }
        let (n, ety) = (ty.vector_len(), ty.element());
        if !ety.is_int() || ety.int_width() > 64 || ety.int_width() < 2 || n == 0 {
            return None;
        }
        if v.is_constant() {
            let c: Vec<i128> = (0..n)
                .map(|k| v.aggregate_element(k)?.const_int_sext().map(i128::from))
                .collect::<Option<_>>()?;
            let step = if n > 1 { c[1] - c[0] } else { 0 };
            if (0..n as usize).any(|k| c[k] != c[0] + step * k as i128) {
                return None;
            }
            let mut lin = Lin::constant(c[0]);
            if step != 0 {
                lin = lin.add_scaled(&Lin::var(self.atom(Atom::Lane(n))), step)?;
            }
            return Some(vec![lin_alt(lin)]);
        }
        if !v.is_instruction() || !loops.reachable(v.parent_block()) {
            return None;
        }
        let (lo, hi) = signed_range(ety.int_width());
        let fits = |alts: Vec<Alt>| -> Vec<Alt> {
            alts.into_iter()
                .map(|mut a| {
                    a.obligations.extend(within(&a.lin, lo, hi));
                    a
                })
                .collect()
        };
        use Opcode::*;
        match v.opcode() {
            LLVMShuffleVector => {
                let x = splat_source(v)?;
                (x.ty().kind() != TyKind::Vector).then(|| self.int(loops, x))
            }
            LLVMAdd | LLVMSub | LLVMOr => {
                if v.opcode() == LLVMOr && !v.is_disjoint() {
                    return None;
                }
                let (fa, fb) = (
                    self.lanes(loops, v.operand(0))?,
                    self.lanes(loops, v.operand(1))?,
                );
                let sub = v.opcode() == LLVMSub;
                let r = Self::combine(&fa, &fb, |x, y| {
                    if sub {
                        x.lin.sub(&y.lin)
                    } else {
                        x.lin.add(&y.lin)
                    }
                })?;
                Some(if v.has_nsw() || v.opcode() == LLVMOr {
                    r
                } else {
                    fits(r)
                })
            }
            LLVMMul | LLVMShl => {
                let (x, c) = if v.opcode() == LLVMShl {
                    let k = uniform_const(v.operand(1))?;
                    if !(0..=62).contains(&k) || k >= i64::from(ety.int_width()) - 1 {
                        return None;
                    }
                    (v.operand(0), 1i64 << k)
                } else {
                    match (uniform_const(v.operand(0)), uniform_const(v.operand(1))) {
                        (_, Some(c)) => (v.operand(0), c),
                        (Some(c), _) => (v.operand(1), c),
                        _ => return None,
                    }
                };
                let r = Self::map(self.lanes(loops, x)?, |l| l.scale(c as i128))?;
                Some(if v.has_nsw() { r } else { fits(r) })
            }
            LLVMSExt => self.lanes(loops, v.operand(0)),
            LLVMZExt if v.has_nneg() => self.lanes(loops, v.operand(0)),
            _ => None,
        }
    }
}

/// The scalar every lane of shuffle `v` holds: a splat of lane `j` of an `insertelement` that
/// put a scalar at lane `j`.
fn splat_source(v: Val) -> Option<Val> {
    let mask = v.shuffle_mask();
    let j = mask.first().copied().flatten()?;
    if !mask.iter().all(|m| *m == Some(j)) {
        return None;
    }
    let src = v.operand(0);
    let n0 = src.ty().vector_len();
    if j >= n0 || !src.is_instruction() || src.opcode() != Opcode::LLVMInsertElement {
        return None;
    }
    (src.operand(2).const_int_value() == Some(u64::from(j))).then(|| src.operand(1))
}

/// The value of an integer constant, or of a vector constant with the same value in each lane.
fn uniform_const(v: Val) -> Option<i64> {
    if let Some(c) = v.const_int_sext() {
        return Some(c);
    }
    if !v.is_constant() || v.ty().kind() != TyKind::Vector {
        return None;
    }
    let n = v.ty().vector_len();
    let first = v.aggregate_element(0)?.const_int_sext()?;
    (1..n)
        .all(|k| v.aggregate_element(k).and_then(|e| e.const_int_sext()) == Some(first))
        .then_some(first)
}

fn alloc_size(m: Module, ty: crate::ir::Ty) -> Option<i128> {
    (!ty.is_scalable_vector() && !ty.is_void()).then(|| m.alloc_size(ty) as i128)
}
