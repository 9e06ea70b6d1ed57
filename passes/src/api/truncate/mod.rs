//! Enzyme's floating-point truncation: `__enzyme_truncate_op_func(f, FROM, TO)` and
//! `__enzyme_truncate_mem_func(f, FROM, TO)` return a copy of `f` computing in a narrower
//! format ([`rewrite`] says how each mode treats each instruction);
//! `__enzyme_truncate_mem_value(x, FROM, TO)` and `__enzyme_expand_mem_value(y, FROM, TO)`
//! convert a value into and out of mem mode's representation; `--truncate-all=SPEC`
//! (Enzyme's `-mllvm --enzyme-truncate-all=SPEC`) truncates the operations of every defined
//! function in place. `FROM` is a width (64, 32, 16); `TO` a width or, as two arguments, an
//! exponent and a significand width (`8, 23`).
//!
//! Lowered before anything else in the run: a request differentiating code that calls a
//! truncated copy differentiates the truncated operations (op mode); mem mode's bit-level
//! encoding is refused there ([`refuse_in_requests`]).
//!
//! Guarantees: after [`lower`] no call to these entry points is left, each either replaced or
//! refused with an error at the call (wrong arguments, a format without a native type).

pub mod format;
pub mod rewrite;

use super::names::{classify, ApiName, TruncateFn};
use crate::diag::{Error, ErrorKind, Result};
use crate::ir::{Builder, Module, Val};
use format::{Format, Truncation, ACCEPTED};
use rewrite::{Mode, Truncator};
use std::collections::HashSet;

/// What lowering left behind for the rest of the run to check.
#[derive(Default)]
pub struct Lowered {
    /// The mem-mode copies, which no request may differentiate.
    pub mem_copies: HashSet<Val>,
    /// Calls lowered plus functions `--truncate-all` rewrote.
    pub count: usize,
}

/// Applies `--truncate-all` (`spec`, Enzyme's syntax; empty: nothing) to every defined
/// function, then lowers every call to the truncation entry points.
pub fn lower(module: Module, spec: &str) -> Result<Lowered> {
    let all = format::parse_spec(spec)
        .map_err(|e| Error::general(format!("--truncate-all={spec}: {e}")))?;
    let mut truncator = Truncator::new(module);
    let mut count = 0;
    if !all.is_empty() {
        let defined: Vec<Val> = module
            .functions()
            .into_iter()
            .filter(|f| !f.is_declaration())
            .collect();
        // In order, as Enzyme applies them: `64to32;32to16` leaves everything at 16 bits.
        for t in &all {
            for &f in &defined {
                truncator.rewrite(f, *t, Mode::Op, false)?;
            }
        }
        count += defined.len();
    }
    for f in module.functions() {
        let Some(ApiName::Truncate(which)) = classify(&f.name()) else {
            continue;
        };
        for user in f.users() {
            if !user.is_call() || user.called_value() != f || user.is_invoke() {
                return Err(Error::user_at(
                    user,
                    format!("'{}' is used other than as a direct call", f.name()),
                ));
            }
            lower_call(&mut truncator, module, user, which)?;
            count += 1;
        }
        if !f.has_uses() {
            f.delete_global();
        }
    }
    let mem_copies = truncator
        .copies()
        .filter(|(_, m)| *m == Mode::Mem)
        .map(|(c, _)| c)
        .collect();
    Ok(Lowered { mem_copies, count })
}

/// Refuses a request whose function reaches a mem-mode copy: its values are bit patterns, whose
/// derivatives umbra does not define.
pub fn refuse_in_requests(lowered: &Lowered, requests: &[super::Request]) -> Result<()> {
    if lowered.mem_copies.is_empty() {
        return Ok(());
    }
    for r in requests {
        let reached = super::request::reachable(r.function);
        if let Some(c) = reached.iter().find(|f| lowered.mem_copies.contains(f)) {
            let what = if *c == r.function {
                format!("the memory-mode truncated '{}'", c.name())
            } else {
                format!(
                    "'{}', which calls the memory-mode truncated '{}'",
                    r.function.name(),
                    c.name()
                )
            };
            return Err(Error::user_at(
                r.call,
                format!(
                    "this request differentiates {what}: its doubles hold bit patterns without derivatives; umbra differentiates op-mode truncation (__enzyme_truncate_op_func) only"
                ),
            )
            .with_kind(ErrorKind::Unsupported));
        }
    }
    Ok(())
}

fn lower_call(
    truncator: &mut Truncator,
    module: Module,
    call: Val,
    which: TruncateFn,
) -> Result<()> {
    let name = call.called_value().name();
    let entry = super::names::api_identifier(&name).to_string();
    let args = call.call_args();
    if args.len() != 3 && args.len() != 4 {
        return Err(Error::user_at(
            call,
            format!(
                "'{entry}' takes 3 or 4 arguments ({}, FROM, TO or {}, FROM, TO_EXPONENT, TO_SIGNIFICAND), not {}",
                subject(which),
                subject(which),
                args.len()
            ),
        ));
    }
    let number = |k: usize| {
        args[k].const_int_value().ok_or_else(|| {
            Error::user_at(
                call,
                format!(
                    "argument {} of '{entry}' must be an integer constant",
                    k + 1
                ),
            )
        })
    };
    let unsupported = |what: String| {
        Error::user_at(call, format!("'{entry}': {what}; {ACCEPTED}"))
            .with_kind(ErrorKind::Unsupported)
    };
    let from_bits = number(1)?;
    let from = Format::from_width(from_bits)
        .ok_or_else(|| unsupported(format!("FROM {from_bits} is not a native width")))?;
    let to = if args.len() == 3 {
        let bits = number(2)?;
        Format::from_width(bits)
            .ok_or_else(|| unsupported(format!("TO {bits} is not a native width")))?
    } else {
        let (e, s) = (number(2)?, number(3)?);
        Format::from_pair(e, s).ok_or_else(|| {
            unsupported(format!(
                "TO with {e} exponent and {s} significand bits is not a native format"
            ))
        })?
    };
    let t =
        Truncation::new(from, to).map_err(|e| Error::user_at(call, format!("'{entry}': {e}")))?;
    let ctx = call.ty().context();
    let from_ty = from.ty(ctx);
    let replacement = match which {
        TruncateFn::OpFunc | TruncateFn::MemFunc => {
            let f = strip_casts(args[0]);
            if !f.is_function() || f.is_declaration() {
                return Err(Error::user_at(
                    call,
                    format!(
                        "the first argument of '{entry}' must be a function defined in this module (got '{}')",
                        args[0].print()
                    ),
                ));
            }
            let mode = if which == TruncateFn::OpFunc {
                Mode::Op
            } else {
                Mode::Mem
            };
            truncator.copy_of(f, t, mode, call)?
        }
        TruncateFn::MemValue | TruncateFn::ExpandValue => {
            if args[0].ty() != from_ty || call.ty() != from_ty {
                return Err(Error::user_at(
                    call,
                    format!(
                        "'{entry}' converts a {} and returns one (FROM is {from_bits})",
                        from.name()
                    ),
                ));
            }
            let mut b = Builder::new(module);
            b.position_before(call);
            if which == TruncateFn::MemValue {
                let v = b.fp_cast(args[0], to.ty(ctx));
                rewrite::encode(&mut b, v, t)
            } else {
                let v = rewrite::decode(&mut b, args[0], t);
                b.fp_cast(v, from_ty)
            }
        }
    };
    call.replace_all_uses_with(replacement);
    call.erase();
    Ok(())
}

fn subject(which: TruncateFn) -> &'static str {
    match which {
        TruncateFn::OpFunc | TruncateFn::MemFunc => "function",
        TruncateFn::MemValue | TruncateFn::ExpandValue => "value",
    }
}

/// A function behind pointer casts (a constant expression at -O0 in some front ends).
fn strip_casts(mut v: Val) -> Val {
    while v.is_constant_expr() && v.num_operands() == 1 {
        v = v.operand(0);
    }
    v
}
