//! Vector reductions as the loop vectoriser emits them (`llvm.vector.reduce.*`), forward and
//! reverse halves side by side. Sums reduce the tangent vector the same way and spread the
//! adjoint back over every lane; products and min/max are expanded lane by lane, since their
//! derivatives depend on every lane (so their reverse halves read the lanes, and min/max the
//! result, from the forward sweep).
//!
//! Also the names of vector math functions ([`vector_abi_scalar`]): with `-fveclib=libmvec` the
//! vectoriser calls glibc's `_ZGVdN4v_sin` for four `sin`s at once; such a call is
//! differentiated by the scalar function's math rule, whose partials work lane by lane.

use super::calls::primal_only;
use super::calls::{
    AdjointCall, ArgAdjoints, ArgNeeds, CustomNeeds, CustomReverse, ForwardCall, ForwardRule,
};
use super::rule::{Area, Effects, Hidden, Reverse, Rule, RuleKind};
use crate::diag::Result;
use crate::ir::{Builder, Opcode, RealPred, Ty, Val};

/// The scalar function a vector math function computes lane by lane, from its name under the
/// vector function ABI (`_ZGV<isa><mask><lanes><parameters>_<scalar>`, as glibc's libmvec and
/// LLVM's `-fveclib` name them): `_ZGVdN4v_sin` → `sin`, `_ZGVbN2vv_pow` → `pow`. Only
/// unmasked variants (`N`) whose parameters are all vectors (`v`) qualify: a masked variant
/// takes a mask after them, and linear or uniform parameters (`l`, `u`) are not lane values.
pub fn vector_abi_scalar(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("_ZGV")?;
    let mut chars = rest.char_indices();
    let (_, isa) = chars.next()?;
    if !isa.is_ascii_lowercase() {
        return None;
    }
    let (_, mask) = chars.next()?;
    if mask != 'N' {
        return None;
    }
    let rest = &rest[2..];
    let lanes = rest.chars().take_while(|c| c.is_ascii_digit()).count();
    if lanes == 0 {
        return None;
    }
    let rest = &rest[lanes..];
    let params = rest.chars().take_while(|&c| c == 'v').count();
    let scalar = rest[params..].strip_prefix('_')?;
    (params > 0 && !scalar.is_empty()).then_some(scalar)
}

macro_rules! reduction {
    ($name:literal, $fwd:expr, $rev:expr) => {
        Rule {
            name: $name,
            aliases: &[],
            libm_variants: false,
            area: Area::Vector,
            kind: RuleKind::Forward($fwd as ForwardRule, Reverse::Custom(&$rev)),
            effects: Effects::NONE.hiding(Hidden::None),
        }
    };
}

/// `reduce.fadd(start, v)`: the adjoint is the same for every lane; nothing is taped.
static SUM: CustomReverse = CustomReverse {
    augment: primal_only,
    adjoint: reduce_fadd_adjoint,
    needs: CustomNeeds {
        args: ArgNeeds::None,
        result: false,
        saved: false,
        shadows_only: ArgNeeds::None,
    },
};
/// `reduce.fmul(start, v)`: the adjoint of a lane is the product of the others.
static PRODUCT: CustomReverse = CustomReverse {
    augment: primal_only,
    adjoint: reduce_fmul_adjoint,
    needs: CustomNeeds {
        args: ArgNeeds::All,
        result: false,
        saved: false,
        shadows_only: ArgNeeds::None,
    },
};
/// `reduce.fmax(v)` and kin: the adjoint goes to the first lane equal to the result.
static SELECTION: CustomReverse = CustomReverse {
    augment: primal_only,
    adjoint: reduce_select_adjoint,
    needs: CustomNeeds {
        args: ArgNeeds::All,
        result: true,
        saved: false,
        shadows_only: ArgNeeds::None,
    },
};

/// Every vector rule.
pub static RULES: &[Rule] = &[
    reduction!("llvm.vector.reduce.fadd", reduce_fadd_forward, SUM),
    reduction!("llvm.vector.reduce.fmul", reduce_fmul_forward, PRODUCT),
    reduction!("llvm.vector.reduce.fmax", reduce_select_forward, SELECTION),
    reduction!("llvm.vector.reduce.fmin", reduce_select_forward, SELECTION),
    reduction!(
        "llvm.vector.reduce.fmaximum",
        reduce_select_forward,
        SELECTION
    ),
    reduction!(
        "llvm.vector.reduce.fminimum",
        reduce_select_forward,
        SELECTION
    ),
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

/// `reduce.fadd(start, v)`: `d` to the start and to every lane.
fn reduce_fadd_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let Some(d) = c.d_result else {
        return Ok(vec![None, None]);
    };
    let splat = splat(c.b, d, c.src.operand(1).ty());
    Ok(vec![Some(d), Some(splat)])
}

/// `reduce.fmul(start, v)`: the start gets `d` times every lane; lane `k` gets `d` times the
/// start and the other lanes (no division, so a zero lane is exact).
fn reduce_fmul_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let Some(d) = c.d_result else {
        return Ok(vec![None, None]);
    };
    let (start, v) = (c.args[0], c.args[1]);
    let b = &mut *c.b;
    let n = v.ty().vector_len();
    let lanes: Vec<Val> = (0..n).map(|k| b.extract_lane(v, k)).collect();
    let all = lanes.iter().fold(None, |acc: Option<Val>, &l| {
        Some(acc.map_or(l, |a| b.fmul(a, l)))
    });
    let d_start = all.map(|all| b.fmul(d, all));
    let mut dv = v.ty().zero();
    for k in 0..n {
        let mut prod = start;
        for (l, &lane) in lanes.iter().enumerate() {
            if l as u32 != k {
                prod = b.fmul(prod, lane);
            }
        }
        let t = b.fmul(d, prod);
        let idx = Ty::int(v.ty().context(), 32).int_const(k as u64);
        dv = b.insert_element(dv, t, idx);
    }
    Ok(vec![d_start, Some(dv)])
}

/// `reduce.fmax/fmin/fmaximum/fminimum(v)`: the first lane equal to the result gets `d`.
fn reduce_select_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let (Some(d), Some(r)) = (c.d_result, c.result) else {
        return Ok(vec![None]);
    };
    let v = c.args[0];
    let b = &mut *c.b;
    let n = v.ty().vector_len();
    let bool_t = Ty::int(v.ty().context(), 1);
    let mut taken = bool_t.zero();
    let mut dv = v.ty().zero();
    for k in 0..n {
        let e = b.extract_lane(v, k);
        let hit = b.fcmp(RealPred::LLVMRealOEQ, e, r);
        let first = b.binop(Opcode::LLVMXor, taken, bool_t.int_const(1));
        let use_it = b.binop(Opcode::LLVMAnd, hit, first);
        taken = b.binop(Opcode::LLVMOr, taken, hit);
        let t = b.select(use_it, d, d.ty().zero());
        let idx = Ty::int(v.ty().context(), 32).int_const(k as u64);
        dv = b.insert_element(dv, t, idx);
    }
    Ok(vec![Some(dv)])
}

/// `d` in every lane of a `vty`.
fn splat(b: &mut Builder, d: Val, vty: Ty) -> Val {
    let mut v = vty.zero();
    for k in 0..vty.vector_len() {
        let idx = Ty::int(vty.context(), 32).int_const(k as u64);
        v = b.insert_element(v, d, idx);
    }
    v
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

    #[test]
    fn vector_abi_names_give_their_scalar_function() {
        use super::vector_abi_scalar;
        assert_eq!(vector_abi_scalar("_ZGVdN4v_sin"), Some("sin"));
        assert_eq!(vector_abi_scalar("_ZGVbN2vv_pow"), Some("pow"));
        assert_eq!(vector_abi_scalar("_ZGVeN16v_expf"), Some("expf"));
        assert_eq!(vector_abi_scalar("_ZGVnN2v_log"), Some("log"));
        // Masked, linear or uniform parameters, malformed names: not lane by lane.
        assert_eq!(vector_abi_scalar("_ZGVeM8v_sin"), None);
        assert_eq!(vector_abi_scalar("_ZGVdN4vl8_sincos"), None);
        assert_eq!(vector_abi_scalar("_ZGVdN4u_f"), None);
        assert_eq!(vector_abi_scalar("_ZGVdNv_sin"), None);
        assert_eq!(vector_abi_scalar("_ZGVdN4v"), None);
        assert_eq!(vector_abi_scalar("sin"), None);
    }
}
