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
//! preheader. An inner loop whose count changes with the outer iterations (a triangular nest)
//! is the root of a nest of its own, reserved each time the outer loop enters it.
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
use super::tape;
use super::trip_count::{invariant, trip_count, TripCount};
use crate::analysis::activity::ActiveSet;
use crate::ir::{Block, Builder, IntPred, Module, Opcode, Ty, Val};
use crate::rules::user::UserRules;
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
}

/// Where a region's batch goes: the slot for the iteration at hand.
pub struct RegionSlot {
    /// Start of the loop's (sub-)region.
    pub base: Val,
    /// Per loop from the nest's root to the slot's loop: (its iteration's index, its reserved
    /// count), both `i64`.
    pub chain: Vec<(Val, Val)>,
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
        let nests = nest_parents(loops, &counts, &by_size);
        // Loops keeping something in their iterations, and the loops around them in a nest.
        let mut kept = HashSet::new();
        let mut keeps = HashSet::new();
        for &k in &by_size {
            let keeps_bytes = blocks[&k]
                .iter()
                .any(|&(b, bytes, records)| bytes > 0 || records || !plan.exits_at(b).is_empty());
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
    /// Returns each loop's (region, count).
    pub fn reserve(
        &self,
        root: usize,
        b: &mut Builder,
        tape: Val,
        map: impl Fn(Val) -> Val,
    ) -> HashMap<usize, (Val, Val)> {
        let i64t = Ty::int(b.module().context(), 64);
        let cst = |x: u64| i64t.int_const(x);
        let mut counts: HashMap<usize, Val> = HashMap::new();
        let mut slots: HashMap<usize, Val> = HashMap::new();
        for &k in self.nest(root) {
            let r = &self.regions[&k];
            let count = r.count.emit(b, &map);
            // An inner loop's start and bound are computed before the nest whether or not the
            // loop runs; should one be poison where it does not (an overflow its guard skips),
            // the reservation must still be some fixed size.
            let count = if r.parent.is_some() {
                b.freeze(count)
            } else {
                count
            };
            // No more slots than [`MAX_REGION_BYTES`] hold: for a nested loop, its count
            // times its outer loops' slots, checked as `outer ≤ cap / count` (no overflow).
            let cap = MAX_REGION_BYTES / r.stride.max(1);
            let mut too_big = b.icmp(IntPred::LLVMIntUGT, count, cst(cap));
            if let Some(outer) = r.parent.map(|p| slots[&p]) {
                let zero = b.icmp(IntPred::LLVMIntEQ, count, cst(0));
                let divisor = b.select(zero, cst(1), count);
                let limit = b.binop(Opcode::LLVMUDiv, cst(cap), divisor);
                let over = b.icmp(IntPred::LLVMIntUGT, outer, limit);
                too_big = b.binop(Opcode::LLVMOr, too_big, over);
            }
            let count = b.select(too_big, cst(0), count);
            let s = match r.parent {
                Some(p) => b.mul(slots[&p], count),
                None => count,
            };
            slots.insert(k, s);
            counts.insert(k, count);
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
    /// (`count`): a loop's count times its parent's slots.
    pub fn slots(
        &self,
        root: usize,
        b: &mut Builder,
        count: impl Fn(usize) -> Val,
    ) -> HashMap<usize, Val> {
        let mut slots: HashMap<usize, Val> = HashMap::new();
        for &k in self.nest(root) {
            let s = match self.regions[&k].parent {
                Some(p) => b.mul(slots[&p], count(k)),
                None => count(k),
            };
            slots.insert(k, s);
        }
        slots
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
/// start value (unless a constant or argument), its last induction value and, for the root of
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
        add(k, ExitField::Last, l.iv.ty());
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
/// count's start and bound are computed before the root of that loop's nest. `order`: the
/// countable loops, outer loops first.
fn nest_parents(
    loops: &[StructuredLoop],
    counts: &[Option<TripCount>],
    order: &[usize],
) -> HashMap<usize, usize> {
    let mut parent: HashMap<usize, usize> = HashMap::new();
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
        if outer.body.contains(&l.preheader)
            && once_per_iteration(outer, l.preheader)
            && invariant(r, c.init)
            && invariant(r, c.bound)
        {
            parent.insert(k, j);
        }
    }
    parent
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
        for &(index, count) in &self.chain {
            let below = b.icmp(IntPred::LLVMIntULT, index, count);
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
        // Every index is below its count, so the flat index is below the slots reserved.
        let mut flat: Option<Val> = None;
        for &(index, count) in &self.chain {
            flat = Some(match flat {
                Some(outer) => {
                    let rows = b.mul(outer, count);
                    b.add(rows, index)
                }
                None => index,
            });
        }
        let flat = flat.unwrap_or_else(|| i64t.zero());
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
mod tests {
    use super::*;
    use crate::ir::parse_test_module;
    use inkwell::context::Context;

    /// The nest parents of a two-loop nest: outer `i < n` (header `outer`, latch `olatch`),
    /// inner loop `j` starting at `jstart`, running while `j < m` (blocks `inner`, latch
    /// `inner` itself), entered from `pre`, a block of the outer loop; `inbetween` adds a cycle
    /// around the inner loop inside the outer one.
    fn parents_of(jstart: &str, inbetween: bool) -> HashMap<usize, usize> {
        let ctx = Context::create();
        let (pre_br, olatch_br) = if inbetween {
            ("br label %inner", "br i1 %c, label %pre, label %olatch2\nolatch2:\n  br label %olatch3\nolatch3:\n  %i1 = add i64 %i, 1\n  %more.i = icmp ult i64 %i1, %n\n  br i1 %more.i, label %outer, label %exit")
        } else {
            ("br label %inner", "%i1 = add i64 %i, 1\n  %more.i = icmp ult i64 %i1, %n\n  br i1 %more.i, label %outer, label %exit")
        };
        let ir = format!(
            "define void @f(i64 %n, i64 %m, i1 %c) {{\nentry:\n  br label %outer\nouter:\n  %i = phi i64 [ 0, %entry ], [ %i1, %olatch{} ]\n  br label %pre\npre:\n  {pre_br}\ninner:\n  %j = phi i64 [ {jstart}, %pre ], [ %j1, %inner ]\n  %j1 = add i64 %j, 1\n  %more.j = icmp ult i64 %j1, %m\n  br i1 %more.j, label %inner, label %olatch\nolatch:\n  {olatch_br}\nexit:\n  ret void\n}}",
            if inbetween { "3" } else { "" }
        );
        let module = parse_test_module(&ctx, &ir);
        let m = crate::ir::Module(module.as_mut_ptr());
        let f = m.function("f").expect("f");
        let block = |name: &str| {
            f.blocks()
                .into_iter()
                .find(|b| b.as_value().name() == name)
                .expect(name)
        };
        let (outer, pre, inner) = (block("outer"), block("pre"), block("inner"));
        let olatch = if inbetween {
            block("olatch3")
        } else {
            block("olatch")
        };
        let outer_body: HashSet<Block> = f
            .blocks()
            .into_iter()
            .filter(|b| !["entry", "exit"].contains(&b.as_value().name().as_str()))
            .collect();
        let iv = |b: Block| b.instructions()[0];
        let loops = vec![
            StructuredLoop {
                header: outer,
                preheader: block("entry"),
                latch: olatch,
                iv: iv(outer),
                start: iv(outer).incoming()[0].0,
                step: iv(outer).ty().int_const(1),
                body: outer_body,
            },
            StructuredLoop {
                header: inner,
                preheader: pre,
                latch: inner,
                iv: iv(inner),
                start: iv(inner).incoming()[0].0,
                step: iv(inner).ty().int_const(1),
                body: [inner].into_iter().collect(),
            },
        ];
        let counts: Vec<Option<TripCount>> = loops.iter().map(trip_count).collect();
        assert!(counts.iter().all(Option::is_some));
        nest_parents(&loops, &counts, &[0, 1])
    }

    #[test]
    fn an_inner_loop_with_the_same_count_in_every_outer_iteration_nests() {
        assert_eq!(parents_of("0", false), HashMap::from([(1, 0)]));
        // Starting at `i` (a triangle): the count changes with the outer iteration.
        assert_eq!(parents_of("%i", false), HashMap::new());
        // Entered several times per outer iteration: its own nest.
        assert_eq!(parents_of("0", true), HashMap::new());
    }

    #[test]
    fn a_block_of_an_inner_cycle_runs_more_than_once_per_iteration() {
        let ctx = Context::create();
        let ir = "define void @f(i1 %c) {\nentry:\n  br label %loop\nloop:\n  br label %inner\ninner:\n  br i1 %c, label %inner, label %latch\nlatch:\n  br i1 %c, label %loop, label %exit\nexit:\n  ret void\n}";
        let module = parse_test_module(&ctx, ir);
        let m = crate::ir::Module(module.as_mut_ptr());
        let f = m.function("f").expect("f");
        let b = f.blocks();
        let (entry, header, inner, latch) = (b[0], b[1], b[2], b[3]);
        let l = StructuredLoop {
            header,
            preheader: entry,
            latch,
            iv: header.as_value(),
            start: header.as_value(),
            step: header.as_value(),
            body: [header, inner, latch].into_iter().collect(),
        };
        assert!(once_per_iteration(&l, header));
        assert!(!once_per_iteration(&l, inner));
        assert!(once_per_iteration(&l, latch));
    }
}
