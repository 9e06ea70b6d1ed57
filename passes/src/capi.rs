//! The C ABI the opt/clang pass plugin (`cmake/`) calls. The C++ shim only registers the pass and
//! forwards the module here; all logic stays in this crate.
//!
//! ```c
//! int  umbra_differentiate_module(LLVMModuleRef m, const char *params, int *changed,
//!                                 char **error);
//! void umbra_free_error(char *error);
//! int  umbra_protect_rules(LLVMModuleRef m);
//! ```
//! `params` is the pass-parameter text (`umbra<params>`), possibly NULL; the `UMBRA_OPTIONS`
//! environment variable is read too. Returns 0 on success, with `*changed` (when not NULL) set
//! to whether the module was modified (it is not when it holds no derivative request, so the
//! pipeline keeps its analyses); otherwise non-zero with `*error` set to a one-line message the
//! caller must release with `umbra_free_error`.
//!
//! `umbra_protect_rules` runs early (the plugin calls it at pipeline start): it marks the
//! functions that registrations give a rule `noinline`, so that inlining cannot replace their
//! calls by bodies before `umbra_differentiate_module` looks for them. It returns how many
//! functions it changed (0: the module is untouched), or -1 on an internal failure.

use crate::ir::{Module, RawModule};
use crate::options::Options;
use std::ffi::{c_char, CStr, CString};

/// Differentiates every request in `m`. See the module docs for the contract.
///
/// # Safety
/// `m` must be a valid module, `params` NULL or a NUL-terminated string, `changed` and `error`
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn umbra_differentiate_module(
    m: RawModule,
    params: *const c_char,
    changed: *mut i32,
    error: *mut *mut c_char,
) -> i32 {
    let params = if params.is_null() {
        String::new()
    } else {
        CStr::from_ptr(params).to_string_lossy().into_owned()
    };
    let result = std::panic::catch_unwind(|| run(Module(m), &params));
    let message = match result {
        Ok(Ok(modified)) => {
            if !changed.is_null() {
                *changed = i32::from(modified);
            }
            return 0;
        }
        Ok(Err(msg)) => msg,
        Err(_) => format!(
            "internal error: umbra panicked ({})",
            crate::diag::REPORT_HINT
        ),
    };
    if !error.is_null() {
        // One line, as the driver prints it: a message quoting IR may span several.
        let one_line: Vec<&str> = message
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        *error = CString::new(one_line.join("; ").replace('\0', " "))
            .unwrap_or_default()
            .into_raw();
    }
    1
}

/// Keeps functions with user rules out of line. See the module docs for the contract.
///
/// # Safety
/// `m` must be a valid module.
#[no_mangle]
pub unsafe extern "C" fn umbra_protect_rules(m: RawModule) -> i32 {
    std::panic::catch_unwind(|| crate::rules::protect::protect_from_inlining(Module(m)))
        .map_or(-1, |n| i32::try_from(n).unwrap_or(i32::MAX))
}

/// Releases a message returned through `umbra_differentiate_module`'s `error`.
///
/// # Safety
/// `error` must come from `umbra_differentiate_module` and be freed once.
#[no_mangle]
pub unsafe extern "C" fn umbra_free_error(error: *mut c_char) {
    if !error.is_null() {
        drop(CString::from_raw(error));
    }
}

/// Differentiates `module`; true when it changed.
fn run(module: Module, params: &str) -> Result<bool, String> {
    let mut opts = Options::parse(params).map_err(|e| e.to_string())?;
    if let Ok(env) = std::env::var("UMBRA_OPTIONS") {
        opts.merge(&env).map_err(|e| e.to_string())?;
    }
    let summary = crate::differentiate_module(module, &opts).map_err(|e| e.to_string())?;
    // The plugin has no other channel for the reports the user asked for.
    for line in &summary.report {
        eprintln!("{line}");
    }
    for line in &summary.warnings {
        eprintln!("umbra: warning: {line}");
    }
    if summary.requests == 0 {
        // Sparse views or truncations lowered without requests changed the module, but there is no
        // derivative code to re-optimise.
        return Ok(summary.views > 0 || summary.truncations > 0);
    }
    if let Some(level) = opts.reoptimize {
        crate::reoptimize::reoptimize(module, level, &summary.untouched)?;
    }
    Ok(true)
}
