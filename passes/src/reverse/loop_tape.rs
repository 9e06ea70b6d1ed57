//! The loop-indexed tape. A structured loop ([`StructuredLoop`]) whose iterations can be
//! counted where it is entered gets one *region* of the tape for all of them: the forward sweep
//! reserves `count × stride` bytes with one push in the preheader, and the batches
//! ([`super::batch`]) of the blocks that run at most once per iteration are written at
//! `region + index × stride + offset`, `index = (iv - start) / step`: no capacity check, no
//! bookkeeping per iteration. The adjoint reads them at the same addresses (its counter holds
//! `iv`) and releases the region when it leaves the loop through the preheader.
//!
//! The count comes from the loop's exit test (in the latch or the header: a comparison of a
//! header phi stepping by a constant, or of its increment, with a value the loop does not
//! change). It bounds the iterations that test allows, so iterations a `break` ends early
//! only leave slots unused. Correct for every trip count: an iteration whose index is not below
//! the reserved count (the count was too small, say the test relies on wrap-around) pushes its
//! batch onto the tape as usual, and the adjoint, comparing the same index with the same count,
//! pops exactly those. That comparison (a compare and a branch on registers per batch, where
//! the ordinary push loads, compares and stores the tape's size and capacity) mostly stays in
//! the optimised code: LLVM rarely proves the index below the count.
//!
//! The forward sweep pushes the region's address and count where the loop exits, after its
//! last induction value, so the adjoint has them as soon as it enters the loop backwards.

use super::batch;
use super::cfg::ReverseCfg;
use super::plan::{ReversePlan, StructuredLoop};
use super::tape;
use crate::analysis::activity::ActiveSet;
use crate::ir::{Block, Builder, IntPred, Module, Opcode, Ty, Val};
use crate::rules::user::UserRules;
use std::collections::HashMap;

/// Regions larger than this are not reserved (the iterations push as usual): a count that
/// large comes from an exit test that does not bound the loop (it leaves by a `break`).
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
}

/// The region of one loop.
pub struct Region {
    /// Bytes per iteration.
    pub stride: u64,
    count: TripCount,
}

/// The exit test `v PRED bound` (true: the loop goes on) of a header phi `p` stepping by
/// `step`, where `v` is `p` (`ahead` 0) or its increment (`ahead` 1): in the `n`-th execution of
/// the header (from 0), `v = init + (n + ahead) × step`.
struct TripCount {
    init: Val,
    ahead: i64,
    step: i64,
    pred: IntPred,
    bound: Val,
}

/// Where a region's batch goes: the slot for the iteration at hand.
pub struct RegionSlot {
    /// Start of the region.
    pub base: Val,
    /// Iterations reserved (`i64`).
    pub count: Val,
    /// The iteration's index (`i64`).
    pub index: Val,
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
        let mut out = LoopTapes::default();
        for (k, l) in plan.loops().iter().enumerate() {
            let Some(count) = trip_count(l) else {
                continue;
            };
            if !enters_only_the_loop(l) {
                continue;
            }
            let mut stride = 0;
            let mut places = Vec::new();
            for &b in &cfg.order {
                if !l.body.contains(&b) || !once_per_iteration(l, b) {
                    continue;
                }
                let (batches, _) = batch::batches(m, b, active, rules, plan);
                let bytes: u64 = batches.iter().map(|x| x.bytes).sum();
                let records = plan.records_predecessor(cfg, b);
                if bytes > 0 || records {
                    let predecessor = records.then_some(stride + bytes);
                    places.push((
                        b,
                        Place {
                            lp: k,
                            batches: stride,
                            predecessor,
                        },
                    ));
                    stride += bytes + if records { 4 } else { 0 };
                }
            }
            if stride == 0 {
                continue;
            }
            for (b, place) in places {
                out.places.insert(b, place);
            }
            out.regions.insert(k, Region { stride, count });
        }
        out
    }

    /// The region of structured loop `k`, if it has one.
    pub fn region(&self, k: usize) -> Option<&Region> {
        self.regions.get(&k)
    }

    /// Where block `b`'s batches (and predecessor index) go in its loop's region, if they do.
    pub fn place(&self, b: Block) -> Option<Place> {
        self.places.get(&b).copied()
    }

    /// The loop whose preheader `b` is, when that loop has a region (reserved before `b`'s
    /// branch).
    pub fn reserved_in(&self, plan: &ReversePlan, b: Block) -> Option<usize> {
        self.regions
            .keys()
            .copied()
            .find(|&k| plan.loops()[k].preheader == b)
    }
}

impl Region {
    /// Emits the count of iterations (an `i64`) from the loop's entry values (`map` gives the
    /// forward sweep's copy of a source value), and the reservation of the region on `tape`.
    /// Returns (region, count).
    pub fn reserve(&self, b: &mut Builder, tape: Val, map: impl Fn(Val) -> Val) -> (Val, Val) {
        let i64t = Ty::int(b.module().context(), 64);
        let t = &self.count;
        let (init, bound) = (map(t.init), map(t.bound));
        let ty = init.ty();
        let a = if t.ahead == 0 {
            init
        } else {
            b.add(init, ty.int_const((t.step * t.ahead) as u64))
        };
        let c = t.step.unsigned_abs();
        let wide = |b: &mut Builder, v: Val| b.zext_or_trunc(v, i64t);
        // Distance from `a` to `bound` in the direction of the step, as an unsigned number.
        let dist = if t.step > 0 {
            b.sub(bound, a)
        } else {
            b.sub(a, bound)
        };
        let dist = wide(b, dist);
        let cst = |x: u64| i64t.int_const(x);
        let div = |b: &mut Builder, v: Val| {
            if c == 1 {
                v
            } else {
                b.binop(Opcode::LLVMUDiv, v, cst(c))
            }
        };
        use IntPred::*;
        // `first`: the first `n` whose test fails, when the loop has not already stopped.
        let (stopped_at_once, first) = match t.pred {
            LLVMIntNE => (None, div(b, dist)),
            LLVMIntSLT | LLVMIntULT | LLVMIntSGT | LLVMIntUGT => {
                let not = invert(t.pred);
                let stops = b.icmp(not, a, bound);
                let less = b.sub(dist, cst(1));
                let q = div(b, less);
                (Some(stops), b.add(q, cst(1)))
            }
            _ => {
                // SLE, ULE, SGE, UGE
                let not = invert(t.pred);
                let stops = b.icmp(not, a, bound);
                let q = div(b, dist);
                (Some(stops), b.add(q, cst(1)))
            }
        };
        let first = match stopped_at_once {
            Some(s) => b.select(s, cst(0), first),
            None => first,
        };
        // The header runs once more than the iterations the test lets through.
        let count = b.add(first, cst(1));
        let too_big = b.icmp(LLVMIntUGT, count, cst(MAX_REGION_BYTES / self.stride));
        let count = b.select(too_big, cst(0), count);
        let bytes = b.mul(count, cst(self.stride));
        let base = b.call_function(tape::push_helper(b.module()), &[tape, bytes]);
        (base, count)
    }
}

/// What the forward sweep keeps where structured loops exit, in one push per exit block: per
/// loop leaving there, its start value (unless a constant or argument), its last induction
/// value and, with a region, the region's address and count.
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
        let mut add = |f: ExitField, ty: Ty| {
            fields.push((k, f, ty, bytes));
            bytes += m.alloc_size(ty);
        };
        if l.start.is_instruction() {
            add(ExitField::Start, l.start.ty());
        }
        add(ExitField::Last, l.iv.ty());
        if tapes.region(k).is_some() {
            add(ExitField::Base, Ty::ptr(ctx));
            add(ExitField::Count, Ty::int(ctx, 64));
        }
    }
    (fields, bytes)
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
    /// Emits the slot's address: in the region when the index is below the count, else what
    /// `fallback` emits (the ordinary push or pop of the batch). Leaves the builder in a new
    /// block after the choice.
    pub fn emit(&self, b: &mut Builder, fallback: impl FnOnce(&mut Builder) -> Val) -> Val {
        let ctx = b.module().context();
        let i64t = Ty::int(ctx, 64);
        let f = b.current_block().parent();
        let inside = b.icmp(IntPred::LLVMIntULT, self.index, self.count);
        let (fast, slow, join) = (
            f.append_block("in.region"),
            f.append_block("past.region"),
            f.append_block(""),
        );
        b.cond_br(inside, fast, slow);
        b.position_at_end(fast);
        let at = b.mul(self.index, i64t.int_const(self.stride));
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

/// The predicate true exactly when `p` is false.
fn invert(p: IntPred) -> IntPred {
    use IntPred::*;
    match p {
        LLVMIntEQ => LLVMIntNE,
        LLVMIntNE => LLVMIntEQ,
        LLVMIntSLT => LLVMIntSGE,
        LLVMIntSGE => LLVMIntSLT,
        LLVMIntSLE => LLVMIntSGT,
        LLVMIntSGT => LLVMIntSLE,
        LLVMIntULT => LLVMIntUGE,
        LLVMIntUGE => LLVMIntULT,
        LLVMIntULE => LLVMIntUGT,
        LLVMIntUGT => LLVMIntULE,
    }
}

/// The predicate of `y p x` for `x p y`.
fn swap(p: IntPred) -> IntPred {
    use IntPred::*;
    match p {
        LLVMIntSLT => LLVMIntSGT,
        LLVMIntSGT => LLVMIntSLT,
        LLVMIntSLE => LLVMIntSGE,
        LLVMIntSGE => LLVMIntSLE,
        LLVMIntULT => LLVMIntUGT,
        LLVMIntUGT => LLVMIntULT,
        LLVMIntULE => LLVMIntUGE,
        LLVMIntUGE => LLVMIntULE,
        eq_or_ne => eq_or_ne,
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
    let mut seen = std::collections::HashSet::new();
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

/// The count of loop `l`'s iterations its exit test allows (see [`TripCount`]).
fn trip_count(l: &StructuredLoop) -> Option<TripCount> {
    let mut exiting = vec![l.latch];
    if l.header != l.latch {
        exiting.push(l.header);
    }
    for e in exiting {
        let Some(t) = e.terminator() else {
            continue;
        };
        if t.opcode() != Opcode::LLVMBr || t.num_operands() != 3 {
            continue;
        }
        let succ = t.successors();
        let goes_on = |s: Block| {
            if e == l.latch {
                s == l.header
            } else {
                l.body.contains(&s) && s != l.header
            }
        };
        let leaves = |s: Block| !l.body.contains(&s);
        let on_true = match (
            goes_on(succ[0]),
            leaves(succ[1]),
            leaves(succ[0]),
            goes_on(succ[1]),
        ) {
            (true, true, _, _) => true,
            (_, _, true, true) => false,
            _ => continue,
        };
        for (c, goes_on_if_true) in bounding_tests(t.operand(0), on_true) {
            if let Some(count) = count_of_test(l, c, goes_on_if_true) {
                return Some(count);
            }
        }
    }
    None
}

/// The comparisons among condition `c` (the loop goes on when `c` equals `goes_on_if`) each of
/// which alone stops the loop: `c` itself, the parts of an `or` that leaves, the parts of an
/// `and` that goes on (`select` forms included), through negations. Each with the value
/// for which the loop may go on.
fn bounding_tests(c: Val, goes_on_if: bool) -> Vec<(Val, bool)> {
    if !c.is_instruction() {
        return Vec::new();
    }
    let is_true = |v: Val| v.is_constant() && v.const_int_value() == Some(1);
    let is_false = |v: Val| v.is_constant() && v.const_int_value() == Some(0);
    match c.opcode() {
        Opcode::LLVMICmp => vec![(c, goes_on_if)],
        Opcode::LLVMXor if is_true(c.operand(1)) => bounding_tests(c.operand(0), !goes_on_if),
        // Leaves when either part holds: each part alone leaves.
        Opcode::LLVMOr if !goes_on_if => {
            let mut v = bounding_tests(c.operand(0), false);
            v.extend(bounding_tests(c.operand(1), false));
            v
        }
        // Goes on only when both parts hold: each part alone stops it.
        Opcode::LLVMAnd if goes_on_if => {
            let mut v = bounding_tests(c.operand(0), true);
            v.extend(bounding_tests(c.operand(1), true));
            v
        }
        Opcode::LLVMSelect if c.ty().is_int() && c.ty().int_width() == 1 => {
            let (a, x, y) = (c.operand(0), c.operand(1), c.operand(2));
            let mut v = Vec::new();
            // `a ? true : y` is `a || y`; `a ? x : false` is `a && x`.
            if is_true(x) && !goes_on_if {
                v.extend(bounding_tests(a, false));
                v.extend(bounding_tests(y, false));
            } else if is_false(y) && goes_on_if {
                v.extend(bounding_tests(a, true));
                v.extend(bounding_tests(x, true));
            }
            v
        }
        _ => Vec::new(),
    }
}

/// The count comparison `c` gives loop `l` when the loop goes on while `c` is `goes_on_if`.
fn count_of_test(l: &StructuredLoop, c: Val, goes_on_if: bool) -> Option<TripCount> {
    let pred = if goes_on_if {
        c.int_predicate()
    } else {
        invert(c.int_predicate())
    };
    let (x, y) = (c.operand(0), c.operand(1));
    let (tested, pred, bound) = match (tested_phi(l, x), tested_phi(l, y)) {
        (Some(t), _) if invariant(l, y) => (t, pred, y),
        (_, Some(t)) if invariant(l, x) => (t, swap(pred), x),
        _ => return None,
    };
    let (init, ahead, step) = tested;
    use IntPred::*;
    let direction_fits = match pred {
        LLVMIntNE => true,
        LLVMIntSLT | LLVMIntSLE | LLVMIntULT | LLVMIntULE => step > 0,
        LLVMIntSGT | LLVMIntSGE | LLVMIntUGT | LLVMIntUGE => step < 0,
        LLVMIntEQ => false,
    };
    (direction_fits && init.ty().int_width() <= 64).then_some(TripCount {
        init,
        ahead,
        step,
        pred,
        bound,
    })
}

/// `v` as a header phi of `l` stepping by a constant (`ahead` 0) or that phi's increment
/// (`ahead` 1): (the phi's entry value, ahead, step).
fn tested_phi(l: &StructuredLoop, v: Val) -> Option<(Val, i64, i64)> {
    if !v.is_instruction() || !v.ty().is_int() {
        return None;
    }
    let (phi, ahead) = if v.opcode() == Opcode::LLVMPHI {
        (v, 0)
    } else if v.opcode() == Opcode::LLVMAdd {
        let p = [v.operand(0), v.operand(1)]
            .into_iter()
            .find(|p| p.is_instruction() && p.opcode() == Opcode::LLVMPHI)?;
        (p, 1)
    } else {
        return None;
    };
    if phi.parent_block() != l.header {
        return None;
    }
    let inc = phi.incoming();
    let init = inc.iter().find(|(_, b)| *b == l.preheader)?.0;
    let next = inc.iter().find(|(_, b)| *b == l.latch)?.0;
    if ahead == 1 && next != v {
        return None;
    }
    if !next.is_instruction() || next.opcode() != Opcode::LLVMAdd {
        return None;
    }
    let step = if next.operand(0) == phi {
        next.operand(1)
    } else if next.operand(1) == phi {
        next.operand(0)
    } else {
        return None;
    };
    let step = step.const_int_sext()?;
    (step != 0).then_some((init, ahead, step))
}

/// True when `v` is the same in every iteration of `l`.
fn invariant(l: &StructuredLoop, v: Val) -> bool {
    if v.is_instruction() {
        !l.body.contains(&v.parent_block())
    } else {
        v.is_constant() || v.is_argument()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_test_module;
    use inkwell::context::Context;

    /// The trip count of `@f`'s loop: blocks `pre`, `loop` (header), `latch` (the header
    /// itself when there is no block of that name), counter `%i` stepping by `step`.
    fn count_of(blocks: &str, step: i64) -> Option<(IntPred, i64, i64)> {
        let ctx = Context::create();
        let ir = format!(
            "define void @f(i64 %n, i1 %c) {{\nentry:\n  br label %pre\npre:\n  br label %loop\n{blocks}\nexit:\n  ret void\n}}"
        );
        let module = parse_test_module(&ctx, &ir);
        let m = crate::ir::Module(module.as_mut_ptr());
        let f = m.function("f").expect("f");
        let block = |name: &str| f.blocks().into_iter().find(|b| b.as_value().name() == name);
        let (pre, header) = (block("pre").expect("pre"), block("loop").expect("loop"));
        let latch = block("latch").unwrap_or(header);
        let iv = header.instructions()[0];
        let body = f
            .blocks()
            .into_iter()
            .filter(|b| {
                *b != pre && b.as_value().name() != "exit" && b.as_value().name() != "entry"
            })
            .collect();
        let l = StructuredLoop {
            header,
            preheader: pre,
            latch,
            iv,
            start: iv.incoming()[0].0,
            step: iv.ty().int_const(step as u64),
            body,
        };
        trip_count(&l).map(|t| (t.pred, t.ahead, t.step))
    }

    #[test]
    fn a_rotated_loop_leaving_when_the_increment_reaches_n_goes_on_while_it_differs() {
        let blocks = "loop:\n  %i = phi i64 [ 0, %pre ], [ %i1, %loop ]\n  %i1 = add nuw nsw i64 %i, 1\n  %done = icmp eq i64 %i1, %n\n  br i1 %done, label %exit, label %loop";
        assert_eq!(count_of(blocks, 1), Some((IntPred::LLVMIntNE, 1, 1)));
    }

    #[test]
    fn a_test_in_the_header_counts_with_the_counter_itself() {
        let blocks = "loop:\n  %i = phi i64 [ 0, %pre ], [ %i1, %latch ]\n  %more = icmp slt i64 %i, %n\n  br i1 %more, label %latch, label %exit\nlatch:\n  %i1 = add nsw i64 %i, 2\n  br label %loop";
        assert_eq!(count_of(blocks, 2), Some((IntPred::LLVMIntSLT, 0, 2)));
    }

    #[test]
    fn the_counted_half_of_an_or_that_leaves_bounds_the_loop() {
        // `break` on data or `i + 1 == n`: the second alone bounds the iterations.
        let blocks = "loop:\n  %i = phi i64 [ 0, %pre ], [ %i1, %loop ]\n  %i1 = add i64 %i, 1\n  %end = icmp eq i64 %i1, %n\n  %leave = select i1 %c, i1 true, i1 %end\n  br i1 %leave, label %exit, label %loop";
        assert_eq!(count_of(blocks, 1), Some((IntPred::LLVMIntNE, 1, 1)));
    }

    #[test]
    fn a_counter_compared_in_the_wrong_direction_or_an_and_that_leaves_gives_no_count() {
        // Counting up while `i > n`: only wrap-around would end it.
        let up = "loop:\n  %i = phi i64 [ 0, %pre ], [ %i1, %loop ]\n  %i1 = add i64 %i, 1\n  %more = icmp sgt i64 %i1, %n\n  br i1 %more, label %loop, label %exit";
        assert_eq!(count_of(up, 1), None);
        // Leaving only when both hold: neither alone bounds the loop.
        let and = "loop:\n  %i = phi i64 [ 0, %pre ], [ %i1, %loop ]\n  %i1 = add i64 %i, 1\n  %end = icmp eq i64 %i1, %n\n  %leave = and i1 %c, %end\n  br i1 %leave, label %exit, label %loop";
        assert_eq!(count_of(and, 1), None);
    }

    #[test]
    fn a_bound_the_loop_computes_gives_no_count() {
        let blocks = "loop:\n  %i = phi i64 [ 0, %pre ], [ %i1, %loop ]\n  %i1 = add i64 %i, 1\n  %b = mul i64 %i, 3\n  %more = icmp ult i64 %i1, %b\n  br i1 %more, label %loop, label %exit";
        assert_eq!(count_of(blocks, 1), None);
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
