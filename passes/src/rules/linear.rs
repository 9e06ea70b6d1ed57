//! Where partial derivatives meet tangents and adjoints: the one place both modes turn a rule's
//! partials into code. Forward mode sums `partial · tangent` over the operands; reverse mode adds
//! `partial · adjoint` to each operand's adjoint. Both go through [`scale`], which keeps the
//! common partials cheap and exact:
//!
//! - `1` and `-1` pass the value through (negated);
//! - `1 / x` (what `recip` builds) becomes a division by `x`: one rounding, no reciprocal, and
//!   a zero tangent or adjoint stays exactly zero even where `x` is zero (a strong zero: `sqrt`
//!   and `log` at 0, a division by a selected-away zero). The division is `arcp`: where `x` does
//!   not change in a loop, LLVM divides once before it and multiplies in it;
//! - an indicator `select(c, 1, 0)` becomes `select(c, v, 0)`, so a value the selection
//!   discards contributes an exact zero even when it is infinite or NaN (a strong zero);
//! - a partial with a power among its factors (`llvm.pow`, `llvm.powi`: `y x^(y-1)` is
//!   infinite at `x = 0` for `y < 1`) is a strong product: exactly zero where the tangent or
//!   adjoint is zero, instead of `0 · inf = NaN`;
//! - anything else is a multiplication.
//!
//! In batched forward mode the tangents of a scalar are one vector of lanes; a scalar partial
//! is then broadcast where it meets them ([`fit`]), so each lane's term is one vector
//! instruction for all lanes.
//!
//! A partial that nothing uses after scaling (the dead `1 / x` of the rewrite, or the partial of
//! an inactive operand) is erased by [`erase_unused`], so the derived code holds no instruction
//! the derivative does not use.

use crate::ir::{Block, Builder, Opcode, RealPred, Val};
use std::collections::{HashMap, HashSet};

/// `p · v` for a partial `p` and a tangent or adjoint `v`; `v_first` orders a product's operands
/// as written by hand (`da · b` and `a · db` for a product `a · b`, `cos(x) · dx` for a call).
#[allow(dead_code)] // The entry point docs/reference/writing-rules.md documents for hand-written rules.
pub fn scale(b: &mut Builder, p: Val, v: Val, v_first: bool) -> Val {
    scale_sharing(b, p, v, v_first, &mut Quotients::default())
}

/// The divisions of one instruction's partials: `v / den` (a strong zero) already built for
/// the same `v`, by denominator; and, when known, which partials the rule built. Only those
/// are rewritten as quotients: a partial that is a division the program computes anyway (`z`
/// in `z · z` where `z = a / s`) is multiplied, since rewriting `z · v` as `(a · v) / s` would
/// divide again.
#[derive(Default)]
pub struct Quotients {
    shared: HashMap<Val, Val>,
    rule_built: Option<HashSet<Val>>,
}

impl Quotients {
    /// For partials a rule built in `built` (from [`built_since`]); other partials are values
    /// of the program.
    pub fn of_rule(built: &[Val]) -> Quotients {
        Quotients {
            shared: HashMap::new(),
            rule_built: Some(built.iter().copied().collect()),
        }
    }

    /// `p = n / den` as a quotient to rewrite (`n` = `None` for `1 / den`).
    fn quotient(&self, p: Val) -> Option<(Option<Val>, Val)> {
        if self.rule_built.as_ref().is_some_and(|s| !s.contains(&p)) {
            return None;
        }
        quotient(p)
    }

    /// `p = ±(n / den)`: the quotient to rewrite and whether it is negated.
    fn signed_quotient(&self, p: Val) -> Option<(Option<Val>, Val, bool)> {
        if let Some((n, den)) = self.quotient(p) {
            return Some((n, den, false));
        }
        if p.is_instruction() && p.opcode() == Opcode::LLVMFNeg {
            return self.quotient(p.operand(0)).map(|(n, den)| (n, den, true));
        }
        None
    }
}

/// [`scale`] for several partials of one instruction applied to the same `v`: once `v / den`
/// is built for one of them (`fdiv`'s `1 / b`), a later quotient by the same `den`
/// (`-r / b`) multiplies it (`-(r · (v / b))`) instead of dividing again, so an `fdiv`'s
/// adjoint divides once, as a hand-written one does.
pub fn scale_sharing(b: &mut Builder, p: Val, v: Val, v_first: bool, seen: &mut Quotients) -> Val {
    if is_splat_of(p, 1.0) {
        return v;
    }
    if is_splat_of(p, -1.0) {
        return negate(b, v);
    }
    if let Some((n, den)) = seen.quotient(p) {
        if let (Some(n), Some(&t)) = (n, seen.shared.get(&den)) {
            let q = product(b, n, t, false);
            return strong_zero(b, v, q);
        }
        // `(n / den) · v` as `(n · v) / den`: one division either way, no reciprocal.
        let num = match n {
            None => v,
            Some(n) => product(b, n, v, v_first),
        };
        let den = fit(b, den, num);
        let q = divide(b, num, den);
        let q = strong_zero(b, num, q);
        if n.is_none() {
            seen.shared.insert(den, q);
        }
        return q;
    }
    if p.is_instruction() {
        match p.opcode() {
            Opcode::LLVMFNeg => {
                let s = scale_sharing(b, p.operand(0), v, v_first, seen);
                return negate(b, s);
            }
            Opcode::LLVMSelect => {
                let (c, t, f) = (p.operand(0), p.operand(1), p.operand(2));
                if is_splat_of(t, 1.0) && is_splat_of(f, 0.0) {
                    return b.select(c, v, v.ty().zero());
                }
                if is_splat_of(t, 0.0) && is_splat_of(f, 1.0) {
                    return b.select(c, v.ty().zero(), v);
                }
            }
            _ => {}
        }
    }
    let q = product(b, p, v, v_first);
    if has_power_factor(p) {
        return strong_zero(b, v, q);
    }
    q
}

/// True when `p` is a power, or a product, negation or selection with a power among its
/// factors: the partials that may be infinite at finite operands where no quotient shows it
/// (a quotient is made a strong zero by its own rewrite). Other partials stay plain products,
/// so ordinary derivative code carries no extra compare.
fn has_power_factor(p: Val) -> bool {
    if !p.is_instruction() {
        return false;
    }
    match p.opcode() {
        Opcode::LLVMCall => p
            .called_function()
            .is_some_and(|f| f.name().starts_with("llvm.pow")),
        Opcode::LLVMFMul => has_power_factor(p.operand(0)) || has_power_factor(p.operand(1)),
        Opcode::LLVMFNeg => has_power_factor(p.operand(0)),
        Opcode::LLVMSelect => has_power_factor(p.operand(1)) || has_power_factor(p.operand(2)),
        _ => false,
    }
}

/// `q = num / den` (or `p · num`), but exactly zero where `num` is zero: a zero tangent or
/// adjoint through an infinite partial (`sqrt`, `log`, a division at a zero denominator, a
/// power at zero) contributes nothing rather than NaN (Enzyme's strong zero).
fn strong_zero(b: &mut Builder, num: Val, q: Val) -> Val {
    let zero = num.ty().zero();
    let is_zero = b.fcmp(RealPred::LLVMRealOEQ, num, zero);
    b.select(is_zero, zero, q)
}

/// A quotient of derivative code, `arcp`: a division by a denominator that does not change in
/// a loop becomes a multiplication by its reciprocal computed once before the loop (LICM), as
/// a hand-written gradient does (lognormal_model's adjoint divided twice per data point where
/// the primal divides once). At most one rounding more; a zero numerator still gives an exact
/// zero (the [`strong_zero`] select around it).
fn divide(b: &mut Builder, num: Val, den: Val) -> Val {
    let q = b.fdiv(num, den);
    b.allow_reciprocal(q)
}

/// `-v`, `arcp` too: LLVM moves a negation through products and selections into a division's
/// numerator and keeps only the flags both carry, so a plain negation of an adjoint would take
/// `arcp` off the quotient it meets. Alone, `arcp` on a negation changes nothing.
fn negate(b: &mut Builder, v: Val) -> Val {
    let n = b.fneg(v);
    b.allow_reciprocal(n)
}

fn product(b: &mut Builder, p: Val, v: Val, v_first: bool) -> Val {
    let p = fit(b, p, v);
    if v_first {
        b.fmul(v, p)
    } else {
        b.fmul(p, v)
    }
}

/// `x` shaped like `like`: broadcast to every lane when `like` is a vector of tangents or
/// adjoints and `x` a scalar partial (batched forward mode computes the lanes of a scalar's
/// tangents as one vector, from partials built once on the scalar primal).
fn fit(b: &mut Builder, x: Val, like: Val) -> Val {
    let ty = like.ty();
    if ty.is_vector() && !x.ty().is_vector() {
        b.splat(x, ty.vector_len())
    } else {
        x
    }
}

/// `p = n / den` (`n` = `None` for `1 / den`).
fn quotient(p: Val) -> Option<(Option<Val>, Val)> {
    if !p.is_instruction() || p.opcode() != Opcode::LLVMFDiv {
        return None;
    }
    let n = p.operand(0);
    Some(((!is_splat_of(n, 1.0)).then_some(n), p.operand(1)))
}

/// `Σ p_k · t_k` over the pairs whose partial and tangent both exist (`None`: zero). A negated
/// partial after the first term subtracts, so `fsub`'s tangent is `da - db`; when every term is
/// a quotient by the same denominator, the sum is divided once (`fdiv`'s tangent is
/// `(da - r · db) / b`). `order` says, per term, whether the tangent comes first in a product
/// (see [`scale`]).
/// `built` (from [`built_since`]) says which partials the rule built (see [`Quotients`]).
pub fn combine(
    b: &mut Builder,
    terms: &[(Option<Val>, Option<Val>)],
    order: impl Fn(usize) -> bool,
    built: &[Val],
) -> Option<Val> {
    let seen = Quotients::of_rule(built);
    let mut present: Vec<(usize, Val, Val)> = Vec::new();
    for (k, &(p, t)) in terms.iter().enumerate() {
        let (Some(p), Some(t)) = (p, t) else { continue };
        // A square `x · x` (or `fmuladd(x, x, c)`): both terms are `x · dx`, so the tangent
        // is `(dx + dx) · x`, one product.
        match present.iter_mut().find(|e| e.1 == p && e.2 == t) {
            Some(e) => e.2 = b.fadd(t, t),
            None => present.push((k, p, t)),
        }
    }
    let quotients: Option<Vec<_>> = present
        .iter()
        .map(|&(k, p, t)| {
            seen.signed_quotient(p)
                .map(|(n, den, neg)| (k, n, den, neg, t))
        })
        .collect();
    if let Some(qs) = quotients {
        if let Some(&(_, _, den, _, _)) = qs.first() {
            if qs.iter().all(|q| q.2 == den) {
                let mut num: Option<Val> = None;
                for (k, n, _, neg, t) in qs {
                    let term = match n {
                        None => t,
                        Some(n) => product(b, n, t, order(k)),
                    };
                    num = Some(match (num, neg) {
                        (None, false) => term,
                        (None, true) => negate(b, term),
                        (Some(a), false) => b.fadd(a, term),
                        (Some(a), true) => b.fsub(a, term),
                    });
                }
                return num.map(|n| {
                    let den = fit(b, den, n);
                    let q = divide(b, n, den);
                    strong_zero(b, n, q)
                });
            }
        }
    }
    let mut acc: Option<Val> = None;
    for (k, p, t) in present {
        acc = Some(match acc {
            Some(a) if is_splat_of(p, -1.0) => b.fsub(a, t),
            Some(a) if p.is_instruction() && p.opcode() == Opcode::LLVMFNeg => {
                let term =
                    scale_sharing(b, p.operand(0), t, order(k), &mut Quotients::of_rule(built));
                b.fsub(a, term)
            }
            Some(a) => {
                let term = scale_sharing(b, p, t, order(k), &mut Quotients::of_rule(built));
                b.fadd(a, term)
            }
            None => scale_sharing(b, p, t, order(k), &mut Quotients::of_rule(built)),
        });
    }
    acc
}

/// Where the builder stood before a rule built its partials: the instructions around the
/// insertion point, so that [`built_since`] finds what was built between them without scanning
/// (or remembering) the whole block, which made differentiating one long block quadratic.
pub struct Mark {
    block: Block,
    prev: Option<Val>,
    next: Option<Val>,
}

/// Marks where the builder stands, to tell afterwards which instructions a rule built.
pub fn mark(b: &Builder) -> Mark {
    let block = b.current_block();
    let next = b.insertion_point();
    let prev = match next {
        Some(n) => n.previous_instruction(),
        None => block.last_instruction(),
    };
    Mark { block, prev, next }
}

/// The instructions built at the builder's insertion point since `before` (a [`mark`]). A
/// rule that moved on to another block built all of that block.
pub fn built_since(b: &Builder, before: &Mark) -> Vec<Val> {
    let block = b.current_block();
    if block != before.block {
        return block.instructions();
    }
    let mut out = Vec::new();
    let mut at = match before.prev {
        Some(p) => p.next_instruction(),
        None => block.first_instruction(),
    };
    while let Some(i) = at {
        if Some(i) == before.next {
            break;
        }
        out.push(i);
        at = i.next_instruction();
    }
    out
}

/// Erases those of `built` (what a rule's partials built, from [`built_since`]) that nothing
/// uses: the partials of inactive operands and those [`scale`] rewrote away. Only what the rule
/// itself built is touched, never a value that existed before it.
pub fn erase_unused(built: Vec<Val>) {
    // Users come after what they use, so one backward pass frees whole dead chains.
    for i in built.into_iter().rev() {
        if !i.has_uses() && !i.ty().is_void() && is_pure(i) {
            i.erase();
        }
    }
}

/// Instructions a partial may consist of that have no effect besides their value.
fn is_pure(i: Val) -> bool {
    use Opcode::*;
    match i.opcode() {
        LLVMCall => i.called_function().is_some_and(|f| f.intrinsic_id() != 0),
        LLVMStore | LLVMFence | LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMInvoke => false,
        _ => true,
    }
}

/// True when `v` is the floating-point constant `x`, or a vector of it in every lane.
fn is_splat_of(v: Val, x: f64) -> bool {
    v.const_float_splat().is_some_and(|c| c == x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{parse_test_module, Module};
    use inkwell::context::Context;

    #[test]
    fn built_since_finds_what_was_built_at_the_insertion_point() {
        let ctx = Context::create();
        let m = parse_test_module(
            &ctx,
            "define double @f(double %x) {\n  %a = fadd double %x, %x\n  %b = fmul double %a, %x\n  ret double %b\n}\n",
        );
        let module = Module(m.as_mut_ptr());
        let f = module.function("f").unwrap();
        let x = f.params()[0];
        let block = f.entry_block();
        let [a, bm, ret] = block.instructions()[..] else {
            panic!("three instructions expected")
        };
        let mut b = Builder::new(module);
        // Before an instruction: only the two new ones, not those around them.
        b.position_before(bm);
        let before = mark(&b);
        let n1 = b.fmul(a, x);
        let n2 = b.fadd(n1, x);
        assert_eq!(built_since(&b, &before), vec![n1, n2]);
        // At the end of the block.
        b.position_at_end(block);
        let before = mark(&b);
        assert!(built_since(&b, &before).is_empty());
        let n3 = b.fadd(x, x);
        assert_eq!(built_since(&b, &before), vec![n3]);
        erase_unused(vec![n1, n2, n3]);
        assert_eq!(block.instructions(), vec![a, bm, ret]);
    }
}
