//! Enzyme's `__enzyme_call_inactive(fn, args...)`: calls `fn(args...)` in the primal only. In
//! differentiated code nothing flows through the call, whatever its arguments and result carry
//! (Enzyme gives the call its `enzyme_inactive` attribute); elsewhere it is a plain call.
//!
//! Before requests are read ([`lower`]), each call becomes a call of a wrapper of its own,
//! `umbra.call_inactive.<fn>(args...)` (`umbra.call_inactive.indirect(fn, args...)` when `fn`
//! is not a known function), whose body is the call. The rule table treats every call of such a
//! wrapper as inactive ([`crate::rules::inactive::CALL_INACTIVE_PREFIX`]): both modes run it as
//! it is, in the primal only, and the analyses read what it writes from its body. After the
//! requests ([`finish`]), every call of a wrapper, in the program and in the derived code,
//! becomes the plain call again and the wrappers go.
//!
//! Guarantees: after [`finish`] no wrapper and no `__enzyme_call_inactive` call is left; a use
//! other than a direct call (or invoke) whose first argument is a function pointer, or a call
//! whose arguments or result do not match the known function's type, is refused by name.

use crate::diag::{Error, Result};
use crate::ir::{Builder, Module, Ty, Val};
use crate::rules::inactive::CALL_INACTIVE_PREFIX;

/// Replaces every `__enzyme_call_inactive(fn, args...)` (C or C++ name) by a call of a wrapper
/// the rule table treats as inactive.
pub fn lower(module: Module) -> Result<()> {
    for f in module.functions() {
        if super::names::classify(&f.name()) != Some(super::names::ApiName::CallInactive) {
            continue;
        }
        let shown = super::names::api_identifier(&f.name()).to_string();
        for u in f.users() {
            if !u.is_call() || u.called_value() != f {
                return Err(Error::user_at(
                    u,
                    format!("'{shown}' is used other than as a direct call"),
                ));
            }
            lower_call(module, u, &shown)?;
        }
        if !f.has_uses() {
            f.delete_global();
        }
    }
    Ok(())
}

/// One call: checked against the callee's type when it is known, then redirected to a wrapper.
fn lower_call(m: Module, call: Val, shown: &str) -> Result<()> {
    let args = call.call_args();
    let Some(&target) = args.first().filter(|a| a.ty().is_ptr()) else {
        return Err(Error::user_at(
            call,
            format!("'{shown}' takes the function to call first, then its arguments"),
        ));
    };
    let rest = &args[1..];
    let ret = call.ty();
    let ctx = m.context();
    // The type the call is made with: the known function's own (checked against the
    // arguments given), else the one the arguments and result spell.
    let inner = if target.is_function() {
        let fty = target.function_type();
        let params = fty.param_types();
        let count_ok = if fty.is_var_arg() {
            rest.len() >= params.len()
        } else {
            rest.len() == params.len()
        };
        let types_ok = params.iter().zip(rest).all(|(p, a)| *p == a.ty());
        let ret_ok = fty.return_type() == ret || ret.is_void() || !call.has_uses();
        if !(count_ok && types_ok && ret_ok) {
            let given: Vec<String> = rest.iter().map(|a| a.ty().print()).collect();
            return Err(Error::user_at(
                call,
                format!(
                    "'{shown}' calls '{}' with ({}) returning {}, but '{}' is {}",
                    target.name(),
                    given.join(", "),
                    ret.print(),
                    target.name(),
                    fty.print()
                ),
            ));
        }
        fty
    } else {
        let tys: Vec<Ty> = rest.iter().map(|a| a.ty()).collect();
        Ty::function(ret, &tys, false)
    };
    // The wrapper returns what the call site receives (nothing, when it drops the result).
    let wrapper_ret = if inner.return_type() == ret {
        ret
    } else {
        Ty::void(ctx)
    };
    let (name, params): (String, Vec<Ty>) = if target.is_function() {
        (
            format!("{CALL_INACTIVE_PREFIX}{}", target.name()),
            rest.iter().map(|a| a.ty()).collect(),
        )
    } else {
        (
            format!("{CALL_INACTIVE_PREFIX}indirect"),
            args.iter().map(|a| a.ty()).collect(),
        )
    };
    let w = m.add_function(&name, Ty::function(wrapper_ret, &params, false));
    w.set_internal();
    let mut b = Builder::new(m);
    b.position_at_end(w.append_block("entry"));
    let wp = w.params();
    let (callee, pass) = if target.is_function() {
        (target, &wp[..])
    } else {
        (wp[0], &wp[1..])
    };
    let r = b.call(inner, callee, pass);
    if wrapper_ret.is_void() {
        b.ret_void();
    } else {
        b.ret(r);
    }
    let wargs: Vec<Val> = if target.is_function() {
        rest.to_vec()
    } else {
        args.clone()
    };
    replace_call(m, call, w.function_type(), w, &wargs);
    Ok(())
}

/// Replaces every call of a wrapper by the call it wraps, and removes the wrappers.
pub fn finish(module: Module) {
    for w in module.functions() {
        if !w.name().starts_with(CALL_INACTIVE_PREFIX) || w.is_declaration() {
            continue;
        }
        // An indirect wrapper's call may have become a call of a dispatcher over the pointer's
        // candidates (preprocessing reaches the wrapper): the call is rebuilt from its type.
        let indirect = w
            .name()
            .starts_with(&format!("{CALL_INACTIVE_PREFIX}indirect"));
        let (target, fty) = if indirect {
            let wty = w.function_type();
            let params = wty.param_types();
            (w, Ty::function(wty.return_type(), &params[1..], false))
        } else {
            let Some(inner) = w
                .blocks()
                .into_iter()
                .flat_map(|b| b.instructions())
                .find(|i| i.is_call())
            else {
                continue;
            };
            (inner.called_value(), inner.call_function_type())
        };
        for u in w.users() {
            if !u.is_call() || u.called_value() != w {
                continue;
            }
            let args = u.call_args();
            let (callee, pass) = if indirect {
                (args[0], &args[1..])
            } else {
                (target, &args[..])
            };
            replace_call(module, u, fty, callee, pass);
        }
        if !w.has_uses() {
            w.delete_global();
        }
    }
}

/// Replaces call or invoke `old` by the same kind of call of `callee` (type `fty`) with `args`,
/// at the same place, with its debug location and (when both have a value) its uses.
fn replace_call(m: Module, old: Val, fty: Ty, callee: Val, args: &[Val]) {
    let mut b = Builder::new(m);
    b.position_before(old);
    let new = if old.is_invoke() {
        b.invoke(fty, callee, args, old.normal_dest(), old.unwind_dest())
    } else {
        b.call(fty, callee, args)
    };
    new.copy_debug_location(old);
    if old.has_uses() && new.ty() == old.ty() {
        old.replace_all_uses_with(new);
    }
    old.erase();
}
