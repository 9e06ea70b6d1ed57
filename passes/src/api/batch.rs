//! Lowering `__enzyme_batch` requests (decoded by [`super::request::batch_args`]): a call of the
//! batched function [`crate::batch`] builds, its N results handed to the caller as the
//! aggregate the request is declared to return.

use super::lower::{deliver, finish};
use super::request::batch_args::BatchArg;
use super::Request;
use crate::cache::Session;
use crate::diag::{Error, Result};
use crate::ir::{Builder, Ty, TyKind, Val};

/// Lowers a decoded `__enzyme_batch` request: a call of the batched function (or of `f`
/// itself, when no parameter varies between lanes or there is one lane), its result handed to
/// the caller as the declared aggregate.
pub(super) fn lower_batch(session: &mut Session, req: &Request) -> Result<()> {
    let Some(plans) = &req.batch else {
        return Err(Error::internal(
            req.call,
            "a batch request without batch arguments",
        ));
    };
    let f = req.function;
    let params = f.function_type().param_types();
    let ret = f.function_type().return_type();
    let varies: Vec<bool> = plans.iter().map(BatchArg::varies).collect();
    let width = req.width;
    let mut b = Builder::new(session.module);
    b.position_before(req.call);
    // Each lane's value of every parameter.
    let mut lanes_of = Vec::with_capacity(plans.len());
    for (k, (plan, &pty)) in plans.iter().zip(&params).enumerate() {
        let lanes = match plan {
            BatchArg::Shared(v) => vec![convert(&mut b, req, *v, pty, k)?],
            BatchArg::Lanes(vs) => {
                let mut out = Vec::with_capacity(vs.len());
                for &v in vs {
                    out.push(convert(&mut b, req, v, pty, k)?);
                }
                out
            }
            BatchArg::Strided { base, stride } => {
                let base = convert(&mut b, req, *base, pty, k)?;
                let i64t = Ty::int(b.module().context(), 64);
                let i8t = Ty::int(b.module().context(), 8);
                let stride = b.sext_or_trunc(*stride, i64t);
                let mut out = vec![base];
                for l in 1..width {
                    let offset = b.mul(stride, i64t.int_const(l as u64));
                    out.push(b.gep(i8t, base, &[offset], false));
                }
                out
            }
        };
        lanes_of.push(lanes);
    }
    let results: Vec<Val> = if width == 1 || !varies.contains(&true) {
        // Every lane computes the same thing (lanes run in lockstep): once.
        let args: Vec<Val> = lanes_of.iter().map(|l| l[0]).collect();
        let call = b.call_function(f, &args);
        call.copy_debug_location(req.call);
        if ret.is_void() {
            Vec::new()
        } else {
            vec![call; width as usize]
        }
    } else {
        let batched = crate::batch::batch_function(session, f, &varies, width)?;
        let mut args = Vec::with_capacity(plans.len());
        for (lanes, &v) in lanes_of.iter().zip(&varies) {
            args.push(if v {
                let mut agg = Ty::array(lanes[0].ty(), width as u64).poison();
                for (l, &x) in lanes.iter().enumerate() {
                    agg = b.insert_value(agg, x, l as u32);
                }
                agg
            } else {
                lanes[0]
            });
        }
        let call = b.call_function(batched, &args);
        call.copy_debug_location(req.call);
        if ret.is_void() {
            Vec::new()
        } else {
            (0..width).map(|l| b.extract_value(call, l)).collect()
        }
    };
    let want = req.sret.map_or(req.call.ty(), |(_, ty)| ty);
    let used = req.call.has_uses() || req.sret.is_some();
    if used && !want.is_void() {
        if results.is_empty() {
            return Err(Error::user_at(
                req.call,
                format!(
                    "'{}' returns void, but the result of '{}' is used; declare the request as returning void",
                    f.name(),
                    req.call.called_value().name()
                ),
            ));
        }
        let v = as_declared(session, &mut b, req, &results, want)?;
        deliver(&mut b, req, v);
    }
    finish(req);
    Ok(())
}

/// Converts a request argument to the parameter type it stands for (C varargs promote `float`
/// to `double` and small integers to `int`).
fn convert(b: &mut Builder, req: &Request, v: Val, to: Ty, k: usize) -> Result<Val> {
    let from = v.ty();
    if from == to {
        return Ok(v);
    }
    match (from.kind(), to.kind()) {
        (TyKind::Float, TyKind::Float) => Ok(b.fp_cast(v, to)),
        (TyKind::Int, TyKind::Int) => Ok(b.sext_or_trunc(v, to)),
        _ => Err(Error::user_at(
            req.call,
            format!(
                "argument for parameter {} of '{}' has type {}, which does not match the parameter type {}",
                k + 1,
                req.function.name(),
                from.print(),
                to.print()
            ),
        )),
    }
}

/// The lanes' results as the request's declared type `want`: a struct, array or vector of one
/// element per lane (each the result's type, or a float or integer converted to it), or what
/// the C ABI makes of such a struct (`struct { float a, b, c, d; }` comes back as two
/// `<2 x float>`, `struct { int a, b; }` as an `i64`): the same bytes, reinterpreted.
fn as_declared(
    session: &Session,
    b: &mut Builder,
    req: &Request,
    results: &[Val],
    want: Ty,
) -> Result<Val> {
    let n = results.len();
    let r = results[0].ty();
    if n == 1 && (want == r || (want.is_float() && r.is_float()) || (want.is_int() && r.is_int())) {
        // One lane: the result itself, as Enzyme returns it at width 1.
        let v = results[0];
        return Ok(if want == r {
            v
        } else if want.is_float() {
            b.fp_cast(v, want)
        } else {
            b.sext_or_trunc(v, want)
        });
    }
    let elems: Option<Vec<Ty>> = match want.kind() {
        TyKind::Struct => Some(want.struct_fields()),
        TyKind::Array => Some(vec![want.element(); want.array_len() as usize]),
        TyKind::Vector => Some(vec![want.element(); want.vector_len() as usize]),
        _ => None,
    };
    let convertible = |e: Ty| {
        e == r
            || (e.is_float() && r.is_float())
            || (e.is_int() && r.is_int() && e.int_width() >= r.int_width())
    };
    if let Some(elems) = elems.filter(|es| es.len() == n && es.iter().all(|&e| convertible(e))) {
        let mut agg = want.poison();
        for (k, (&v, &e)) in results.iter().zip(&elems).enumerate() {
            let v = if v.ty() == e {
                v
            } else if e.is_float() {
                b.fp_cast(v, e)
            } else {
                b.sext_or_trunc(v, e)
            };
            agg = if want.is_vector() {
                let idx = Ty::int(want.context(), 32).int_const(k as u64);
                b.insert_element(agg, v, idx)
            } else {
                b.insert_value(agg, v, k as u32)
            };
        }
        return Ok(agg);
    }
    let m = session.module;
    let lanes_ty = Ty::array(r, n as u64);
    let same_bytes = m.alloc_size(want) == m.alloc_size(lanes_ty)
        && want.contains_float() == r.contains_float()
        && !want.contains_ptr()
        && !r.contains_ptr();
    if n > 1 && same_bytes {
        // The ABI's coercion of a struct of `n` results: store them as the struct lays them
        // out, read them back as the coerced type (SROA turns this into register moves).
        let mut agg = lanes_ty.poison();
        for (k, &v) in results.iter().enumerate() {
            agg = b.insert_value(agg, v, k as u32);
        }
        let slot = entry_alloca(b, req.call, lanes_ty);
        b.store(agg, slot, 0);
        return Ok(b.load(want, slot, 0));
    }
    Err(Error::user_at(
        req.call,
        format!(
            "'{}' is declared to return {}, but with enzyme_width {n} it returns {n} values of type {}; declare it to return a struct of {n} such fields (or an array or vector of {n})",
            req.call.called_value().name(),
            want.print(),
            r.print()
        ),
    ))
}

/// An `alloca` of `ty` at the start of the function holding `at`, then back before `at`.
fn entry_alloca(b: &mut Builder, at: Val, ty: Ty) -> Val {
    let entry = at.parent_block().parent().entry_block();
    match entry.first_instruction() {
        Some(first) => b.position_before(first),
        None => b.position_at_end(entry),
    }
    let slot = b.alloca(ty, "batch.result");
    b.position_before(at);
    slot
}
