//! The loop-indexed tape. A structured loop ([`StructuredLoop`]) whose iterations can be
//! counted where it is entered ([`super::trip_count`]) keeps what its iterations tape in one
//! *region* of the tape: the batches ([`super::batch`]) of the blocks that run at most once per
//! iteration, their predecessor indices and the exit records of inner loops leaving into them
//! are written at `region + index × stride + offset`, `index = (iv - start) / step`: no
//! capacity check, no bookkeeping per iteration. The adjoint reads them at the same addresses
//! (its counters hold the induction values).
//!
//! Loops form *nests*: an inner countable loop entered at most once per iteration of an outer
//! one, whose count is the same in every outer iteration (its start and bound are computed
//! before the outermost loop of the nest), has its region inside the outer loop's: one slot
//! per (outer iteration, inner iteration), at `flat = outer_flat × inner_count + inner_index`
//! in a sub-array of its own. The whole nest is reserved with one push at the entry of its
//! outermost loop (the *root*) and released when the adjoint leaves the root through its
//! preheader.
//!
//! A *triangular* inner loop, whose count is an affine function `slope × t + first` of its
//! parent's iteration index `t` (start and bound computed from the parent's counters by adds
//! and constant products, [`super::trip_count::slope_in`]: `j < i`, `j <= i`,
//! `j = i + 1 .. n`, `k < j` under a rectangle, steps other than 1 where the distance changes
//! by a multiple of the inner step), nests too, laid out exactly: the rows of one execution of
//! the parent, `max(0, first + slope × t)` slots each, follow one another, the row of `t`
//! starting at their sum before it ([`rows`]: `slope × t(t-1)/2 + first × t` up to where the
//! rows stop being positive), and the executions of the parent follow one another
//! (`flat = parent_execution × rows(parent count) + rows(t) + inner_index`). `first` is
//! computed where the nest is reserved, from the count at the parent's first iteration (or
//! last, when the count grows; [`triangle_count`]), so the nest reserves the slots the
//! iterations its exit tests allow use, no more (plus, per parent execution, at most one row
//! of `|slope|` header runs where a guard stops entering the loop). The slope is checked
//! statically; the size at reservation, like [`MAX_REGION_BYTES`]: a triangle whose rows would
//! not fit gets none ([`NO_ROWS`]), and its iterations push. A triangle's parent is no triangle
//! (a loop whose count is affine in a triangle's index is a nest of its own), and a loop whose
//! count is not affine in its parent's index (an unrolled loop's `⌊t/4⌋`, the remainder's
//! `t mod 4`, a bound loaded in the parent) is the root of a nest of its own, reserved each
//! time the parent enters it; so is a triangle whose own nest would hold inner loops whose
//! counts depend on the loops around it (`k < j` inside `i = j + 1 .. n`: in the triangle's
//! nest they would each be roots).
//!
//! The count bounds the iterations the exit test allows, so iterations a `break` ends early
//! only leave slots unused. Correct for every trip count: an iteration whose index is not below
//! its loop's reserved count, or whose outer iterations' are not (the count was too small, say
//! the test relies on wrap-around), pushes its batch onto the tape as usual, and the adjoint,
//! comparing the same indices with the same counts, pops exactly those. Those comparisons (a
//! compare and a branch on registers per batch, where the ordinary push loads, compares and
//! stores the tape's size and capacity) mostly stay in the optimised code: LLVM rarely proves
//! an index below its count.
//!
//! The forward sweep records, where a root exits, its nest's addresses and counts (with the
//! last induction value), so the adjoint has them as soon as it enters the nest backwards.

use super::batch;
use super::cfg::ReverseCfg;
use super::plan::{ReversePlan, StructuredLoop};
use super::trip_count::{counters, invariant, trip_count, Counter, TripCount};
use crate::analysis::activity::ActiveSet;
use crate::ir::{Block, Builder, IntPred, Module, Opcode, Ty, Val};
use crate::rules::user::UserRules;
use crate::tape;
use std::collections::{HashMap, HashSet};

/// Regions larger than this are not reserved (the iterations push as usual): a count that
/// large comes from an exit test that does not bound the loop (it leaves by a `break`). In a
/// nest, the bound is on each loop's slots (its count times its outer loops').
const MAX_REGION_BYTES: u64 = 1 << 32;

/// The loop-indexed layout of one derived pair, computed alike by both sweeps.
#[derive(Default)]
pub struct LoopTapes {
    /// Structured loop (index into [`ReversePlan::loops`]) → its region.
    regions: HashMap<usize, Region>,
    /// Block written into a region → where.
    places: HashMap<Block, Place>,
}

/// Where a block's bytes go in its loop's iterations.
#[derive(Clone, Copy, Debug)]
pub struct Place {
    /// The structured loop.
    pub lp: usize,
    /// Offset of the block's first batch in an iteration's bytes; its batches follow one
    /// another.
    pub batches: u64,
    /// Offset of the predecessor index, when the block records one (after its batches).
    pub predecessor: Option<u64>,
    /// Offset of the block's exit record ([`exit_record`]), when loops exit into it (last).
    pub exit: Option<u64>,
}

/// The region of one loop.
pub struct Region {
    /// Bytes per iteration.
    pub stride: u64,
    /// Whether the stride is not 0 (known before the strides: exit records depend on it).
    keeps: bool,
    count: TripCount,
    /// The loop in whose iterations this one's executions have their slots, for a loop nested
    /// in another's region; `None` for the root of a nest.
    parent: Option<usize>,
    /// For a root: the loops of its nest, itself first, each after its parent.
    nest: Vec<usize>,
    /// For a loop whose count is affine in its parent's iteration index: how.
    triangle: Option<Triangle>,
}

/// The count of a triangular loop as an affine function of its parent's iteration index `t`:
/// `slope × t + first`, `first` (its count at `t = 0`) computed where the nest is reserved.
pub struct Triangle {
    pub slope: i64,
    /// The parent's counters whose values at the nest's entry give the count at any `t`.
    counters: Vec<Counter>,
}

/// The reserved count of a triangular loop whose rows would not fit ([`LoopTapes::reserve`]):
/// they are empty, and its iterations push. No `first` is this low (`|slope × t| < 2^53`).
const NO_ROWS: i64 = i64::MIN;

/// Where a region's batch goes: the slot for the iteration at hand.
pub struct RegionSlot {
    /// Start of the loop's (sub-)region.
    pub base: Val,
    /// Per loop from the nest's root to the slot's loop: its iteration's index, its reserved
    /// count (both `i64`) and its slope when it is a triangle ([`LoopTapes::slope`]).
    pub chain: Vec<(Val, Val, Option<i64>)>,
    pub stride: u64,
    /// Offset of the batch in the iteration's bytes.
    pub offset: u64,
}

impl LoopTapes {
    /// The regions of `f`'s structured loops.
    pub fn new(
        m: Module,
        cfg: &ReverseCfg,
        plan: &ReversePlan,
        active: &ActiveSet,
        rules: &UserRules,
    ) -> LoopTapes {
        let loops = plan.loops();
        let counts: Vec<Option<TripCount>> = loops
            .iter()
            .map(|l| trip_count(l).filter(|_| enters_only_the_loop(l)))
            .collect();
        // The blocks of each countable loop's iterations, with their batches' bytes and
        // whether they record a predecessor.
        let mut blocks: HashMap<usize, Vec<(Block, u64, bool)>> = HashMap::new();
        for (k, l) in loops.iter().enumerate() {
            if counts[k].is_none() {
                continue;
            }
            let mut v = Vec::new();
            for &b in &cfg.order {
                if l.body.contains(&b) && once_per_iteration(l, b) {
                    let (batches, _) = batch::batches(m, b, active, rules, plan);
                    let bytes: u64 = batches.iter().map(|x| x.bytes).sum();
                    v.push((b, bytes, plan.records_predecessor(cfg, b)));
                }
            }
            blocks.insert(k, v);
        }
        // Outer loops first: a loop's body is larger than those of the loops inside it.
        let mut by_size: Vec<usize> = blocks.keys().copied().collect();
        by_size.sort_by_key(|&k| (std::cmp::Reverse(loops[k].body.len()), k));
        let (nests, mut triangles) = nest_parents(loops, &counts, &by_size);
        // Loops keeping something in their iterations, and the loops around them in a nest.
        let mut kept = HashSet::new();
        let mut keeps = HashSet::new();
        // Inner loops first: an iteration keeps the exit record of a loop inside it when that
        // loop records its start or last value, or heads a nest of its own that keeps bytes.
        for &k in by_size.iter().rev() {
            let exit_records = |b: Block| {
                plan.exits_at(b).iter().any(|&x| {
                    plan.records_loop_exit(x) || (kept.contains(&x) && !nests.contains_key(&x))
                })
            };
            let keeps_bytes = blocks[&k]
                .iter()
                .any(|&(b, bytes, records)| bytes > 0 || records || exit_records(b));
            if keeps_bytes {
                keeps.insert(k);
            }
            let mut at = Some(k);
            while let (true, Some(x)) = (keeps_bytes, at) {
                kept.insert(x);
                at = nests.get(&x).copied();
            }
        }
        let mut out = LoopTapes::default();
        let mut counts = counts;
        for &k in &by_size {
            if !kept.contains(&k) {
                continue;
            }
            let Some(count) = counts[k].take() else {
                continue;
            };
            let parent = nests.get(&k).copied();
            if let Some(p) = parent {
                let root = out.root(p);
                if let Some(r) = out.regions.get_mut(&root) {
                    r.nest.push(k);
                }
            }
            let nest = if parent.is_none() {
                vec![k]
            } else {
                Vec::new()
            };
            let region = Region {
                stride: 0,
                keeps: keeps.contains(&k),
                count,
                parent,
                nest,
                triangle: triangles.remove(&k),
            };
            out.regions.insert(k, region);
        }
        // The layout of each iteration, now that the exit records' sizes are known.
        for &k in &by_size {
            if !out.regions.contains_key(&k) {
                continue;
            }
            let mut stride = 0;
            let mut places = Vec::new();
            for &(b, bytes, records) in &blocks[&k] {
                let (_, exit) = exit_record(m, plan, &out, b);
                if bytes == 0 && !records && exit == 0 {
                    continue;
                }
                let predecessor = records.then_some(stride + bytes);
                let after = stride + bytes + if records { 4 } else { 0 };
                let place = Place {
                    lp: k,
                    batches: stride,
                    predecessor,
                    exit: (exit > 0).then_some(after),
                };
                places.push((b, place));
                stride = after + exit;
            }
            for (b, place) in places {
                out.places.insert(b, place);
            }
            if let Some(r) = out.regions.get_mut(&k) {
                debug_assert_eq!(r.keeps, stride > 0);
                r.stride = stride;
            }
        }
        out
    }

    /// The slope of structured loop `k`'s count in its parent's iteration index, when it is a
    /// triangle (see [`Triangle`]).
    pub fn slope(&self, k: usize) -> Option<i64> {
        self.regions
            .get(&k)
            .and_then(|r| r.triangle.as_ref())
            .map(|t| t.slope)
    }

    /// The region of structured loop `k`, if it has one.
    pub fn region(&self, k: usize) -> Option<&Region> {
        self.regions.get(&k)
    }

    /// True when loop `k` has a region and is the root of its nest (reserves and releases it).
    pub fn is_root(&self, k: usize) -> bool {
        self.regions.get(&k).is_some_and(|r| r.parent.is_none())
    }

    /// The loops of the nest rooted at `k` (itself first), empty unless `k` is a root.
    pub fn nest(&self, k: usize) -> &[usize] {
        self.regions.get(&k).map_or(&[], |r| r.nest.as_slice())
    }

    /// The loops from the root of `k`'s nest down to `k`.
    pub fn chain(&self, k: usize) -> Vec<usize> {
        let mut v = vec![k];
        while let Some(p) = self
            .regions
            .get(v.last().unwrap_or(&k))
            .and_then(|r| r.parent)
        {
            v.push(p);
        }
        v.reverse();
        v
    }

    fn root(&self, k: usize) -> usize {
        self.chain(k)[0]
    }

    /// Where block `b`'s batches (and predecessor index) go in its loop's region, if they do.
    pub fn place(&self, b: Block) -> Option<Place> {
        self.places.get(&b).copied()
    }

    /// The root of a nest whose preheader `b` is (its nest is reserved before `b`'s branch).
    pub fn reserved_in(&self, plan: &ReversePlan, b: Block) -> Option<usize> {
        self.regions
            .iter()
            .find(|(&k, r)| r.parent.is_none() && plan.loops()[k].preheader == b)
            .map(|(&k, _)| k)
    }

    /// Emits the counts of the iterations of the nest rooted at `root` from its entry values
    /// (`map` gives the forward sweep's copy of a source value) and its reservation on `tape`.
    /// Returns each loop's (region, reserved count).
    pub fn reserve(
        &self,
        plan: &ReversePlan,
        root: usize,
        b: &mut Builder,
        tape: Val,
        map: impl Fn(Val) -> Val,
    ) -> HashMap<usize, (Val, Val)> {
        let i64t = Ty::int(b.module().context(), 64);
        let cst = |x: u64| i64t.int_const(x);
        let root_loop = &plan.loops()[root];
        let fixed = |v: Val| invariant(root_loop, v);
        let mut counts: HashMap<usize, Val> = HashMap::new();
        let mut slots: HashMap<usize, Val> = HashMap::new();
        for &k in self.nest(root) {
            let r = &self.regions[&k];
            // No more slots than [`MAX_REGION_BYTES`] hold.
            let cap = MAX_REGION_BYTES / r.stride.max(1);
            let count = match (&r.triangle, r.parent) {
                (Some(tri), Some(p)) => {
                    let outer = self.regions[&p].parent.map(|g| slots[&g]);
                    triangle_count(b, r, tri, counts[&p], outer, cap, &fixed, &map)
                }
                _ => {
                    let count = r.count.emit(b, &map);
                    // An inner loop's start and bound are computed before the nest whether or
                    // not the loop runs; should one be poison where it does not (an overflow
                    // its guard skips), the reservation must still be some fixed size.
                    let count = if r.parent.is_some() {
                        b.freeze(count)
                    } else {
                        count
                    };
                    // For a nested loop, its count times its outer loops' slots, checked as
                    // `outer ≤ cap / count` (no overflow).
                    let mut too_big = b.icmp(IntPred::LLVMIntUGT, count, cst(cap));
                    if let Some(outer) = r.parent.map(|p| slots[&p]) {
                        let zero = b.icmp(IntPred::LLVMIntEQ, count, cst(0));
                        let divisor = b.select(zero, cst(1), count);
                        let limit = b.binop(Opcode::LLVMUDiv, cst(cap), divisor);
                        let over = b.icmp(IntPred::LLVMIntUGT, outer, limit);
                        too_big = b.binop(Opcode::LLVMOr, too_big, over);
                    }
                    b.select(too_big, cst(0), count)
                }
            };
            counts.insert(k, count);
            let s = self.slots_of(k, b, &counts, &slots);
            slots.insert(k, s);
        }
        let (offsets, total) = self.layout(root, b, &slots);
        let base = b.call_function(tape::push_helper(b.module()), &[tape, total]);
        let mut out = HashMap::new();
        for &k in self.nest(root) {
            let at = match offsets.get(&k) {
                Some(&Some(off)) => b.gep(Ty::int(b.module().context(), 8), base, &[off], true),
                _ => base,
            };
            out.insert(k, (at, counts[&k]));
        }
        out
    }

    /// Emits the slots of each loop of the nest rooted at `root` from their reserved counts
    /// (`count`, see [`LoopTapes::reserve`]).
    pub fn slots(
        &self,
        root: usize,
        b: &mut Builder,
        count: impl Fn(usize) -> Val,
    ) -> HashMap<usize, Val> {
        let counts: HashMap<usize, Val> = self.nest(root).iter().map(|&k| (k, count(k))).collect();
        let mut slots: HashMap<usize, Val> = HashMap::new();
        for &k in self.nest(root) {
            let s = self.slots_of(k, b, &counts, &slots);
            slots.insert(k, s);
        }
        slots
    }

    /// Emits the slots of loop `k` from the reserved counts and its outer loops' slots: a
    /// root's count; a rectangle's count times its parent's slots; a triangle's rows (the sum
    /// of its counts over one execution of its parent, [`rows`]) times the executions of its
    /// parent (the slots of the parent's parent).
    fn slots_of(
        &self,
        k: usize,
        b: &mut Builder,
        counts: &HashMap<usize, Val>,
        slots: &HashMap<usize, Val>,
    ) -> Val {
        let r = &self.regions[&k];
        match (r.parent, &r.triangle) {
            (None, _) => counts[&k],
            (Some(p), None) => b.mul(slots[&p], counts[&k]),
            (Some(p), Some(tri)) => {
                let i64t = Ty::int(b.module().context(), 64);
                let first = counts[&k];
                let none = b.icmp(IntPred::LLVMIntEQ, first, i64t.int_const(NO_ROWS as u64));
                let n = rows(b, tri.slope, first, counts[&p]);
                let n = b.select(none, i64t.zero(), n);
                match self.regions[&p].parent {
                    Some(g) => b.mul(slots[&g], n),
                    None => n,
                }
            }
        }
    }

    /// Emits the byte offset of each loop's sub-region in the nest rooted at `root` (`None`:
    /// at its start) and the nest's size, from the loops' slots ([`LoopTapes::slots`]),
    /// `stride` bytes each. The forward sweep reserves and the adjoint releases exactly these
    /// bytes.
    pub fn layout(
        &self,
        root: usize,
        b: &mut Builder,
        slots: &HashMap<usize, Val>,
    ) -> (HashMap<usize, Option<Val>>, Val) {
        let i64t = Ty::int(b.module().context(), 64);
        let mut offsets = HashMap::new();
        let mut total: Option<Val> = None;
        for &k in self.nest(root) {
            let r = &self.regions[&k];
            if r.stride == 0 && k != root {
                continue;
            }
            let bytes = b.mul(slots[&k], i64t.int_const(r.stride));
            total = Some(match total {
                None => {
                    offsets.insert(k, None);
                    bytes
                }
                Some(t) => {
                    offsets.insert(k, Some(t));
                    b.add(t, bytes)
                }
            });
        }
        (offsets, total.unwrap_or_else(|| i64t.zero()))
    }
}

/// What the forward sweep keeps where structured loops exit, in one push per exit block (or in
/// the slot of the loop around the exit, see [`Place::exit`]): per loop leaving there, its
/// start value (unless a constant or argument), its last induction value (unless known:
/// [`ReversePlan::records_last_iv`]) and, for the root of
/// a nest, each of the nest's loops' region address (when it keeps bytes) and count.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ExitField {
    Start,
    Last,
    Base,
    Count,
}

/// The layout of exit block `b`'s record: (loop, field, type, byte offset), and its size.
pub fn exit_record(
    m: Module,
    plan: &ReversePlan,
    tapes: &LoopTapes,
    b: Block,
) -> (Vec<(usize, ExitField, Ty, u64)>, u64) {
    let ctx = m.context();
    let mut fields = Vec::new();
    let mut bytes = 0;
    for &k in plan.exits_at(b) {
        let l = &plan.loops()[k];
        let mut add = |n: usize, f: ExitField, ty: Ty| {
            fields.push((n, f, ty, bytes));
            bytes += m.alloc_size(ty);
        };
        if l.start.is_instruction() {
            add(k, ExitField::Start, l.start.ty());
        }
        if plan.records_last_iv(k) {
            add(k, ExitField::Last, l.iv.ty());
        }
        for &n in tapes.nest(k) {
            if tapes.regions[&n].keeps {
                add(n, ExitField::Base, Ty::ptr(ctx));
            }
            add(n, ExitField::Count, Ty::int(ctx, 64));
        }
    }
    (fields, bytes)
}

/// The loop each countable loop is nested in (see the module docs): the innermost countable
/// loop around it, when it enters the inner loop at most once per iteration and the inner
/// count's start and bound are computed before the root of that loop's nest (a rectangle), or
/// the count is affine in that loop's iteration index ([`TripCount::slope`]; a triangle, the
/// second map), the loop around being no triangle itself. `order`: the countable loops, outer
/// loops first.
fn nest_parents(
    loops: &[StructuredLoop],
    counts: &[Option<TripCount>],
    order: &[usize],
) -> (HashMap<usize, usize>, HashMap<usize, Triangle>) {
    let mut parent: HashMap<usize, usize> = HashMap::new();
    let mut triangles: HashMap<usize, Triangle> = HashMap::new();
    for &k in order {
        let (l, Some(c)) = (&loops[k], &counts[k]) else {
            continue;
        };
        let around = order
            .iter()
            .copied()
            .filter(|&j| j != k && loops[j].body.contains(&l.header))
            .min_by_key(|&j| loops[j].body.len());
        let Some(j) = around else {
            continue;
        };
        let mut root = j;
        while let Some(&p) = parent.get(&root) {
            root = p;
        }
        let r = &loops[root];
        let outer = &loops[j];
        if !(outer.body.contains(&l.preheader) && once_per_iteration(outer, l.preheader)) {
            continue;
        }
        let fixed = |v: Val| invariant(r, v);
        if fixed(c.init) && fixed(c.bound) {
            parent.insert(k, j);
            continue;
        }
        // A triangle's own nest would hold the loops inside it whose counts are the same in
        // all its iterations (`k < j` inside `i = j + 1 .. n`): when they depend on the loops
        // around it, it stays a root, so that they keep one region per execution of it rather
        // than each reserving one per execution of their own.
        let loses_inner = order.iter().any(|&q| {
            let Some(cq) = &counts[q] else {
                return false;
            };
            q != k
                && l.body.contains(&loops[q].header)
                && invariant(l, cq.init)
                && invariant(l, cq.bound)
                && !(fixed(cq.init) && fixed(cq.bound))
        });
        if triangles.contains_key(&j) || loses_inner {
            continue;
        }
        // The counters of the loop around whose values are known at the nest's entry.
        let counters: Vec<Counter> = counters(outer)
            .into_iter()
            .filter(|x| fixed(x.init))
            .collect();
        if let Some(slope) = c.slope(&fixed, &counters) {
            parent.insert(k, j);
            triangles.insert(k, Triangle { slope, counters });
        }
    }
    (parent, triangles)
}

/// Emits the reserved count of triangular loop `r` (see [`Triangle`]) whose parent's reserved
/// count is `n` (at most `2^32`), with `outer` the slots of the parent's parent (`None` when
/// the parent is the root): the `first` of its rows `max(0, first + slope × t)`, else
/// [`NO_ROWS`] when a row or the nest's slots for it would pass `cap`.
///
/// The count its exit test allows is `first + slope × t` (affine) wherever the loop is entered
/// with its start before its bound; elsewhere (a guard skips it) the count computed from the
/// start and bound is of a test run past its bound (clamped at one header run, or wrapped
/// around for `!=`). Start and bound being affine, where the loop is entered is a half-line:
/// it includes the first parent iteration when the count falls (`slope < 0`), the last when
/// it grows, so `first` comes from the count at that end. The rows are then exactly what the
/// iterations that enter the loop use (every row with a positive affine count, at most the
/// one row of up to `|slope|` header runs past where the loop stops being entered, is used),
/// and an iteration past its row (a `break`-ended test that wraps around, a skipped loop's
/// header run) pushes.
#[allow(clippy::too_many_arguments)]
fn triangle_count(
    b: &mut Builder,
    r: &Region,
    tri: &Triangle,
    n: Val,
    outer: Option<Val>,
    cap: u64,
    fixed: &dyn Fn(Val) -> bool,
    map: &dyn Fn(Val) -> Val,
) -> Val {
    let i64t = Ty::int(b.module().context(), 64);
    let cst = |x: i64| i64t.int_const(x as u64);
    let last = b.sub(n, cst(1));
    // The start and bound are rebuilt at values of the counters the loop may never reach:
    // frozen, so that what they give is some fixed number (checked below).
    let at = if tri.slope < 0 { i64t.zero() } else { last };
    let count = r.count.emit_at(b, at, fixed, &tri.counters, map);
    let count = b.freeze(count);
    // No overflow: |slope| ≤ 2^21, n ≤ 2^32, a count at most `cap` (checked).
    let first = if tri.slope < 0 {
        count
    } else {
        let moved = b.mul(last, cst(tri.slope));
        b.sub(count, moved)
    };
    let mut ok = b.icmp(IntPred::LLVMIntNE, n, i64t.zero());
    let mut all = |b: &mut Builder, c: Val| ok = b.binop(Opcode::LLVMAnd, ok, c);
    let c = b.icmp(IntPred::LLVMIntULE, count, cst(cap as i64));
    all(b, c);
    // The rows sum to at most n × the longer of the rows at the ends (that at the end `count`
    // was computed at is `count`): checked as `n ≤ cap / longer`.
    let moved = b.mul(last, cst(tri.slope));
    let other = if tri.slope < 0 {
        b.add(first, moved)
    } else {
        first
    };
    let positive = b.icmp(IntPred::LLVMIntSGT, other, i64t.zero());
    let other = b.select(positive, other, i64t.zero());
    let more = b.icmp(IntPred::LLVMIntUGT, other, count);
    let longer = b.select(more, other, count);
    let zero = b.icmp(IntPred::LLVMIntEQ, longer, i64t.zero());
    let divisor = b.select(zero, cst(1), longer);
    let limit = b.binop(Opcode::LLVMUDiv, cst(cap as i64), divisor);
    let c = b.icmp(IntPred::LLVMIntULE, n, limit);
    all(b, c);
    if let Some(outer) = outer {
        let sum = rows(b, tri.slope, first, n);
        let zero = b.icmp(IntPred::LLVMIntEQ, sum, i64t.zero());
        let divisor = b.select(zero, cst(1), sum);
        let limit = b.binop(Opcode::LLVMUDiv, cst(cap as i64), divisor);
        let c = b.icmp(IntPred::LLVMIntULE, outer, limit);
        all(b, c);
    }
    b.select(ok, first, cst(NO_ROWS))
}

/// Emits the row of a triangular loop at its parent's index `t`: `max(0, first + slope × t)`.
fn row(b: &mut Builder, slope: i64, first: Val, t: Val) -> Val {
    let i64t = Ty::int(b.module().context(), 64);
    let moved = b.mul(t, i64t.int_const(slope as u64));
    let at = b.add(first, moved);
    let positive = b.icmp(IntPred::LLVMIntSGT, at, i64t.zero());
    b.select(positive, at, i64t.zero())
}

/// Emits the slots of a triangular loop's rows ([`row`]) in the parent iterations before the
/// `t`-th (with `t` the parent's count: the rows of one execution of the parent). The rows are
/// positive on a half-line, so the sum is the affine sum `slope × m(m-1)/2 + first × m` up to
/// where they stop (`slope < 0`), or that from where they start taken off the whole
/// (`slope > 0`). Exact in wrapping `i64` arithmetic for `t ≤ 2^32` whenever the true sum
/// fits ([`triangle_count`] checks it does).
fn rows(b: &mut Builder, slope: i64, first: Val, t: Val) -> Val {
    let i64t = Ty::int(b.module().context(), 64);
    let cst = |x: i64| i64t.int_const(x as u64);
    let affine = |b: &mut Builder, m: Val| {
        let by_first = b.mul(first, m);
        let before = b.sub(m, cst(1));
        let pairs = b.mul(m, before);
        let half = b.binop(Opcode::LLVMLShr, pairs, cst(1));
        let by_slope = b.mul(half, cst(slope));
        b.add(by_slope, by_first)
    };
    let umin = |b: &mut Builder, x: Val, y: Val| {
        let less = b.icmp(IntPred::LLVMIntULT, x, y);
        b.select(less, x, y)
    };
    match slope.signum() {
        0 => {
            let positive = b.icmp(IntPred::LLVMIntSGT, first, i64t.zero());
            let r = b.select(positive, first, i64t.zero());
            b.mul(r, t)
        }
        -1 => {
            // Rows before `ceil(first / |slope|)` are positive.
            let c = slope.unsigned_abs() as i64;
            let stop = if c == 1 {
                first
            } else {
                let up = b.add(first, cst(c - 1));
                b.binop(Opcode::LLVMUDiv, up, cst(c))
            };
            let positive = b.icmp(IntPred::LLVMIntSGT, first, i64t.zero());
            let stop = b.select(positive, stop, i64t.zero());
            let m = umin(b, t, stop);
            affine(b, m)
        }
        _ => {
            // Rows from `ceil(-first / slope)` on are not negative.
            let neg = b.sub(i64t.zero(), first);
            let start = if slope == 1 {
                neg
            } else {
                let up = b.add(neg, cst(slope - 1));
                b.binop(Opcode::LLVMUDiv, up, cst(slope))
            };
            let negative = b.icmp(IntPred::LLVMIntSLT, first, i64t.zero());
            let start = b.select(negative, start, i64t.zero());
            let m = umin(b, t, start);
            let whole = affine(b, t);
            let skipped = affine(b, m);
            b.sub(whole, skipped)
        }
    }
}

/// The index of the iteration in which structured loop `l`'s induction variable is `iv`
/// (started at `start`), as an `i64`.
pub fn iteration_index(b: &mut Builder, l: &StructuredLoop, iv: Val, start: Val) -> Val {
    let i64t = Ty::int(b.module().context(), 64);
    let step = l.step.const_int_sext().unwrap_or(1);
    let dist = if step > 0 {
        b.sub(iv, start)
    } else {
        b.sub(start, iv)
    };
    let dist = b.zext_or_trunc(dist, i64t);
    match step.unsigned_abs() {
        1 => dist,
        c => b.binop(Opcode::LLVMUDiv, dist, i64t.int_const(c)),
    }
}

impl RegionSlot {
    /// Emits the slot's address: in the region when every index of the chain is below its
    /// count, else what `fallback` emits (the ordinary push or pop of the batch). Leaves the
    /// builder in a new block after the choice.
    pub fn emit(&self, b: &mut Builder, fallback: impl FnOnce(&mut Builder) -> Val) -> Val {
        let ctx = b.module().context();
        let i64t = Ty::int(ctx, 64);
        let f = b.current_block().parent();
        let mut inside: Option<Val> = None;
        for (n, &(index, count, slope)) in self.chain.iter().enumerate() {
            // A triangle's row at the parent's index `t` ([`row`]), none when it has no rows.
            let limit = match (slope, n.checked_sub(1).map(|p| self.chain[p].0)) {
                (Some(slope), Some(t)) => {
                    let row = row(b, slope, count, t);
                    let none = b.icmp(IntPred::LLVMIntEQ, count, i64t.int_const(NO_ROWS as u64));
                    b.select(none, i64t.zero(), row)
                }
                _ => count,
            };
            let below = b.icmp(IntPred::LLVMIntULT, index, limit);
            inside = Some(match inside {
                Some(x) => b.binop(Opcode::LLVMAnd, x, below),
                None => below,
            });
        }
        let inside = inside.unwrap_or_else(|| Ty::int(ctx, 1).zero());
        let (fast, slow, join) = (
            f.append_block("in.region"),
            f.append_block("past.region"),
            f.append_block(""),
        );
        b.cond_br(inside, fast, slow);
        b.position_at_end(fast);
        // Every index is below its count (or row), so the flat index is below the slots
        // reserved: a rectangle's rows are `count` long, a triangle's rows of one execution
        // of its parent sum to `rows(parent count)` and start at `rows(t)`.
        let mut flats: Vec<Val> = Vec::new();
        for (n, &(index, count, slope)) in self.chain.iter().enumerate() {
            let flat = match (n.checked_sub(1), slope) {
                (None, _) => index,
                (Some(p), None) => {
                    let rows = b.mul(flats[p], count);
                    b.add(rows, index)
                }
                (Some(p), Some(slope)) => {
                    let (t, n_parent, _) = self.chain[p];
                    let before = rows(b, slope, count, t);
                    let in_execution = b.add(before, index);
                    match p.checked_sub(1) {
                        Some(g) => {
                            let per_execution = rows(b, slope, count, n_parent);
                            let executions = b.mul(flats[g], per_execution);
                            b.add(executions, in_execution)
                        }
                        None => in_execution,
                    }
                }
            };
            flats.push(flat);
        }
        let flat = flats.last().copied().unwrap_or_else(|| i64t.zero());
        let at = b.mul(flat, i64t.int_const(self.stride));
        let at = b.add(at, i64t.int_const(self.offset));
        let in_region = b.gep(Ty::int(ctx, 8), self.base, &[at], true);
        b.br(join);
        b.position_at_end(slow);
        let pushed = fallback(b);
        let slow_end = b.current_block();
        b.br(join);
        b.position_at_end(join);
        let slot = b.phi(Ty::ptr(ctx));
        slot.add_incoming(in_region, fast);
        slot.add_incoming(pushed, slow_end);
        slot
    }
}

/// True when the preheader goes only to the loop, so the region pushed there is popped on every
/// path that pushed it (where the adjoint leaves the loop).
fn enters_only_the_loop(l: &StructuredLoop) -> bool {
    l.preheader
        .terminator()
        .is_some_and(|t| t.opcode() == Opcode::LLVMBr && t.successors() == [l.header])
}

/// True when block `b` of loop `l` runs at most once per iteration: no cycle through it avoids
/// the header (it is in no inner loop).
fn once_per_iteration(l: &StructuredLoop, b: Block) -> bool {
    if b == l.header {
        return true;
    }
    let mut seen = HashSet::new();
    let mut stack: Vec<Block> = successors(b);
    while let Some(x) = stack.pop() {
        if x == b {
            return false;
        }
        if x == l.header || !l.body.contains(&x) || !seen.insert(x) {
            continue;
        }
        stack.extend(successors(x));
    }
    true
}

fn successors(b: Block) -> Vec<Block> {
    b.terminator().map(|t| t.successors()).unwrap_or_default()
}

#[cfg(test)]
mod tests;
