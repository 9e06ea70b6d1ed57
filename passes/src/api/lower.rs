//! Replacing a decoded request call by a call to its derived function, converting the request's
//! arguments (C varargs promote `float` to `double`, small integers to `int`) to the parameter
//! types, and the derived result to the request's declared return type.

use super::{Activity, Mode, Request};
use crate::cache::Session;
use crate::diag::{Error, Result};
use crate::ir::{Builder, Module, Ty, TyKind, Val};

/// Lowers one request: generates (or reuses) its derived function and rewrites the call.
pub fn lower_request(session: &mut Session, req: &Request) -> Result<()> {
    match req.mode {
        Mode::Forward => lower_forward(session, req),
        Mode::Reverse => Err(Error::at(
            req.call,
            format!(
                "reverse mode ('{}') is not supported yet; use forward mode (__enzyme_fwddiff) for now",
                req.call.called_value().name()
            ),
        )),
    }
}

fn lower_forward(session: &mut Session, req: &Request) -> Result<()> {
    let f = req.function;
    let acts: Vec<Activity> = req.args.iter().map(|a| a.activity).collect();
    let derived = session.forward_function(f, &acts)?;
    let params = f.function_type().param_types();

    let mut b = Builder::new(session.module);
    b.position_before(req.call);
    let mut args = Vec::new();
    for (k, (plan, &pty)) in req.args.iter().zip(&params).enumerate() {
        args.push(convert(&mut b, req, plan.primal, pty, k, "argument")?);
        if let Some(s) = plan.shadow {
            args.push(convert(&mut b, req, s, pty, k, "shadow")?);
        }
    }
    let call = b.call_function(derived, &args);
    call.copy_debug_location(req.call);

    let want = req.call.ty();
    let tangent = crate::forward::returns_tangent(f).then(|| b.extract_value(call, 1));
    match tangent {
        _ if want.is_void() || !req.call.has_uses() => {}
        Some(t) => {
            let t = convert_result(&mut b, req, t, want)?;
            req.call.replace_all_uses_with(t);
        }
        None => {
            return Err(Error::at(
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
    req.call.erase();
    for &load in &req.marker_loads {
        if !load.has_uses() {
            load.erase();
        }
    }
    Ok(())
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
        _ => Err(Error::at(
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

fn convert_result(b: &mut Builder, req: &Request, t: Val, want: Ty) -> Result<Val> {
    let have = t.ty();
    if have == want {
        return Ok(t);
    }
    if have.is_float() && want.is_float() {
        return Ok(b.fp_cast(t, want));
    }
    Err(Error::at(
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
        let name = f.name();
        let is_request = ["__umbra_", "__enzyme_"].iter().any(|p| {
            name.starts_with(p) && (name.contains("fwddiff") || name.contains("autodiff"))
        });
        if is_request && !f.has_uses() && f.is_declaration() {
            f.delete_global();
        }
    }
    let markers = ["dup", "dupnoneed", "const", "out"];
    for prefix in ["umbra_", "enzyme_"] {
        for m in markers {
            if let Some(g) = module.global(&format!("{prefix}{m}")) {
                if !g.has_uses() && g.is_declaration() {
                    g.delete_global();
                }
            }
        }
    }
}
