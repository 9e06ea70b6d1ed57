//! Enzyme's type hints, `__enzyme_float(p, n)`, `__enzyme_double(p, n)`, `__enzyme_integer(p,
//! n)` and `__enzyme_pointer(p, n)`: the `n` bytes at `p` (a constant; without `n`, one value)
//! hold that kind of data. They tell reverse mode what memory holds where no access in the
//! program does (bytes only ever copied), as in Enzyme's TypeAnalysis.
//!
//! Before requests are read ([`lower`]), each call becomes a call of
//! `umbra.type_hint.<kind>(ptr p, i64 n)`, a declaration that only reads its argument's memory
//! (so the optimiser neither drops it nor counts it as a writer) and that the rule table treats
//! as inactive. The type analysis reads those calls as facts and refuses hints it contradicts
//! ([`crate::analysis::types::hints`]); after the requests ([`finish`]) every such call, in the
//! program and in the derived code, is removed, as Enzyme removes its hints.
//!
//! Guarantees: after [`finish`] no hint call is left; a hint that is not a direct call with a
//! pointer and at most a size, or whose result is used, is refused by name.

use crate::analysis::types::{Hint, HINT_PREFIX};
use crate::diag::{Error, Result};
use crate::ir::{Builder, Module, Ty, Val};

/// Replaces each hint (C or C++ name) by a call of its `umbra.type_hint.<kind>` declaration.
pub fn lower(module: Module) -> Result<()> {
    for f in module.functions() {
        let Some(super::names::ApiName::TypeHint(h)) = super::names::classify(&f.name()) else {
            continue;
        };
        let shown = super::names::api_identifier(&f.name()).to_string();
        for u in f.users() {
            let args = if u.is_plain_call() && u.called_value() == f {
                u.call_args()
            } else {
                return Err(Error::user_at(
                    u,
                    format!("'{shown}' is used other than as a direct call (inside a C++ try block, declare it noexcept)"),
                ));
            };
            let size_ok = args.get(1).is_none_or(|n| n.ty().is_int());
            if args.is_empty() || args.len() > 2 || !args[0].ty().is_ptr() || !size_ok {
                return Err(Error::user_at(
                    u,
                    format!("'{shown}' takes the pointer to the memory it describes and its size in bytes"),
                ));
            }
            if u.has_uses() {
                return Err(Error::user_at(
                    u,
                    format!("'{shown}' returns nothing, but its result is used here"),
                ));
            }
            let ctx = module.context();
            let i64t = Ty::int(ctx, 64);
            let size = match args.get(1) {
                Some(&n) if n.ty() == i64t => n,
                Some(&n) => {
                    let mut b = Builder::new(module);
                    b.position_before(u);
                    b.zext_or_trunc(n, i64t)
                }
                None => i64t.int_const(h.step()),
            };
            let mut b = Builder::new(module);
            b.position_before(u);
            let call = b.call_function(declaration(module, h), &[args[0], size]);
            call.copy_debug_location(u);
            u.erase();
        }
        if !f.has_uses() {
            f.delete_global();
        }
    }
    Ok(())
}

/// `void umbra.type_hint.<kind>(ptr, i64)`: reads its argument's memory only, may not return
/// (so no pass deletes an unused call), never unwinds.
fn declaration(m: Module, h: Hint) -> Val {
    let name = format!("{HINT_PREFIX}{}", h.word());
    if let Some(f) = m.function(&name) {
        return f;
    }
    let ctx = m.context();
    let f = m.add_function(
        &name,
        Ty::function(Ty::void(ctx), &[Ty::ptr(ctx), Ty::int(ctx, 64)], false),
    );
    // `memory(argmem: read)`: argument memory is the first location, read is 1.
    f.set_fn_attr_value("memory", 1);
    f.set_fn_attr("nounwind", true);
    f
}

/// Removes every lowered hint call and the declarations.
pub fn finish(module: Module) {
    for h in Hint::ALL {
        let Some(f) = module.function(&format!("{HINT_PREFIX}{}", h.word())) else {
            continue;
        };
        for u in f.users() {
            if u.is_call() && !u.has_uses() {
                u.erase();
            }
        }
        if !f.has_uses() {
            f.delete_global();
        }
    }
}
