//! Index reasoning for the overwrite analysis: proves that a store cannot, in any execution
//! *after* a load, write bytes the load read, from the affine form of both addresses in the
//! counters of the loops around them.
//!
//! # What it proves
//! [`Indices::later_writes_miss`]`(l, s)` is true only when, for every execution of load `l`
//! and every later execution of store `s` in the same call of the function, the `size_s` bytes
//! `s` writes and the `size_l` bytes `l` read are disjoint. The two addresses must be affine
//! forms over one base pointer ([`forms`]); "later" is enumerated over the natural loops
//! containing both, outermost first: equal iterations of the loops above level `d` and a later
//! iteration at level `d`, for each `d`, and equal iterations of all of them when `s` can follow
//! `l` inside one iteration. Loops containing only one of the two have independent counters. In
//! each case one integer system — each side's facts ([`context`]: loop bounds, branch
//! conditions), the order of the counters, atoms computed where both executions see the same
//! value identified, and "the byte ranges overlap" — is shown infeasible ([`solver`]).
//!
//! Overlap of `R·H + lo` and `R·H' + lo'` with `0 ≤ lo, lo'` and `lo + size ≤ R` (checked under
//! each side's facts) needs `H = H'`: row-major indexing `a[i·N + j]` with `0 ≤ j < N` is
//! delinearised into rows and columns, which linear reasoning alone could not separate.
//!
//! An access through a vector of pointers (a gather or scatter) is one access of each lane: its
//! form has the lane number as a variable `0 ≤ Lane < n` ([`forms`]), fresh for each side, so
//! "every lane of `l` against every lane of `s`" is one system.
//!
//! Anything unsure answers `false` (the store may overwrite): an irreducible CFG, addresses on
//! different bases, an obligation of a form ([`forms`]) its facts do not imply.

mod context;
mod forms;
pub(crate) mod loops;
mod solver;

use crate::ir::{Block, TyKind, Val};
use context::{Contexts, Facts};
use forms::Forms;
use loops::Loops;
use solver::{infeasible, Lin, System};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;

/// One alternative of an access: its address as `base + lin` and the facts where it runs.
#[derive(Clone)]
struct Side {
    base: Val,
    lin: Lin,
    facts: System,
    /// The same number for equal `base`, `facts` and `lin` but for its constant (interned:
    /// [`PairKey`] compares numbers).
    shape: usize,
}

/// Index reasoning over one function (memoised forms and facts).
pub struct Indices {
    loops: Loops,
    forms: Forms,
    contexts: Contexts,
    sides: HashMap<(Val, Val), Option<Rc<Vec<Side>>>>,
    /// Answers of [`Indices::later_writes_miss`] by [`PairKey`].
    answers: HashMap<PairKey, bool>,
    /// Interned shapes of sides: base, offset without its constant, facts (their `≥ 0` and
    /// `= 0` rows).
    shapes: HashMap<(Val, Lin, Vec<Lin>, Vec<Lin>), usize>,
    /// Each instruction's position in its block, for blocks asked about.
    positions: HashMap<Block, HashMap<Val, usize>>,
}

/// What decides [`Indices::later_writes_miss`]: the two blocks, whether the store may follow
/// the load within one iteration, the sizes, and each side's alternatives (base, offset, facts)
/// with every offset moved by the same constant (the first alternative of the load at 0).
/// Overlap depends only on the difference of the offsets, so accesses translated together
/// (the 80 scatters of one unrolled block at byte offsets 0, 8, 16, ...) share one answer.
#[derive(PartialEq, Eq, Hash)]
struct PairKey {
    blocks: (Block, Block),
    follows: bool,
    sizes: (u64, u64),
    /// (shape, offset's constant)
    sides: Vec<(usize, i128)>,
    split: usize,
}

/// Delinearisation levels tried.
const DEPTH: usize = 3;

impl Indices {
    /// The reasoning for function `f`; `None` when its CFG is irreducible.
    pub fn new(f: Val) -> Option<Indices> {
        let loops = Loops::new(f);
        loops.reducible.then(|| Indices {
            loops,
            forms: Forms::new(f.module()),
            contexts: Contexts::default(),
            sides: HashMap::new(),
            answers: HashMap::new(),
            shapes: HashMap::new(),
            positions: HashMap::new(),
        })
    }

    /// The alternatives of access `i` through pointer `p`, with resolved facts; `None` when
    /// some alternative is not exact where it runs.
    fn sides(&mut self, i: Val, p: Val) -> Option<Rc<Vec<Side>>> {
        if let Some(s) = self.sides.get(&(i, p)) {
            return s.clone();
        }
        let r = self.compute_sides(i, p).map(Rc::new);
        self.sides.insert((i, p), r.clone());
        r
    }

    fn compute_sides(&mut self, i: Val, p: Val) -> Option<Vec<Side>> {
        let (loops, forms, ctx) = (&self.loops, &mut self.forms, &mut self.contexts);
        let b = i.parent_block();
        if !loops.reachable(b) {
            return None;
        }
        let alts = forms.ptr(loops, p);
        let mut out = Vec::new();
        for a in alts {
            let mut facts: Facts = ctx.block(forms, loops, b);
            for &(from, to) in &a.edges {
                facts.merge(&ctx.block(forms, loops, from));
                facts.merge(&ctx.edge(forms, loops, from, to));
            }
            let mut lins: Vec<&Lin> = vec![&a.lin];
            lins.extend(a.obligations.iter());
            ctx.atom_facts(forms, loops, &mut facts, &lins);
            let mut sys = facts.resolve();
            // Through a vector of pointers: the base must be one pointer for every lane, and
            // the lane is a number below the vector's length.
            if p.ty().kind() == TyKind::Vector {
                if a.base.is_none_or(|x| x.ty().kind() == TyKind::Vector) {
                    return None;
                }
                let lane = Lin::var(forms.atom(forms::Atom::Lane(p.ty().vector_len())));
                sys.ge(&lane, &Lin::constant(0));
                sys.le(&lane, &Lin::constant(i128::from(p.ty().vector_len()) - 1));
            }
            tighten_bounds(&mut sys);
            if !a.obligations.iter().all(|o| sys.implies_nonneg(o)) {
                return None;
            }
            let base = a.base?;
            let next = self.shapes.len();
            let shape = *self
                .shapes
                .entry((
                    base,
                    Lin {
                        constant: 0,
                        ..a.lin.clone()
                    },
                    sys.nonneg.clone(),
                    sys.zero.clone(),
                ))
                .or_insert(next);
            out.push(Side {
                base,
                lin: a.lin,
                facts: sys,
                shape,
            });
        }
        Some(out)
    }

    /// The values integer `v` may have where instruction `at` uses it, as (least, greatest,
    /// step): every value is the least plus a multiple of the step (0 for one value). From its
    /// form under the facts of `at`'s block (loop bounds, branch conditions), when both bounds
    /// are known; the step is what the form's coefficients and constants have in common (a
    /// byte offset `4 * k` takes every fourth value only). The type analysis asks it of a
    /// variable GEP index: `v[k]` of a member array in a counted loop (`for (k = 0; k < 3;
    /// k++)`, which -O1 writes as `gep double, ptr, k` without the array's type) stays inside
    /// the array.
    pub fn range_at(&mut self, v: Val, at: Val) -> Option<(i128, i128, i128)> {
        let (loops, forms, ctx) = (&self.loops, &mut self.forms, &mut self.contexts);
        let b = at.parent_block();
        if !loops.reachable(b) {
            return None;
        }
        let mut range: Option<(i128, i128)> = None;
        // Every value is `residue` plus a multiple of `step`.
        let (mut step, mut residue) = (0i128, None::<i128>);
        for a in forms.int(loops, v) {
            step = a
                .lin
                .terms
                .values()
                .fold(step, |g, &c| solver::gcd(g, c.abs()));
            let r = *residue.get_or_insert(a.lin.constant);
            step = solver::gcd(step, (a.lin.constant - r).abs());
            let mut facts: Facts = ctx.block(forms, loops, b);
            for &(from, to) in &a.edges {
                facts.merge(&ctx.block(forms, loops, from));
                facts.merge(&ctx.edge(forms, loops, from, to));
            }
            let mut lins: Vec<&Lin> = vec![&a.lin];
            lins.extend(a.obligations.iter());
            ctx.atom_facts(forms, loops, &mut facts, &lins);
            let mut sys = facts.resolve();
            tighten_bounds(&mut sys);
            if !a.obligations.iter().all(|o| sys.implies_nonneg(o)) {
                return None;
            }
            // A variable of its own equal to the form: no atom has its number.
            let x = forms.atoms.len();
            sys.eq(&Lin::var(x), &a.lin);
            let (Some(lo), Some(hi)) = solver::bounds(&sys, x) else {
                return None;
            };
            range = Some(range.map_or((lo, hi), |(l, h)| (l.min(lo), h.max(hi))));
        }
        let ((lo, hi), r) = (range?, residue?);
        if step == 0 {
            return Some((lo, hi, 0));
        }
        // The least value of the residue's class at or above `lo`.
        let lo = lo + (r - lo).rem_euclid(step);
        (lo <= hi).then_some((lo, hi, step))
    }

    /// True when no execution of store `s` (writing `size_s` bytes at `sp`) after an
    /// execution of load `l` (reading `size_l` bytes at `lp`) overlaps the bytes `l` read
    /// (see the module doc).
    pub fn later_writes_miss(
        &mut self,
        l: Val,
        lp: Val,
        size_l: u64,
        s: Val,
        sp: Val,
        size_s: u64,
    ) -> bool {
        let (Some(ls), Some(ss)) = (self.sides(l, lp), self.sides(s, sp)) else {
            return false;
        };
        let (bl, bs) = (l.parent_block(), s.parent_block());
        let common: Vec<usize> = self
            .loops
            .nest(bl)
            .iter()
            .zip(self.loops.nest(bs))
            .take_while(|(a, b)| a == b)
            .map(|(a, _)| *a)
            .collect();
        let follows = self.follows_in_iteration(l, s, common.last().copied());
        let shift = ls.first().map_or(0, |x| x.lin.constant);
        let key = PairKey {
            blocks: (bl, bs),
            follows,
            sizes: (size_l, size_s),
            sides: ls
                .iter()
                .chain(ss.iter())
                .map(|x| (x.shape, x.lin.constant - shift))
                .collect(),
            split: ls.len(),
        };
        if let Some(&known) = self.answers.get(&key) {
            return known;
        }
        let answer = self.later_writes_miss_sides(&ls, &ss, &common, follows, (size_l, size_s));
        self.answers.insert(key, answer);
        answer
    }

    /// [`Indices::later_writes_miss`] on the alternatives of both accesses, given the loops
    /// around both (`common`) and whether the store may follow the load in one iteration.
    fn later_writes_miss_sides(
        &mut self,
        ls: &[Side],
        ss: &[Side],
        common: &[usize],
        follows: bool,
        (size_l, size_s): (u64, u64),
    ) -> bool {
        // (loops with equal iterations, the loop where `s` runs in a later iteration)
        let mut cases: Vec<(usize, Option<usize>)> =
            (0..common.len()).map(|d| (d, Some(common[d]))).collect();
        if follows {
            cases.push((common.len(), None));
        }
        let sizes = (size_l as i128, size_s as i128);
        for (d, later) in cases {
            let equal: HashSet<usize> = common[..d].iter().copied().collect();
            for a in ls {
                for b in ss {
                    if a.base != b.base || !self.same_in_both(a.base, &equal) {
                        return false;
                    }
                    if !self.disjoint(a, b, &equal, later, sizes) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// True when value `v` is the same for both executions when the loops `equal` run the
    /// same iteration: computed outside every other loop.
    fn same_in_both(&self, v: Val, equal: &HashSet<usize>) -> bool {
        !v.is_instruction() || self.block_same(v.parent_block(), equal)
    }

    fn block_same(&self, b: Block, equal: &HashSet<usize>) -> bool {
        self.loops.nest(b).iter().all(|l| equal.contains(l))
    }

    /// True when `s` may run after `l` within one iteration of loop `inner` (anywhere after it
    /// when `None`; the caller knows `s` may follow `l` at all).
    fn follows_in_iteration(&mut self, l: Val, s: Val, inner: Option<usize>) -> bool {
        let Some(c) = inner else { return true };
        let lp = &self.loops.loops[c];
        let (bl, bs) = (l.parent_block(), s.parent_block());
        if bl == bs {
            let pos = self.positions.entry(bl).or_insert_with(|| {
                bl.instructions()
                    .into_iter()
                    .enumerate()
                    .map(|(k, i)| (i, k))
                    .collect()
            });
            if pos.get(&s) > pos.get(&l) {
                return true;
            }
        }
        let mut seen = HashSet::new();
        let mut stack: Vec<Block> = bl.successors();
        while let Some(b) = stack.pop() {
            if b == lp.header || !lp.body.contains(&b) || !seen.insert(b) {
                continue;
            }
            if b == bs {
                return true;
            }
            stack.extend(b.successors());
        }
        false
    }

    /// True when the accesses `a` (the load) and `b` (the store, in a later iteration of loop
    /// `later` if any, with equal iterations of the loops `equal`) cannot overlap.
    fn disjoint(
        &mut self,
        a: &Side,
        b: &Side,
        equal: &HashSet<usize>,
        later: Option<usize>,
        sizes: (i128, i128),
    ) -> bool {
        // Variables: atom ids for atoms both executions share, fresh ones for the store's.
        let n = self.forms.atoms.len();
        let mut shared = vec![false; n];
        for (k, s) in shared.iter_mut().enumerate() {
            *s = match self.forms.def_block(&self.loops, k) {
                // Two accesses' lanes are independent.
                _ if matches!(self.forms.atoms[k], forms::Atom::Lane(_)) => false,
                None => true,
                Some(db) => self.block_same(db, equal),
            };
        }
        let rename_b = |v: usize| if v < n && shared[v] { v } else { v + n };
        let mut sys = a.facts.clone();
        sys.extend(&rename_system(&b.facts, &rename_b));
        if let Some(l) = later {
            let t = self.forms.atom(forms::Atom::Counter(l));
            sys.ge(&Lin::var(t + n), &Lin::var(t).plus(1).unwrap_or_default());
        }
        let lb = b.lin.rename(&mut |v| rename_b(v));
        let mut strides: BTreeSet<i128> = BTreeSet::new();
        for l in [&a.lin, &b.lin] {
            strides.extend(l.terms.values().map(|c| c.abs()));
        }
        let strides: Vec<i128> = strides.into_iter().rev().collect();
        overlap_infeasible(
            &sys,
            (&a.lin, &a.facts, &a.lin, sizes.0),
            (&b.lin, &b.facts, &lb, sizes.1),
            &strides,
            &rename_b,
            DEPTH,
        )
    }
}

/// Adds the integer bounds of every variable of `sys` that elimination finds: a bound that
/// needs rounding after combining rows (`0 ≤ j - 128·f ≤ 127` with `8 ≤ j ≤ 126` makes
/// `f = 0`) is lost when the variable is eliminated before that combination.
fn tighten_bounds(sys: &mut System) {
    let vars: BTreeSet<usize> = sys
        .nonneg
        .iter()
        .chain(&sys.zero)
        .flat_map(|l| l.terms.keys().copied())
        .collect();
    for v in vars {
        let (lo, hi) = solver::bounds(sys, v);
        if let Some(lo) = lo {
            sys.ge(&Lin::var(v), &Lin::constant(lo));
        }
        if let Some(hi) = hi {
            sys.le(&Lin::var(v), &Lin::constant(hi));
        }
    }
}

fn rename_system(s: &System, f: &impl Fn(usize) -> usize) -> System {
    let mut g = |v| f(v);
    System {
        nonneg: s.nonneg.iter().map(|l| l.rename(&mut g)).collect(),
        zero: s.zero.iter().map(|l| l.rename(&mut g)).collect(),
    }
}

/// One side of an overlap question: the offset in its own atoms, its facts, the offset in
/// the pair's variables, its size.
type OverlapSide<'a> = (&'a Lin, &'a System, &'a Lin, i128);

/// True when `sys` and "the byte ranges of `a` and `b` overlap" have no integer solution,
/// trying a split of both offsets by each stride in `strides` (largest first).
fn overlap_infeasible(
    sys: &System,
    a: OverlapSide,
    b: OverlapSide,
    strides: &[i128],
    rename_b: &impl Fn(usize) -> usize,
    depth: usize,
) -> bool {
    let (la, fa, pa, sa) = a;
    let (lb, fb, pb, sb) = b;
    // Overlap: pb - pa ∈ [-(sb - 1), sa - 1].
    let mut t = sys.clone();
    if let Some(d) = pb.sub(pa) {
        t.ge(&d, &Lin::constant(-(sb - 1)));
        t.le(&d, &Lin::constant(sa - 1));
        if infeasible(&t) {
            return true;
        }
    }
    if depth == 0 {
        return false;
    }
    for (k, &r) in strides.iter().enumerate() {
        if r < sa.max(sb) {
            continue;
        }
        let (Some((ha, loa)), Some((hb, lob))) = (split(la, r), split(lb, r)) else {
            continue;
        };
        let fits = |lo: &Lin, f: &System, size: i128| {
            f.implies_nonneg(lo)
                && lo
                    .scale(-1)
                    .and_then(|x| x.plus(r - size))
                    .is_some_and(|e| f.implies_nonneg(&e))
        };
        if !fits(&loa, fa, sa) || !fits(&lob, fb, sb) {
            continue;
        }
        let mut s2 = sys.clone();
        s2.eq(&ha, &hb.rename(&mut |v| rename_b(v)));
        let plob = lob.rename(&mut |v| rename_b(v));
        if overlap_infeasible(
            &s2,
            (&loa, fa, &loa, sa),
            (&lob, fb, &plob, sb),
            &strides[k + 1..],
            rename_b,
            depth - 1,
        ) {
            return true;
        }
    }
    false
}

/// `lin = r·H + lo` with every coefficient of `lo` in `[0, r)`.
fn split(lin: &Lin, r: i128) -> Option<(Lin, Lin)> {
    let mut h = Lin::constant(lin.constant.div_euclid(r));
    let mut lo = Lin::constant(lin.constant.rem_euclid(r));
    for (&v, &c) in &lin.terms {
        let (q, m) = (c.div_euclid(r), c.rem_euclid(r));
        if q != 0 {
            h.terms.insert(v, q);
        }
        if m != 0 {
            lo.terms.insert(v, m);
        }
    }
    Some((h, lo))
}

#[cfg(test)]
mod tests;
