//! Vector reductions as the loop vectoriser emits them (`llvm.vector.reduce.*`). Sums reduce the
//! tangent vector the same way; products and min/max are expanded lane by lane, since their
//! derivatives depend on every lane.

use super::{Area, Effects, ForwardCall, ForwardRule, Reverse, Rule, RuleKind};
use crate::diag::Result;
use crate::ir::{RealPred, Val};

macro_rules! reduction {
    ($name:literal, $fwd:expr) => {
        Rule {
            name: $name,
            aliases: &[],
            libm_variants: false,
            area: Area::Vector,
            kind: RuleKind::Forward($fwd as ForwardRule, Reverse::Reduction),
            effects: Effects::NONE,
        }
    };
}

/// Every vector rule.
pub static RULES: &[Rule] = &[
    reduction!("llvm.vector.reduce.fadd", reduce_fadd_forward),
    reduction!("llvm.vector.reduce.fmul", reduce_fmul_forward),
    reduction!("llvm.vector.reduce.fmax", reduce_select_forward),
    reduction!("llvm.vector.reduce.fmin", reduce_select_forward),
    reduction!("llvm.vector.reduce.fmaximum", reduce_select_forward),
    reduction!("llvm.vector.reduce.fminimum", reduce_select_forward),
];

/// `reduce.fadd(start, v)`: the tangent is `reduce.fadd(dstart, dv)`.
fn reduce_fadd_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let (start, vec) = (c.args[0], c.args[1]);
    let (ds, dv) = (c.tangents[0], c.tangents[1]);
    let Some(dv) = dv else {
        return Ok(ds);
    };
    let ds = ds.unwrap_or_else(|| start.ty().float_const(-0.0));
    c.b.set_fast_math_from(c.call);
    Ok(c.b.intrinsic("llvm.vector.reduce.fadd", &[vec.ty()], &[ds, dv]))
}

/// `reduce.fmul(start, v)`: product rule accumulated lane by lane, in the reduction's order.
fn reduce_fmul_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let (start, vec) = (c.args[0], c.args[1]);
    if c.tangents.iter().all(Option::is_none) {
        return Ok(None);
    }
    let zero_s = start.ty().float_const(0.0);
    let mut p = start;
    let mut dp = c.tangents[0].unwrap_or(zero_s);
    for i in 0..vec.ty().vector_len() {
        let e = c.b.extract_lane(vec, i);
        let de = match c.tangents[1] {
            Some(dv) => c.b.extract_lane(dv, i),
            None => zero_s,
        };
        let a = c.b.fmul(dp, e);
        let bb = c.b.fmul(p, de);
        dp = c.b.fadd(a, bb);
        p = c.b.fmul(p, e);
    }
    Ok(Some(dp))
}

/// `reduce.fmax/fmin(v)`: the tangent of the lane equal to the result (the first such lane).
fn reduce_select_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let vec = c.args[0];
    let Some(dv) = c.tangents[0] else {
        return Ok(None);
    };
    let n = vec.ty().vector_len();
    let mut t = vec.ty().element().float_const(0.0);
    for i in (0..n).rev() {
        let e = c.b.extract_lane(vec, i);
        let de = c.b.extract_lane(dv, i);
        let hit = c.b.fcmp(RealPred::LLVMRealOEQ, e, c.call);
        t = c.b.select(hit, de, t);
    }
    Ok(Some(t))
}

#[cfg(test)]
mod tests {
    use super::super::harness::{check_rule, Case};

    #[test]
    fn reductions_match_finite_differences() {
        for name in [
            "llvm.vector.reduce.fadd",
            "llvm.vector.reduce.fmul",
            "llvm.vector.reduce.fmax",
            "llvm.vector.reduce.fmin",
            "llvm.vector.reduce.fmaximum",
            "llvm.vector.reduce.fminimum",
        ] {
            check_rule(&Case::reduction(name, &[0.7, -1.3, 2.1, 0.4]));
        }
    }
}
