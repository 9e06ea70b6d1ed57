//! Counted loops, for the loop outliner ([`super::outline`]): the induction variable of a loop
//! that `loop-simplify` has put in shape, and its number of iterations.
//!
//! A loop is counted when its one exiting block (the header, or the latch of a rotated loop)
//! compares a counter that starts at a value fixed before the loop and goes up by one (or that
//! plus one, or either widened by `sext`/`zext`) with a bound fixed before the loop, going on
//! under `<`, `<=` or `!=` (signed or unsigned). Guarantees: anything else is `Err` with the
//! reason; the number of iterations is exact for those shapes when the counter does not wrap.

use super::loops::Loop;
use crate::ir::{inverse_pred, swapped_pred, Block, Builder, IntPred, Opcode, Ty, Val};

/// The counted loop's induction variable and test.
pub struct Counted {
    /// The header phi counting iterations.
    pub iv: Val,
    /// Its increment (`iv + 1`), fed back from the latch.
    pub next: Val,
    pub start: Val,
    /// The bound and the predicate under which the loop goes on (`x pred bound`).
    pub bound: Val,
    pub pred: IntPred,
    /// The widening (sext or zext) of the compared counter, if any.
    pub widen: Option<Opcode>,
    /// The test is at the latch (a rotated loop); else at the header, on `iv`.
    pub at_latch: bool,
    /// The test compares `iv + 1` rather than `iv` (only at the latch).
    pub on_next: bool,
}

/// Whether `v` is `iv + 1` (as an `add`, either order).
fn is_increment(v: Val, iv: Val) -> bool {
    v.is_instruction()
        && v.opcode() == Opcode::LLVMAdd
        && ((v.operand(0) == iv && v.operand(1).const_int_sext() == Some(1))
            || (v.operand(1) == iv && v.operand(0).const_int_sext() == Some(1)))
}

pub fn counted(
    l: &Loop,
    pre: Block,
    latch: Block,
    exiting: Block,
) -> std::result::Result<Counted, &'static str> {
    const NOT_COUNTED: &str = "its test is not a counted one (an integer counter from a value fixed before the loop, up by one, compared by <, <= or != with a bound fixed before the loop)";
    let term = exiting.terminator().ok_or(NOT_COUNTED)?;
    if term.opcode() != Opcode::LLVMBr || term.num_operands() != 3 {
        return Err(NOT_COUNTED);
    }
    let cond = term.operand(0);
    if !cond.is_instruction() || cond.opcode() != Opcode::LLVMICmp {
        return Err(NOT_COUNTED);
    }
    let on_true = l.blocks.contains(&term.successors()[0]);
    let mut pred = cond.int_predicate();
    if !on_true {
        pred = inverse_pred(pred);
    }
    // The counter side: `iv`, `iv + 1`, or either widened.
    let counter = |x: Val| -> Option<(Val, Option<Opcode>, bool)> {
        let (inner, widen) = if x.is_instruction()
            && matches!(x.opcode(), Opcode::LLVMSExt | Opcode::LLVMZExt)
            && l.defines(x)
        {
            (x.operand(0), Some(x.opcode()))
        } else {
            (x, None)
        };
        let header_phi = |p: Val| {
            p.is_instruction()
                && p.opcode() == Opcode::LLVMPHI
                && p.parent_block() == l.header
                && p.ty().is_int()
        };
        if header_phi(inner) {
            return Some((inner, widen, false));
        }
        if inner.is_instruction() && inner.opcode() == Opcode::LLVMAdd {
            for k in 0..2 {
                let p = inner.operand(k);
                if header_phi(p) && is_increment(inner, p) {
                    return Some((p, widen, true));
                }
            }
        }
        None
    };
    let (a, b) = (cond.operand(0), cond.operand(1));
    let ((iv, widen, on_next), bound) = match (counter(a), counter(b)) {
        (Some(c), _) if !l.defines(b) => (c, b),
        (_, Some(c)) if !l.defines(a) => {
            pred = swapped_pred(pred);
            (c, a)
        }
        _ => return Err(NOT_COUNTED),
    };
    let incoming = iv.incoming();
    let start = incoming.iter().find(|(_, blk)| *blk == pre).map(|x| x.0);
    let next = incoming.iter().find(|(_, blk)| *blk == latch).map(|x| x.0);
    let (Some(start), Some(next)) = (start, next) else {
        return Err(NOT_COUNTED);
    };
    if incoming.len() != 2 || !is_increment(next, iv) {
        return Err(NOT_COUNTED);
    }
    use IntPred::*;
    if !matches!(
        pred,
        LLVMIntSLT | LLVMIntULT | LLVMIntSLE | LLVMIntULE | LLVMIntNE
    ) {
        return Err(NOT_COUNTED);
    }
    let at_latch = match (exiting == l.header, exiting == latch, on_next) {
        (true, false, false) => false,
        (_, true, _) => true,
        _ => {
            return Err(
                "its test is neither at the top of the loop on the counter nor at its bottom",
            )
        }
    };
    Ok(Counted {
        iv,
        next,
        start,
        bound,
        pred,
        widen,
        at_latch,
        on_next,
    })
}

/// Emits the number of iterations of `c` (as an `i64`) at `b`.
pub fn trip_count(b: &mut Builder, c: &Counted) -> Val {
    let w = c.bound.ty();
    let i64t = Ty::int(w.context(), 64);
    let mut s = c.start;
    if let Some(op) = c.widen {
        s = b.cast(op, s, w);
    }
    let one = w.int_const(1);
    // The first value compared (after the first iteration for a rotated loop, which has run
    // one iteration by then).
    let x0 = if c.on_next { b.add(s, one) } else { s };
    use IntPred::*;
    let diff = b.sub(c.bound, x0);
    let rest = match c.pred {
        LLVMIntNE => diff,
        p => {
            let inclusive = matches!(p, LLVMIntSLE | LLVMIntULE);
            let go = b.icmp(p, x0, c.bound);
            let count = if inclusive { b.add(diff, one) } else { diff };
            b.select(go, count, w.zero())
        }
    };
    let n = if c.at_latch { b.add(rest, one) } else { rest };
    if w.int_width() < 64 {
        b.cast(Opcode::LLVMZExt, n, i64t)
    } else {
        n
    }
}
