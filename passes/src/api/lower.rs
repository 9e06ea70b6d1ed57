//! Replacing a decoded request call by a call to its derived function, converting the request's
//! arguments (C varargs promote `float` to `double`, small integers to `int`) to the parameter
//! types, and the derived result to the request's declared return type.

use super::Request;
use crate::cache::Session;
use crate::diag::{Error, Result};
use crate::ir::{Builder, Module, Ty, TyKind, Val};
use crate::unwind::Span;
use crate::vocab::Activity;

/// Completes the lowering of a request that was an `invoke`, now that its replacement code
/// stands before it: that code's calls that may unwind become invokes to the request's landing
/// pad, the request becomes a branch to its normal destination, and the phis of both
/// destinations see the blocks that now lead there.
pub(super) fn finish_invoked(module: Module, req: &Request, span: &Span) {
    let call = req.call;
    let (normal, unwind) = (call.normal_dest(), call.unwind_dest());
    let mut b = Builder::new(module);
    b.position_before(call);
    // Splitting moves the request along, and both destinations' phis with it.
    let preds = span.invoke_unwinding_calls(&mut b, unwind).preds;
    let last = call.parent_block();
    b.position_before(call);
    b.br(normal);
    call.erase();
    crate::unwind::rewrite_phi_edges(unwind, last, &preds);
    erase_marker_loads(req);
}

/// Reverse mode: a tape, the augmented forward sweep, the adjoint sweep seeded with 1.0 for a
/// floating-point result, and the `out` adjoints returned in argument order.
pub(super) fn lower_reverse(session: &mut Session, req: &Request) -> Result<()> {
    check_reverse(session, req)?;
    let f = req.function;
    let params = f.function_type().param_types();
    let ret = f.function_type().return_type();
    let acts: Vec<Activity> = req.args.iter().map(|a| a.activity).collect();
    // Nothing runs between the two sweeps here, so memory is stable.
    let ctx = request_context(session, req);
    let (aug, adj) = crate::derive::reverse_functions(session, f, &acts, true, ctx)?;

    let mut b = Builder::new(session.module);
    let caller = req
        .call
        .parent_function()
        .ok_or_else(|| Error::user_at(req.call, "request outside a function"))?;
    let tape = crate::reverse::new_tape(&mut b, caller, req.call);
    let mut args = vec![tape];
    args.extend(request_args(&mut b, req)?);
    // Should the forward sweep throw, its guard frees what it allocated.
    let guarded = crate::tape::owned::guarded(session.module, session.personality(), aug, false);
    let aug_call = b.call_function(guarded, &args);
    aug_call.copy_debug_location(req.call);
    // Between the sweeps the tape holds everything the forward sweep kept: its peak.
    crate::reverse::settle(&mut b, tape);
    if session.opts.tape_stats {
        crate::reverse::report_stats(&mut b, tape);
    }
    if crate::reverse::returns_adjoint(f, &session.float_bits_of(f, ctx)) {
        args.push(ret.float_const(1.0));
    }
    let adjoints = b.call_function(adj, &args);
    adjoints.copy_debug_location(req.call);
    crate::reverse::free_tape(&mut b, tape);
    deliver_gradient(&mut b, req, adjoints, &params)?;
    finish(req);
    Ok(())
}

/// The type context a request's function is derived in: the request's own when the type
/// analysis gave it one (a helper also called elsewhere on memory of other types), else 0.
pub(super) fn request_context(session: &Session, req: &Request) -> u32 {
    if !session.has_request(req.call) {
        return 0;
    }
    session.types().callee_context(req.call)
}

/// Hands the adjoint function's `{out adjoints...}` to the request's caller, when it wants them.
pub(super) fn deliver_gradient(
    b: &mut Builder,
    req: &Request,
    adjoints: Val,
    params: &[Ty],
) -> Result<()> {
    let want = req.sret.map_or(req.call.ty(), |(_, ty)| ty);
    if !want.is_void() && (req.call.has_uses() || req.sret.is_some()) {
        let outs: Vec<Ty> = params
            .iter()
            .zip(&req.args)
            .filter(|(_, p)| p.activity == Activity::Out)
            .map(|(t, _)| *t)
            .collect();
        // Nothing to return, and nothing reads what the caller declared (Enzyme's rwrloop.c at
        // -O0 keeps `double dstart = __enzyme_autodiff(...)` in a variable it never reads):
        // Enzyme gives an undefined value there, so does Umbra. A result that is read is still
        // an error below.
        let result = if outs.is_empty() && req.sret.is_none() && !result_read(req.call) {
            want.poison()
        } else {
            gradient_result(b, req, adjoints, &outs, want)?
        };
        deliver(b, req, result);
    }
    Ok(())
}

/// False when every use of `call` stores it into a local variable that nothing reads (only
/// stores, lifetime markers and loads whose value goes nowhere, as `(void)x;` leaves at -O0,
/// use it): the value is never observed.
fn result_read(call: Val) -> bool {
    call.users().into_iter().any(|u| {
        let into_dead_local = u.opcode() == crate::ir::Opcode::LLVMStore
            && u.operand(0) == call
            && u.operand(1).opcode() == crate::ir::Opcode::LLVMAlloca
            && u.operand(1).users().into_iter().all(|v| {
                v.opcode() == crate::ir::Opcode::LLVMStore && v.operand(1) == u.operand(1)
                    || v.opcode() == crate::ir::Opcode::LLVMLoad && !v.has_uses()
                    || v.is_call()
                        && v.called_function()
                            .is_some_and(|g| g.name().starts_with("llvm.lifetime."))
            });
        !into_dead_local
    })
}

/// The checks every reverse-mode request passes before its functions are derived: activities
/// that fit the parameters, a result that can be seeded. (Reverse over reverse needs no check:
/// the tape is plain differentiable IR, see [`crate::reverse`]'s tape.)
pub(super) fn check_reverse(session: &Session, req: &Request) -> Result<()> {
    let f = req.function;
    let params = f.function_type().param_types();
    let req_name = req.call.called_value().name();
    for (k, (plan, &pty)) in req.args.iter().zip(&params).enumerate() {
        let bad = match plan.activity {
            Activity::Dup | Activity::DupNoNeed if !pty.is_ptr() => Some(
                "in reverse mode 'dup' is for pointers; a floating-point value is 'out' (its adjoint is returned) or 'const'",
            ),
            Activity::Out if !pty.contains_float() || pty.contains_ptr() => {
                Some("'out' is for floating-point values passed by value")
            }
            _ => None,
        };
        if let Some(why) = bad {
            return Err(Error::user_at(
                req.call,
                format!(
                    "parameter {} of '{}' has type {}: {why}",
                    k + 1,
                    f.name(),
                    pty.print()
                ),
            ));
        }
    }
    let ret = f.function_type().return_type();
    if crate::reverse::returns_adjoint(f, &session.float_bits_of(f, request_context(session, req)))
        && !ret.is_float()
    {
        return Err(Error::user_at(
            req.call,
            format!(
                "'{}' returns {}; '{req_name}' seeds a scalar floating-point result (or none)",
                f.name(),
                ret.print()
            ),
        ));
    }
    Ok(())
}

/// Hands the request's result to its caller: through the `sret` memory, or as the call's value.
pub(super) fn deliver(b: &mut Builder, req: &Request, v: Val) {
    match req.sret {
        Some((ptr, _)) => {
            b.store(v, ptr, 0);
        }
        None => req.call.replace_all_uses_with(v),
    }
}

/// Maps the adjoint function's `{out adjoints...}` to the request's declared return type: one
/// scalar, or a struct (or, as C passes `struct {float a, b;}`, a vector) with one field per
/// `out` argument.
pub(super) fn gradient_result(
    b: &mut Builder,
    req: &Request,
    adj: Val,
    outs: &[Ty],
    want: Ty,
) -> Result<Val> {
    if want.is_vector() && want.vector_len() as usize == outs.len() && outs.len() > 1 {
        let mut v = want.poison();
        for k in 0..outs.len() as u32 {
            let d = b.extract_value(adj, k);
            let d = convert_result(b, req, d, want.element())?;
            let idx = Ty::int(b.module().context(), 32).int_const(k as u64);
            v = b.insert_element(v, d, idx);
        }
        return Ok(v);
    }
    if outs.len() == 1 && !(want.kind() == TyKind::Struct) {
        let d = b.extract_value(adj, 0);
        return convert_result(b, req, d, want);
    }
    let fields = if want.kind() == TyKind::Struct {
        want.struct_fields()
    } else {
        Vec::new()
    };
    // A struct whose floats are nested (Enzyme's `struct { double df[3]; }`, returned through
    // `sret`): its floating-point leaves in order, one per `out` argument.
    if fields.len() != outs.len() && !outs.is_empty() && float_leaves(want) == Some(outs.len()) {
        let mut next = 0;
        return nested_result(b, req, adj, want, &mut next);
    }
    if fields.len() != outs.len() || outs.is_empty() {
        return Err(Error::user_at(
            req.call,
            format!(
                "'{}' is declared to return {}, but '{}' has {} 'out' (active) argument(s); declare it to return {}",
                req.call.called_value().name(),
                want.print(),
                req.function.name(),
                outs.len(),
                match outs.len() {
                    0 => "void".to_string(),
                    1 => "double".to_string(),
                    n => format!("a struct of {n} floating-point fields"),
                }
            ),
        ));
    }
    let mut agg = want.poison();
    for (k, &field) in fields.iter().enumerate() {
        let d = b.extract_value(adj, k as u32);
        let d = convert_result(b, req, d, field)?;
        agg = b.insert_value(agg, d, k as u32);
    }
    Ok(agg)
}

/// How many floating-point scalars aggregate `t` is made of, when it is made of nothing else
/// (structs and arrays of floats, nested).
fn float_leaves(t: Ty) -> Option<usize> {
    match t.kind() {
        TyKind::Struct => t.struct_fields().into_iter().map(float_leaves).sum(),
        TyKind::Array => Some(float_leaves(t.element())? * t.array_len() as usize),
        _ if t.is_float() => Some(1),
        _ => None,
    }
}

/// Aggregate `want` ([`float_leaves`]) filled with the adjoints of `adj` from field `*next` on,
/// leaf by leaf.
fn nested_result(
    b: &mut Builder,
    req: &Request,
    adj: Val,
    want: Ty,
    next: &mut u32,
) -> Result<Val> {
    let parts: Vec<Ty> = match want.kind() {
        TyKind::Struct => want.struct_fields(),
        TyKind::Array => vec![want.element(); want.array_len() as usize],
        _ => {
            let d = b.extract_value(adj, *next);
            *next += 1;
            return convert_result(b, req, d, want);
        }
    };
    let mut agg = want.poison();
    for (k, part) in parts.into_iter().enumerate() {
        let v = nested_result(b, req, adj, part, next)?;
        agg = b.insert_value(agg, v, k as u32);
    }
    Ok(agg)
}

/// Removes the request call and the marker loads it no longer needs (a request that is an
/// `invoke` stays until [`finish_invoked`]).
pub(super) fn finish(req: &Request) {
    if req.call.is_invoke() {
        return;
    }
    req.call.erase();
    erase_marker_loads(req);
}

fn erase_marker_loads(req: &Request) {
    for &load in &req.marker_loads {
        if !load.has_uses() {
            load.erase();
        }
    }
}

pub(super) fn lower_forward(session: &mut Session, req: &Request) -> Result<()> {
    let f = req.function;
    let acts: Vec<Activity> = req.args.iter().map(|a| a.activity).collect();
    let ctx = request_context(session, req);
    let derived = crate::derive::forward_function_wide(session, f, &acts, req.width, ctx)?;

    let mut b = Builder::new(session.module);
    b.position_before(req.call);
    let args = request_args(&mut b, req)?;
    let call = b.call_function(derived, &args);
    call.copy_debug_location(req.call);

    let want = req.sret.map_or(req.call.ty(), |(_, ty)| ty);
    let bits = session.float_bits_of(f, ctx);
    let tangent = crate::forward::returns_tangent(f, &bits).then(|| b.extract_value(call, 1));
    match tangent {
        _ if want.is_void() || !(req.call.has_uses() || req.sret.is_some()) => {}
        Some(t) if req.width > 1 => {
            let t = batched_result(&mut b, req, t, want)?;
            deliver(&mut b, req, t);
        }
        Some(t) => {
            let t = convert_result(&mut b, req, t, want)?;
            deliver(&mut b, req, t);
        }
        None => {
            return Err(Error::user_at(
                req.call,
                format!(
                    "'{}' returns {}, which has no tangent, but the result of '{}' is used; declare the request as returning void",
                    f.name(),
                    f.function_type().return_type().print(),
                    req.call.called_value().name()
                ),
            ))
        }
    }
    finish(req);
    Ok(())
}

/// The request's primal arguments and shadows, converted to the parameter types, in the
/// derived functions' order (each parameter followed by its shadow when duplicated; batched,
/// by the [`crate::signature::wide`] value of its lanes' shadows).
pub(super) fn request_args(b: &mut Builder, req: &Request) -> Result<Vec<Val>> {
    let params = req.function.function_type().param_types();
    let mut args = Vec::new();
    for (k, (plan, &pty)) in req.args.iter().zip(&params).enumerate() {
        args.push(convert(b, req, plan.primal, pty, k, "argument")?);
        let Some(s) = plan.shadow else { continue };
        let first = convert(b, req, s, pty, k, "shadow")?;
        if req.width == 1 {
            args.push(first);
            continue;
        }
        let mut lanes = vec![first];
        for l in 1..req.width {
            let lane = match plan.stride {
                Some(stride) => {
                    let i64t = Ty::int(b.module().context(), 64);
                    let stride = b.sext_or_trunc(stride, i64t);
                    let offset = b.mul(stride, i64t.int_const(l as u64));
                    let i8t = Ty::int(b.module().context(), 8);
                    b.gep(i8t, first, &[offset], false)
                }
                None => convert(b, req, plan.more_shadows[l as usize - 1], pty, k, "shadow")?,
            };
            lanes.push(lane);
        }
        args.push(crate::signature::pack_lanes(b, &lanes));
    }
    Ok(args)
}

/// Batched forward mode: the lanes of the result's tangent as the request's declared result, a struct
/// of `width` floating-point fields, an array or a vector of `width` of them.
fn batched_result(b: &mut Builder, req: &Request, t: Val, want: Ty) -> Result<Val> {
    let n = req.width as usize;
    let lanes_of: Option<Vec<Ty>> = match want.kind() {
        TyKind::Struct => Some(want.struct_fields()),
        TyKind::Array => Some(vec![want.element(); want.array_len() as usize]),
        TyKind::Vector => Some(vec![want.element(); want.vector_len() as usize]),
        _ => None,
    };
    let Some(fields) = lanes_of.filter(|f| f.len() == n && f.iter().all(|t| t.is_float())) else {
        return Err(Error::user_at(
            req.call,
            format!(
                "'{}' is declared to return {}, but with enzyme_width {n} it returns {n} tangents; declare it to return a struct of {n} floating-point fields (or an array or vector of {n})",
                req.call.called_value().name(),
                want.print()
            ),
        ));
    };
    let mut agg = want.poison();
    for (k, &field) in fields.iter().enumerate() {
        let d = crate::signature::lane_of(b, t, k as u32);
        let d = convert_result(b, req, d, field)?;
        agg = if want.is_vector() {
            let idx = Ty::int(b.module().context(), 32).int_const(k as u64);
            b.insert_element(agg, d, idx)
        } else {
            b.insert_value(agg, d, k as u32)
        };
    }
    Ok(agg)
}

/// Converts a request argument to the parameter type it stands for.
fn convert(b: &mut Builder, req: &Request, v: Val, to: Ty, k: usize, what: &str) -> Result<Val> {
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
                "{what} for parameter {} of '{}' has type {}, which does not match the parameter type {}",
                k + 1,
                req.function.name(),
                from.print(),
                to.print()
            ),
        )),
    }
}

pub(super) fn convert_result(b: &mut Builder, req: &Request, t: Val, want: Ty) -> Result<Val> {
    let have = t.ty();
    if have == want {
        return Ok(t);
    }
    if have.is_float() && want.is_float() {
        return Ok(b.fp_cast(t, want));
    }
    Err(Error::user_at(
        req.call,
        format!(
            "'{}' is declared to return {}, but the tangent of '{}' has type {}, which does not match",
            req.call.called_value().name(),
            want.print(),
            req.function.name(),
            have.print()
        ),
    ))
}

/// Deletes the request declarations and marker globals that no longer have uses.
pub fn remove_request_declarations(module: Module) {
    for f in module.functions() {
        let is_request = matches!(
            super::names::classify(&f.name()),
            Some(super::names::ApiName::Request(_) | super::names::ApiName::Batch)
        );
        if is_request && !f.has_uses() && f.is_declaration() {
            f.delete_global();
        }
    }
    // Declarations only: `extern int enzyme_dup;` needs no definition once its loads are gone
    // (C++ may mangle the name; a definition stays, it is the user's). One still used gets a
    // weak definition.
    for g in module.globals() {
        if !g.is_declaration() || super::markers::decode(g).is_none() {
            continue;
        }
        // A marker passed as `ptrtoint (ptr @enzyme_dup to i64)` leaves that constant behind,
        // unused, still referring to the global: detach it first.
        let users = g.users();
        if users.iter().all(|u| u.is_constant_expr() && !u.has_uses()) {
            if !users.is_empty() {
                g.replace_all_uses_with(g.ty().poison());
            }
            g.delete_global();
        } else {
            // Still referred to by code the requests leave behind: AddressSanitizer's check of
            // the marker's load (its address, shifted, indexes the shadow bytes), or marker
            // loads an `-O0` pipeline keeps. Nothing reads the value; a weak zero definition
            // lets the program link whether or not another file defines the marker.
            g.set_initializer(g.global_value_type().zero());
            g.set_weak();
        }
    }
}
