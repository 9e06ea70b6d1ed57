//! The trip count of a structured loop, read off its exit test: a comparison of a header phi
//! stepping by a constant (or of its increment) with a value the loop does not change. The
//! count bounds the iterations that test allows (a `break` only ends the loop earlier), and is
//! emitted from the loop's entry values where the loop tape reserves its region
//! ([`super::loop_tape`]).

use super::plan::{constant_step, StructuredLoop};
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
}

impl TripCount {
    /// Emits the number of times the header runs (an `i64`: the iterations the test lets
    /// through, and one more) from the loop's entry values (`map` gives the sweep's copy of a
    /// source value).
    pub(super) fn emit(&self, b: &mut Builder, map: impl Fn(Val) -> Val) -> Val {
        let i64t = Ty::int(b.module().context(), 64);
        let t = self;
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
/// (`ahead` 1): (the phi's entry value, ahead, step). The increment is an `add` of the step or
/// a `sub` of its negation ([`constant_step`]).
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
    (step != 0).then_some((init, ahead, step))
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
    fn a_bound_the_loop_computes_gives_no_count() {
        let blocks = "loop:\n  %i = phi i64 [ 0, %pre ], [ %i1, %loop ]\n  %i1 = add i64 %i, 1\n  %b = mul i64 %i, 3\n  %more = icmp ult i64 %i1, %b\n  br i1 %more, label %loop, label %exit";
        assert_eq!(count_of(blocks, 1), None);
    }
}
