//! Enzyme's `__enzyme_virtualreverse(fn)`: the shadow to store where a function pointer (or a
//! vtable pointer) lives in shadow memory, so that derived code calling through the primal
//! pointer finds a derivative through the shadow (Enzyme's `ReverseMode/virtualshadow2.cpp`,
//! `virtualshadow3.cpp`).
//!
//! In Umbra the shadow of a function pointer, a vtable or a constant table of functions is the
//! pointer itself: derived code dispatches on the primal target and calls that target's derived
//! function ([`crate::devirt`]), and a shadow slot holding the same pointer is what Umbra's own
//! derived code stores there. So each call is replaced by its argument, before requests are
//! read, and the declaration is removed.
//!
//! Guarantees: no call to `__enzyme_virtualreverse` is left; a use other than a direct call
//! with one pointer argument and a pointer result is refused by name.

use crate::diag::{Error, Result};
use crate::ir::Module;

/// Replaces every `__enzyme_virtualreverse(p)` (C or C++ name) by `p`.
pub fn lower(module: Module) -> Result<()> {
    for f in module.functions() {
        if super::names::classify(&f.name()) != Some(super::names::ApiName::VirtualReverse) {
            continue;
        }
        for u in f.users() {
            let args = if u.is_call() && u.called_value() == f {
                u.call_args()
            } else {
                Vec::new()
            };
            if args.len() != 1 || !args[0].ty().is_ptr() || !u.ty().is_ptr() {
                return Err(Error::user_at(
                    u,
                    format!(
                        "'{}' takes the function (or vtable) pointer whose shadow it returns, and returns a pointer",
                        f.name()
                    ),
                ));
            }
            u.replace_all_uses_with(args[0]);
            u.erase();
        }
        if !f.has_uses() {
            f.delete_global();
        }
    }
    Ok(())
}
