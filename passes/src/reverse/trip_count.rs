//! The trip count of a structured loop, read off its exit test: a comparison of a header phi
//! stepping by a constant (or of its increment) with a value the loop does not change. The
//! count bounds the iterations that test allows (a `break` only ends the loop earlier), and is
//! emitted from the loop's entry values where the loop tape reserves its region
//! ([`super::loop_tape`]).

use super::plan::loops::{constant_step, StructuredLoop};
use crate::ir::{inverse_pred, swapped_pred, Block, Builder, IntPred, Opcode, Ty, Val};

/// The exit test `v PRED bound` (true: the loop goes on) of a header phi `p` stepping by
/// `step`, where `v` is `p` (`ahead` 0) or its increment (`ahead` 1): in the `n`-th execution of
/// the header (from 0), `v = init + (n + ahead) × step`.
pub(super) struct TripCount {
    pub(super) init: Val,
    ahead: i64,
    step: i64,
    pred: IntPred,
    pub(super) bound: Val,
    /// The type the test compares in, when it sign-extends the counter (an `int` counter
    /// compared as a 64-bit value; its `nsw` increment makes the extension step too).
    wide: Option<Ty>,
}

impl TripCount {
    /// Emits the number of times the header runs (an `i64`: the iterations the test lets
    /// through, and one more) from the loop's entry values (`map` gives the sweep's copy of a
    /// source value).
    pub(super) fn emit(&self, b: &mut Builder, map: impl Fn(Val) -> Val) -> Val {
        let (init, bound) = (map(self.init), map(self.bound));
        self.emit_from(b, init, bound)
    }

    /// The slope of the count in the iteration index of the loop whose counters are
    /// `counters` ([`slope_in`]), when its start and bound are affine in it and the distance
    /// between them changes by a multiple of the step: then the count is affine too, wherever
    /// the test does not stop the loop at once.
    pub(super) fn slope(&self, fixed: &dyn Fn(Val) -> bool, counters: &[Counter]) -> Option<i64> {
        let (init, bound) = (
            slope_in(self.init, fixed, counters)?,
            slope_in(self.bound, fixed, counters)?,
        );
        let dist = if self.step > 0 {
            bound - init
        } else {
            init - bound
        };
        let c = self.step.unsigned_abs() as i64;
        (dist % c == 0).then_some(dist / c)
    }

    /// [`TripCount::emit`] in the iteration of index `t` of the loop whose counters are
    /// `counters` ([`rebuild_at`]).
    pub(super) fn emit_at(
        &self,
        b: &mut Builder,
        t: Val,
        fixed: &dyn Fn(Val) -> bool,
        counters: &[Counter],
        map: &dyn Fn(Val) -> Val,
    ) -> Val {
        let init = rebuild_at(b, self.init, t, fixed, counters, map);
        let bound = rebuild_at(b, self.bound, t, fixed, counters, map);
        self.emit_from(b, init, bound)
    }

    /// [`TripCount::emit`] from the sweep's start and bound.
    fn emit_from(&self, b: &mut Builder, init: Val, bound: Val) -> Val {
        let i64t = Ty::int(b.module().context(), 64);
        let t = self;
        let init = match t.wide {
            Some(w) => b.sext_or_trunc(init, w),
            None => init,
        };
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
                let not = inverse_pred(t.pred);
                let stops = b.icmp(not, a, bound);
                let less = b.sub(dist, cst(1));
                let q = div(b, less);
                (Some(stops), b.add(q, cst(1)))
            }
            _ => {
                // SLE, ULE, SGE, UGE
                let not = inverse_pred(t.pred);
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
        b.add(first, cst(1))
    }
}

/// The count of loop `l`'s iterations its exit test allows (see [`TripCount`]).
pub(super) fn trip_count(l: &StructuredLoop) -> Option<TripCount> {
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

/// The most header runs [`constant_last_iv`] simulates; longer loops keep their one record per
/// execution, which is then small next to their iterations.
const MAX_SIMULATED_RUNS: i128 = 1 << 16;

/// The value of `l`'s induction variable in the last run of its header, the same on every
/// entry: the loop leaves only by its exit test (no `break`), and that test compares a counter
/// starting at a constant with a constant. The adjoint then starts counting down from it with
/// nothing recorded. The runs are simulated in the test's own two's-complement arithmetic, so
/// the value is exact whatever the predicate, step or wrap-around.
pub(super) fn constant_last_iv(l: &StructuredLoop) -> Option<Val> {
    let (count, _) = only_exit_test(l)?;
    let runs = constant_header_runs(&count)?;
    let (start, step) = (l.start.const_int_sext()?, l.step.const_int_sext()?);
    let last = i128::from(start) + (runs - 1) * i128::from(step);
    Some(l.iv.ty().int_const(last as u64))
}

/// How many times the header of `l` runs per entry, when that is one constant.
pub(super) fn constant_runs(l: &StructuredLoop) -> Option<u64> {
    let (count, _) = only_exit_test(l)?;
    u64::try_from(constant_header_runs(&count)?).ok()
}

/// The test of a loop that leaves by it alone: the count it gives, and whether it ends the
/// latch (else the header). `None` when any other block leaves the loop, or the test is more
/// than one comparison.
fn only_exit_test(l: &StructuredLoop) -> Option<(TripCount, bool)> {
    let exiting: Vec<Block> = l
        .body
        .iter()
        .copied()
        .filter(|b| b.successors().iter().any(|s| !l.body.contains(s)))
        .collect();
    let [e] = exiting[..] else {
        return None;
    };
    if e != l.latch && e != l.header {
        return None;
    }
    let t = e.terminator()?;
    if t.opcode() != Opcode::LLVMBr || t.num_operands() != 3 {
        return None;
    }
    let succ = t.successors();
    let goes_on_if_true = l.body.contains(&succ[0]);
    if goes_on_if_true == l.body.contains(&succ[1]) {
        return None;
    }
    let c = t.operand(0);
    if !c.is_instruction() || c.opcode() != Opcode::LLVMICmp {
        return None;
    }
    Some((count_of_test(l, c, goes_on_if_true)?, e == l.latch))
}

/// A loop that leaves exactly when a counter reaches a bound (`!=` goes on, the only exit):
/// every header phi stepping by the same constant ends on a value computed from the entry
/// values alone, whatever the number of iterations ([`LoopExit::last`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct LoopExit {
    /// The tested counter's entry value.
    pub(super) init: Val,
    /// The bound it is compared with.
    pub(super) bound: Val,
    /// The counters' common step.
    pub(super) step: i64,
    /// 1 when the test compares the counter's increment, 0 when the counter itself.
    ahead: i64,
    /// Whether the latch runs in the last iteration (the test ends the latch).
    at_latch: bool,
}

impl LoopExit {
    /// What a header phi stepping by [`LoopExit::step`] from `init_p` holds when the loop
    /// leaves (`next`: its increment, as last computed): in the last run `n` of the header
    /// the test found `init + (n + ahead) × step = bound`, so `init_p + n × step` is
    /// `init_p + bound - init - ahead × step`, in the counters' wrapping arithmetic, without
    /// dividing by the step. The increment is one step more when the latch ran last.
    pub(super) fn last(&self, next: bool) -> i64 {
        let extra = if next && self.at_latch { self.step } else { 0 };
        extra - self.ahead * self.step
    }
}

/// [`LoopExit`] of `l`, when its only exit is a `!=` test of a counter (not sign-extended)
/// against a value the loop does not change.
pub(super) fn loop_exit(l: &StructuredLoop) -> Option<LoopExit> {
    let (count, at_latch) = only_exit_test(l)?;
    if count.pred != IntPred::LLVMIntNE || count.wide.is_some() {
        return None;
    }
    Some(LoopExit {
        init: count.init,
        bound: count.bound,
        step: count.step,
        ahead: count.ahead,
        at_latch,
    })
}

/// The number of header runs of a loop whose only exit is `count`'s test, when its entry value
/// and bound are constants and it stops within [`MAX_SIMULATED_RUNS`].
fn constant_header_runs(count: &TripCount) -> Option<i128> {
    let narrow = count.init.ty().int_width();
    let width = count.wide.map_or(narrow, |w| w.int_width());
    if width > 64 || narrow > 64 {
        return None;
    }
    let modulus = 1i128 << width;
    let bits = |x: i128| x.rem_euclid(modulus);
    let signed = |x: i128| {
        let b = bits(x);
        if b >= modulus / 2 {
            b - modulus
        } else {
            b
        }
    };
    let (init, bound) = (
        i128::from(count.init.const_int_sext()?),
        i128::from(count.bound.const_int_sext()?),
    );
    use IntPred::*;
    for n in 0..MAX_SIMULATED_RUNS {
        let mut v = init + (n + i128::from(count.ahead)) * i128::from(count.step);
        if count.wide.is_some() {
            // The narrow counter's increment is `nsw`: compared sign-extended, it never wraps.
            let half = 1i128 << (narrow - 1);
            if v < -half || v >= half {
                return None;
            }
        } else {
            v = bits(v);
        }
        let goes_on = match count.pred {
            LLVMIntEQ => bits(v) == bits(bound),
            LLVMIntNE => bits(v) != bits(bound),
            LLVMIntSLT => signed(v) < signed(bound),
            LLVMIntSLE => signed(v) <= signed(bound),
            LLVMIntSGT => signed(v) > signed(bound),
            LLVMIntSGE => signed(v) >= signed(bound),
            LLVMIntULT => bits(v) < bits(bound),
            LLVMIntULE => bits(v) <= bits(bound),
            LLVMIntUGT => bits(v) > bits(bound),
            LLVMIntUGE => bits(v) >= bits(bound),
        };
        if !goes_on {
            return Some(n + 1);
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
        inverse_pred(c.int_predicate())
    };
    let (x, y) = (c.operand(0), c.operand(1));
    let (tested, pred, bound) = match (tested_phi(l, x), tested_phi(l, y)) {
        (Some(t), _) if invariant(l, y) => (t, pred, y),
        (_, Some(t)) if invariant(l, x) => (t, swapped_pred(pred), x),
        _ => return None,
    };
    let (init, ahead, step, wide) = tested;
    use IntPred::*;
    let direction_fits = match pred {
        LLVMIntNE => true,
        LLVMIntSLT | LLVMIntSLE | LLVMIntULT | LLVMIntULE => step > 0,
        LLVMIntSGT | LLVMIntSGE | LLVMIntUGT | LLVMIntUGE => step < 0,
        LLVMIntEQ => false,
    };
    let width = wide.unwrap_or(init.ty()).int_width();
    (direction_fits && width <= 64).then_some(TripCount {
        init,
        ahead,
        step,
        pred,
        bound,
        wide,
    })
}

/// `v` as a header phi of `l` stepping by a constant (`ahead` 0) or that phi's increment
/// (`ahead` 1): (the phi's entry value, ahead, step, the type it is sign-extended to). The
/// increment is an `add` of the step or a `sub` of its negation ([`constant_step`]); a `sext`
/// of either counts in the wider type when the increment does not wrap (`nsw`).
fn tested_phi(l: &StructuredLoop, v: Val) -> Option<(Val, i64, i64, Option<Ty>)> {
    if !v.is_instruction() || !v.ty().is_int() {
        return None;
    }
    if v.opcode() == Opcode::LLVMSExt {
        let (init, ahead, step, wide) = tested_phi(l, v.operand(0))?;
        let x = v.operand(0);
        let phi = if ahead == 0 {
            x
        } else {
            (0..x.num_operands())
                .map(|k| x.operand(k))
                .find(|p| p.is_instruction() && p.opcode() == Opcode::LLVMPHI)?
        };
        let next = phi.incoming().iter().find(|(_, b)| *b == l.latch)?.0;
        return (wide.is_none() && next.has_nsw()).then_some((init, ahead, step, Some(v.ty())));
    }
    let (phi, ahead) = if v.opcode() == Opcode::LLVMPHI {
        (v, 0)
    } else if v.opcode() == Opcode::LLVMAdd {
        let p = [v.operand(0), v.operand(1)]
            .into_iter()
            .find(|p| p.is_instruction() && p.opcode() == Opcode::LLVMPHI)?;
        (p, 1)
    } else if v.opcode() == Opcode::LLVMSub && v.operand(0).is_instruction() {
        (v.operand(0), 1)
    } else {
        return None;
    };
    if phi.opcode() != Opcode::LLVMPHI || phi.parent_block() != l.header {
        return None;
    }
    let inc = phi.incoming();
    let init = inc.iter().find(|(_, b)| *b == l.preheader)?.0;
    let next = inc.iter().find(|(_, b)| *b == l.latch)?.0;
    if ahead == 1 && next != v {
        return None;
    }
    let step = constant_step(phi, next)?.const_int_sext()?;
    (step != 0).then_some((init, ahead, step, None))
}

/// A header phi of a structured loop stepping by a constant: in the loop's `t`-th iteration
/// (from 0) it holds `init + t × step`. An inner loop whose start or bound is computed from
/// one (a triangular nest, `j < i`, `j = i + 1 .. n`) has a count that changes with `t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Counter {
    pub(super) phi: Val,
    pub(super) init: Val,
    pub(super) step: i64,
}

/// The integer header phis of loop `l` stepping by a constant.
pub(super) fn counters(l: &StructuredLoop) -> Vec<Counter> {
    let mut v = Vec::new();
    for phi in l.header.instructions() {
        if phi.opcode() != Opcode::LLVMPHI {
            break;
        }
        if !phi.ty().is_int() || phi.ty().int_width() > 64 {
            continue;
        }
        let inc = phi.incoming();
        let init = inc.iter().find(|(_, b)| *b == l.preheader).map(|x| x.0);
        let next = inc.iter().find(|(_, b)| *b == l.latch).map(|x| x.0);
        let (Some(init), Some(next)) = (init, next) else {
            continue;
        };
        if let Some(step) = constant_step(phi, next).and_then(|s| s.const_int_sext()) {
            v.push(Counter { phi, init, step });
        }
    }
    v
}

/// How deep [`slope_in`] looks through the operations computing a value.
const MAX_DEPTH: u32 = 8;

/// Slopes larger than this are not followed (a count changing that fast is no triangle clang
/// emits, and the bound keeps the reservation's arithmetic far from overflow).
pub(super) const MAX_SLOPE: i64 = 1 << 20;

/// `v` as an affine function `slope × t + c` of the iteration index `t` of the loop whose
/// counters are `counters` (each `init + t × step`): the slope, when `v` is computed from
/// them and from `fixed` values (the same all through the nest) by `add`, `sub`, a `mul` or
/// `shl` by a constant and integer casts, else `None` (a load, a division, a phi, the
/// remainder of an unrolled loop). Wrap-around is not modelled: the reservation checks the
/// count it gives against the real one at both ends ([`super::loop_tape`]).
pub(super) fn slope_in(v: Val, fixed: &dyn Fn(Val) -> bool, counters: &[Counter]) -> Option<i64> {
    fn go(v: Val, fixed: &dyn Fn(Val) -> bool, cs: &[Counter], depth: u32) -> Option<i64> {
        if fixed(v) {
            return Some(0);
        }
        if let Some(c) = cs.iter().find(|c| c.phi == v) {
            return Some(c.step);
        }
        if depth == 0 || !v.is_instruction() || !v.ty().is_int() {
            return None;
        }
        use Opcode::*;
        let at = |k: u32| go(v.operand(k), fixed, cs, depth - 1);
        let cst = |k: u32| v.operand(k).const_int_sext();
        let s = match v.opcode() {
            LLVMZExt | LLVMSExt | LLVMTrunc => at(0)?,
            LLVMAdd => at(0)?.checked_add(at(1)?)?,
            LLVMSub => at(0)?.checked_sub(at(1)?)?,
            LLVMMul => match (cst(0), cst(1)) {
                (Some(c), _) => at(1)?.checked_mul(c)?,
                (_, Some(c)) => at(0)?.checked_mul(c)?,
                _ => return None,
            },
            LLVMShl => {
                let c = cst(1).filter(|c| (0..32).contains(c))?;
                at(0)?.checked_mul(1 << c)?
            }
            _ => return None,
        };
        (s.abs() <= MAX_SLOPE).then_some(s)
    }
    go(v, fixed, counters, MAX_DEPTH)
}

/// Emits `v` (accepted by [`slope_in`]) in the iteration of index `t` (an `i64`) of the loop
/// whose counters are `counters`: each counter replaced by `init + t × step`, `fixed` values
/// through `map`, the operations between them copied without their `nsw`/`nuw` flags (the
/// value may be one the loop never computes: it must not be poison for that).
pub(super) fn rebuild_at(
    b: &mut Builder,
    v: Val,
    t: Val,
    fixed: &dyn Fn(Val) -> bool,
    counters: &[Counter],
    map: &dyn Fn(Val) -> Val,
) -> Val {
    if fixed(v) {
        return map(v);
    }
    if let Some(c) = counters.iter().find(|c| c.phi == v) {
        let ty = c.phi.ty();
        let t = b.zext_or_trunc(t, ty);
        let moved = b.mul(t, ty.int_const(c.step as u64));
        return b.add(map(c.init), moved);
    }
    use Opcode::*;
    let x = rebuild_at(b, v.operand(0), t, fixed, counters, map);
    match v.opcode() {
        op @ (LLVMZExt | LLVMSExt | LLVMTrunc) => b.cast(op, x, v.ty()),
        op => {
            let y = rebuild_at(b, v.operand(1), t, fixed, counters, map);
            b.binop(op, x, y)
        }
    }
}

/// True when `v` is the same in every iteration of `l`.
pub(super) fn invariant(l: &StructuredLoop, v: Val) -> bool {
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
    fn a_counter_decremented_by_sub_counts_down() {
        // `for (i = n; i > 0; i -= 2)` at -O0: `sub` of 2 is a step of -2.
        let blocks = "loop:\n  %i = phi i64 [ %n, %pre ], [ %i1, %latch ]\n  %more = icmp sgt i64 %i, 0\n  br i1 %more, label %latch, label %exit\nlatch:\n  %i1 = sub nsw i64 %i, 2\n  br label %loop";
        assert_eq!(count_of(blocks, -2), Some((IntPred::LLVMIntSGT, 0, -2)));
        // Tested after the decrement (a rotated loop).
        let rotated = "loop:\n  %i = phi i64 [ %n, %pre ], [ %i1, %loop ]\n  %i1 = sub i64 %i, 3\n  %more = icmp ugt i64 %i1, 5\n  br i1 %more, label %loop, label %exit";
        assert_eq!(count_of(rotated, -3), Some((IntPred::LLVMIntUGT, 1, -3)));
        // `C - i` is no step.
        let flipped = "loop:\n  %i = phi i64 [ %n, %pre ], [ %i1, %loop ]\n  %i1 = sub i64 3, %i\n  %more = icmp ugt i64 %i1, 5\n  br i1 %more, label %loop, label %exit";
        assert_eq!(count_of(flipped, -3), None);
    }

    #[test]
    fn an_int_counter_compared_sign_extended_counts_when_its_increment_cannot_wrap() {
        // `for (j = n - 1; j >= i; j--)` at -O2 with a 64-bit i: `sext j` is compared.
        let narrow = |flags: &str| {
            format!("loop:\n  %i = phi i32 [ 7, %pre ], [ %i1, %loop ]\n  %i1 = add {flags} i32 %i, -1\n  %w = sext i32 %i to i64\n  %more = icmp slt i64 %n, %w\n  br i1 %more, label %loop, label %exit")
        };
        assert_eq!(
            count_of(&narrow("nsw"), -1),
            Some((IntPred::LLVMIntSGT, 0, -1))
        );
        // Without `nsw` the narrow counter may wrap where its extension does not.
        assert_eq!(count_of(&narrow(""), -1), None);
    }

    #[test]
    fn a_value_computed_from_counters_by_adds_and_constant_products_is_affine() {
        let ctx = Context::create();
        let ir = "define void @f(i64 %n, i1 %c, ptr %q) {\nentry:\n  br label %loop\nloop:\n  %i = phi i64 [ 0, %entry ], [ %i1, %latch ]\n  %k = phi i64 [ 5, %entry ], [ %k1, %latch ]\n  %a = add nsw i64 %i, 1\n  %m = mul i64 %a, -2\n  %sh = shl i64 %m, 2\n  %t = trunc i64 %sh to i32\n  %two = sub i64 %k, %i\n  %ld = load i64, ptr %q\n  %byld = add i64 %i, %ld\n  %sq = mul i64 %i, %i\n  %w = and i64 %a, -4\n  %udiv = udiv i64 %i, 4\n  br i1 %c, label %odd, label %join\nodd:\n  %i2 = add i64 %i, 2\n  br label %join\njoin:\n  %s = phi i64 [ %i, %loop ], [ %i2, %odd ]\n  br label %latch\nlatch:\n  %i1 = add i64 %i, 1\n  %k1 = add i64 %k, 3\n  %more = icmp ult i64 %i1, %n\n  br i1 %more, label %loop, label %exit\nexit:\n  ret void\n}";
        let module = parse_test_module(&ctx, ir);
        let m = crate::ir::Module(module.as_mut_ptr());
        let f = m.function("f").expect("f");
        let blocks = f.blocks();
        let header = blocks[1];
        let l = StructuredLoop {
            header,
            preheader: blocks[0],
            latch: blocks[4],
            iv: header.instructions()[0],
            start: header.instructions()[0].incoming()[0].0,
            step: header.instructions()[0].ty().int_const(1),
            body: blocks[1..5].iter().copied().collect(),
        };
        let cs = counters(&l);
        assert_eq!(
            cs.iter()
                .map(|c| (c.phi.name(), c.step))
                .collect::<Vec<_>>(),
            [("i".to_string(), 1), ("k".to_string(), 3)]
        );
        let fixed = |v: Val| invariant(&l, v);
        let value = |name: &str| {
            f.blocks()
                .into_iter()
                .flat_map(|b| b.instructions())
                .find(|i| i.name() == name)
                .expect(name)
        };
        let slope = |name: &str| slope_in(value(name), &fixed, &cs);
        // i + 1, -2(i + 1), 4 × that, truncated, k - i (k steps by 3).
        for (name, s) in [("a", 1), ("m", -2), ("sh", -8), ("t", -8), ("two", 2)] {
            assert_eq!(slope(name), Some(s), "{name}");
        }
        // A load, a product of counters, a rounding (an unrolled loop's bound), a division,
        // a phi.
        for name in ["ld", "byld", "sq", "w", "udiv", "s"] {
            assert_eq!(slope(name), None, "{name}");
        }
        assert_eq!(slope_in(l.start, &fixed, &cs), Some(0));
    }

    /// [`constant_last_iv`] of `@f`'s loop, as for [`count_of`].
    fn last_of(blocks: &str, step: i64) -> Option<i64> {
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
        constant_last_iv(&l).and_then(|v| v.const_int_sext())
    }

    #[test]
    fn a_loop_between_constants_ends_on_a_known_counter_value() {
        // `for (l = 0; l < 40; l += 8)`, rotated: the header runs for 0, 8, ..., 32.
        let rotated = "loop:\n  %i = phi i64 [ 0, %pre ], [ %i1, %loop ]\n  %i1 = add nuw nsw i64 %i, 8\n  %more = icmp ult i64 %i1, 40\n  br i1 %more, label %loop, label %exit";
        assert_eq!(last_of(rotated, 8), Some(32));
        // Tested in the header: the run that leaves has the counter at the bound.
        let header = "loop:\n  %i = phi i64 [ 3, %pre ], [ %i1, %latch ]\n  %more = icmp slt i64 %i, 10\n  br i1 %more, label %latch, label %exit\nlatch:\n  %i1 = add nsw i64 %i, 3\n  br label %loop";
        assert_eq!(last_of(header, 3), Some(12));
        // Counting down by `ne`, and an i8 counter wrapping around to its bound.
        let down = "loop:\n  %i = phi i64 [ 20, %pre ], [ %i1, %loop ]\n  %i1 = add i64 %i, -4\n  %done = icmp eq i64 %i1, 0\n  br i1 %done, label %exit, label %loop";
        assert_eq!(last_of(down, -4), Some(4));
        let wraps = "loop:\n  %i = phi i8 [ 0, %pre ], [ %i1, %loop ]\n  %i1 = add i8 %i, 3\n  %done = icmp eq i8 %i1, 1\n  br i1 %done, label %exit, label %loop";
        // 3 × 171 = 513 = 2 × 256 + 1: the 171st increment reaches 1; the last run held 3 × 170.
        assert_eq!(last_of(wraps, 3), Some((3 * 170) as u8 as i8 as i64));
    }

    #[test]
    fn a_loop_with_a_break_or_a_bound_from_an_argument_has_no_known_last_value() {
        let by_argument = "loop:\n  %i = phi i64 [ 0, %pre ], [ %i1, %loop ]\n  %i1 = add nuw nsw i64 %i, 1\n  %more = icmp ult i64 %i1, %n\n  br i1 %more, label %loop, label %exit";
        assert_eq!(last_of(by_argument, 1), None);
        // A `break` on data: the loop may leave before the test stops it.
        let breaks = "loop:\n  %i = phi i64 [ 0, %pre ], [ %i1, %latch ]\n  br i1 %c, label %exit, label %latch\nlatch:\n  %i1 = add nuw nsw i64 %i, 1\n  %more = icmp ult i64 %i1, 10\n  br i1 %more, label %loop, label %exit";
        assert_eq!(last_of(breaks, 1), None);
        // The counted half of an `or`: the other half may end it earlier.
        let or = "loop:\n  %i = phi i64 [ 0, %pre ], [ %i1, %loop ]\n  %i1 = add i64 %i, 1\n  %end = icmp eq i64 %i1, 10\n  %leave = select i1 %c, i1 true, i1 %end\n  br i1 %leave, label %exit, label %loop";
        assert_eq!(last_of(or, 1), None);
    }

    /// [`loop_exit`] of `@f`'s loop, as for [`count_of`]: (step, offset of the counter's
    /// last value, offset of its last increment).
    fn exit_of(blocks: &str, step: i64) -> Option<(i64, i64, i64)> {
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
        loop_exit(&l).map(|e| (e.step, e.last(false), e.last(true)))
    }

    #[test]
    fn a_loop_leaving_when_its_counter_reaches_the_bound_ends_on_known_values() {
        // Unrolled by 8: `i += 8` until `i + 8 == n`: the last run has i = n - 8 and its
        // increment n.
        let rotated = "loop:\n  %i = phi i64 [ 0, %pre ], [ %i1, %loop ]\n  %i1 = add nuw i64 %i, 8\n  %done = icmp eq i64 %i1, %n\n  br i1 %done, label %exit, label %loop";
        assert_eq!(exit_of(rotated, 8), Some((8, -8, 0)));
        // Tested in the header before the step: the last run has i = n, and the latch (with
        // the increment) does not run in it.
        let header = "loop:\n  %i = phi i64 [ 0, %pre ], [ %i1, %latch ]\n  %more = icmp ne i64 %i, %n\n  br i1 %more, label %latch, label %exit\nlatch:\n  %i1 = add i64 %i, 1\n  br label %loop";
        assert_eq!(exit_of(header, 1), Some((1, 0, 0)));
    }

    #[test]
    fn a_loop_bounded_by_an_ordering_or_leaving_elsewhere_has_no_exact_exit() {
        // `i < n` may stop past n when the step does not divide the distance.
        let ordered = "loop:\n  %i = phi i64 [ 0, %pre ], [ %i1, %loop ]\n  %i1 = add i64 %i, 8\n  %more = icmp ult i64 %i1, %n\n  br i1 %more, label %loop, label %exit";
        assert_eq!(exit_of(ordered, 8), None);
        let breaks = "loop:\n  %i = phi i64 [ 0, %pre ], [ %i1, %latch ]\n  br i1 %c, label %exit, label %latch\nlatch:\n  %i1 = add i64 %i, 1\n  %done = icmp eq i64 %i1, %n\n  br i1 %done, label %exit, label %loop";
        assert_eq!(exit_of(breaks, 1), None);
    }

    #[test]
    fn a_bound_the_loop_computes_gives_no_count() {
        let blocks = "loop:\n  %i = phi i64 [ 0, %pre ], [ %i1, %loop ]\n  %i1 = add i64 %i, 1\n  %b = mul i64 %i, 3\n  %more = icmp ult i64 %i1, %b\n  br i1 %more, label %loop, label %exit";
        assert_eq!(count_of(blocks, 1), None);
    }
}
