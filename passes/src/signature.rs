//! Signatures of derived functions: the parameters, return types, names and target attributes
//! that forward derivatives (`fwddiffe.f.<codes>`) and reverse-mode pairs (`augfwd.f.<codes>`,
//! `adjoint.f.<codes>`) have, and how their parameters pair with the primal's. Everything that
//! declares, calls or fills in a derived function reads its shape from here, so the caller and
//! the callee can never disagree.
//!
//! An integer parameter or return value that the type analysis proves carries the bits of
//! floating-point data ([`FloatBits`]: a `double` passed as a `uint64_t`) is a float for
//! differentiation: its tangent (forward) or adjoint (reverse) has the float's type in the
//! derived signature, and the visitors bitcast at the boundary.

use crate::diag::{Error, Result};
use crate::ir::{Builder, Module, Ty, Val};
use crate::vocab::Activity;

/// The floating-point types that `f`'s integer parameters and integer return value carry as
/// bits, as the type analysis proved them ([`crate::analysis::types::float_bits`]); `None` for
/// everything else. The same for every call site: the analysis gives a parameter and every
/// argument passed to it one tree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FloatBits {
    /// Per parameter, in order (empty when no parameter carries float bits).
    pub params: Vec<Option<Ty>>,
    /// The return value.
    pub ret: Option<Ty>,
}

impl FloatBits {
    /// The float type parameter `k` carries, if any.
    pub fn param(&self, k: usize) -> Option<Ty> {
        self.params.get(k).copied().flatten()
    }

    /// The type of parameter `k`'s tangent or adjoint, `ty` being its own type.
    fn param_or(&self, k: usize, ty: Ty) -> Ty {
        self.param(k).unwrap_or(ty)
    }
}

/// True when the forward derivative of `f` returns `{ret, d_ret}`.
pub fn returns_tangent(f: Val, bits: &FloatBits) -> bool {
    f.function_type().return_type().carries_derivative() || bits.ret.is_some()
}

/// True when `f`'s adjoint takes the adjoint of its result (floating-point data, no pointers).
pub fn returns_adjoint(f: Val, bits: &FloatBits) -> bool {
    let r = f.function_type().return_type();
    r.contains_float() && !r.contains_ptr() || bits.ret.is_some()
}

/// The type of the tangent or adjoint of `f`'s result: the float type an integer result
/// carries, else the result's own type.
pub fn result_derivative_ty(f: Val, bits: &FloatBits) -> Ty {
    bits.ret.unwrap_or(f.function_type().return_type())
}

/// True when `f`'s augmented forward sweep returns `{result, shadow}`: a pointer result, or an
/// aggregate or vector of pointers without floating-point data (`{ptr, ptr}`, `<2 x ptr>`).
pub fn returns_shadow(f: Val) -> bool {
    let r = f.function_type().return_type();
    r.contains_ptr() && !r.contains_float()
}

/// The type of `width` tangents of a `ty` value: `ty` itself for one; `<width x ty>` for a
/// scalar `float` or `double`, so that one vector instruction computes every lane's tangent
/// (the SLP vectoriser packs lanes emitted one by one only partly); else `[width x ty]`
/// (pointers, integers carrying float bits, aggregates, vectors and the wider float formats,
/// whose lanes are handled one by one).
pub fn wide(ty: Ty, width: u32) -> Ty {
    if width == 1 {
        ty
    } else if is_vector_lane(ty) {
        Ty::vector(ty, width)
    } else {
        Ty::array(ty, width as u64)
    }
}

/// True for the types whose batched tangents are vectors of lanes ([`wide`]).
pub fn is_vector_lane(ty: Ty) -> bool {
    let ctx = ty.context();
    ty == Ty::double(ctx) || ty == Ty::float(ctx)
}

/// Lane `k` of `t`, a [`wide`] value of more than one lane.
pub fn lane_of(b: &mut Builder, t: Val, k: u32) -> Val {
    if t.ty().is_vector() {
        b.extract_lane(t, k)
    } else {
        b.extract_value(t, k)
    }
}

/// The [`wide`] value made of `lanes` (the one lane itself when there is one).
pub fn pack_lanes(b: &mut Builder, lanes: &[Val]) -> Val {
    if lanes.len() == 1 {
        return lanes[0];
    }
    let ty = wide(lanes[0].ty(), lanes.len() as u32);
    let mut agg = ty.poison();
    for (k, &l) in lanes.iter().enumerate() {
        agg = if ty.is_vector() {
            let idx = Ty::int(ty.context(), 32).int_const(k as u64);
            b.insert_element(agg, l, idx)
        } else {
            b.insert_value(agg, l, k as u32)
        };
    }
    agg
}

/// A derived function for a call-site type context of its own (a helper its callers pass
/// differently typed memory) is its own function: `.t<ctx>` in its name.
fn push_context(codes: &mut String, type_ctx: u32) {
    if type_ctx != 0 {
        codes.push_str(&format!(".t{type_ctx}"));
    }
}

/// Declares the forward derivative of `f` for `activity` (no body yet), carrying `width`
/// tangents per call: each shadow parameter and the result's tangent are [`wide`].
pub fn declare_forward(
    module: Module,
    f: Val,
    activity: &[Activity],
    width: u32,
    bits: &FloatBits,
    type_ctx: u32,
) -> Result<Val> {
    let fty = f.function_type();
    if fty.is_var_arg() {
        return Err(Error::in_function(
            f,
            "cannot differentiate a variadic function",
        ));
    }
    let ret = fty.return_type();
    let mut params = Vec::new();
    for (k, (p, a)) in fty.param_types().into_iter().zip(activity).enumerate() {
        params.push(p);
        if a.has_shadow() {
            params.push(wide(bits.param_or(k, p), width));
        }
    }
    let new_ret = if returns_tangent(f, bits) {
        let t = result_derivative_ty(f, bits);
        Ty::literal_struct(module.context(), &[ret, wide(t, width)])
    } else {
        ret
    };
    let mut codes: String = activity.iter().map(|a| a.code()).collect();
    if width > 1 {
        codes.push_str(&format!(".w{width}"));
    }
    push_context(&mut codes, type_ctx);
    let d = module.add_function(
        &format!("fwddiffe.{}.{}", f.name(), codes),
        Ty::function(new_ret, &params, false),
    );
    d.set_internal();
    copy_target_attributes(f, d);
    name_params(f, d, activity, 0);
    Ok(d)
}

/// Declares the augmented forward and adjoint functions of `f` for `activity`;
/// `context_suffix` names the caller context (`.s`: memory stable, `.wN`: typed writes).
pub fn declare_reverse(
    module: Module,
    f: Val,
    activity: &[Activity],
    context_suffix: &str,
    bits: &FloatBits,
    type_ctx: u32,
) -> Result<(Val, Val)> {
    let fty = f.function_type();
    if fty.is_var_arg() {
        return Err(Error::in_function(
            f,
            "cannot differentiate a variadic function",
        ));
    }
    let ret = fty.return_type();
    if ret.contains_float() && ret.contains_ptr() {
        return Err(Error::in_function(
            f,
            format!(
                "reverse mode cannot differentiate a function returning {}, which mixes floating-point data and pointers",
                ret.print()
            ),
        ));
    }
    let ctx = module.context();
    let ptr = Ty::ptr(ctx);
    let mut params = vec![ptr];
    let mut outs = Vec::new();
    for (k, (p, a)) in fty.param_types().into_iter().zip(activity).enumerate() {
        params.push(p);
        if a.has_shadow() {
            params.push(p);
        }
        if *a == Activity::Out {
            outs.push(bits.param_or(k, p));
        }
    }
    let aug_ret = if returns_shadow(f) {
        Ty::literal_struct(ctx, &[ret, ret])
    } else {
        ret
    };
    let mut codes: String = activity.iter().map(|a| a.code()).collect();
    codes.push_str(context_suffix);
    push_context(&mut codes, type_ctx);
    let aug = module.add_function(
        &format!("augfwd.{}.{}", f.name(), codes),
        Ty::function(aug_ret, &params, false),
    );
    let mut adj_params = params.clone();
    if returns_adjoint(f, bits) {
        adj_params.push(result_derivative_ty(f, bits));
    }
    let adj_ret = if outs.is_empty() {
        Ty::void(ctx)
    } else {
        Ty::literal_struct(ctx, &outs)
    };
    let adj = module.add_function(
        &format!("adjoint.{}.{}", f.name(), codes),
        Ty::function(adj_ret, &adj_params, false),
    );
    for d in [aug, adj] {
        d.set_internal();
        copy_target_attributes(f, d);
        name_reverse_params(f, d, activity);
    }
    Ok((aug, adj))
}

fn name_reverse_params(f: Val, d: Val, activity: &[Activity]) {
    let params = d.params();
    params[0].set_name("tape");
    name_params(f, d, activity, 1);
    let used = 1 + activity.len() + activity.iter().filter(|a| a.has_shadow()).count();
    if let Some(dret) = params.get(used) {
        dret.set_name("dret");
    }
}

/// Each parameter of `src` with the derived function `dst`'s copy of it and, when duplicated,
/// its shadow parameter; `dst`'s first `skip` parameters (the tape) are passed over.
pub fn paired_params(
    src: Val,
    dst: Val,
    activity: &[Activity],
    skip: usize,
) -> Vec<(Val, Val, Option<Val>)> {
    let mut dparams = dst.params().into_iter().skip(skip);
    let mut out = Vec::new();
    for (p, a) in src.params().into_iter().zip(activity) {
        let Some(dp) = dparams.next() else { break };
        let shadow = if a.has_shadow() { dparams.next() } else { None };
        out.push((p, dp, shadow));
    }
    out
}

/// Names `dst`'s parameters after `src`'s: `%x` and its shadow `%d.x`.
pub fn name_params(src: Val, dst: Val, activity: &[Activity], skip: usize) {
    for (p, dp, shadow) in paired_params(src, dst, activity, skip) {
        let name = p.name();
        dp.set_name(&name);
        if let Some(s) = shadow {
            if !name.is_empty() {
                s.set_name(&format!("d.{name}"));
            }
        }
    }
}

/// The derived function is compiled for the same target as the primal, so it vectorises alike.
pub fn copy_target_attributes(from: Val, to: Val) {
    to.copy_string_fn_attrs(from, &["target-cpu", "target-features", "tune-cpu"]);
}
