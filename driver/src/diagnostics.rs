//! How problems reach the user: LLVM's diagnostic and fatal-error handlers and the panic hook are
//! routed here, so that every failure prints exactly one `umbra: error: ...` line, warnings print
//! as `umbra: warning: ...`, and no failure leaves a (partial) output file behind.

use inkwell::context::Context;
use inkwell::llvm_sys;
use llvm_sys::prelude::LLVMDiagnosticInfoRef;
use llvm_sys::LLVMDiagnosticSeverity;
use std::ffi::{c_char, c_void, CStr};
use std::sync::Mutex;

/// The first error LLVM reported through the context's diagnostic handler and nobody collected.
static PENDING_ERROR: Mutex<Option<String>> = Mutex::new(None);

/// The first line of `text`, trimmed: LLVM's messages often continue with source excerpts.
pub fn first_line(text: &str) -> &str {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

/// Prints `umbra: error: <message>` on one line.
pub fn report_error(message: &str) {
    eprintln!("umbra: error: {}", one_line(message));
}

/// Prints `umbra: warning: <message>` on one line.
pub fn report_warning(message: &str) {
    eprintln!("umbra: warning: {}", one_line(message));
}

/// `message` with line breaks folded into `; `, so multi-line causes still print as one line.
fn one_line(message: &str) -> String {
    let lines: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines.join("; ")
}

/// Installs the process-wide handlers: panics become one `internal error` line (the caller turns
/// the unwind into exit code 1), and LLVM fatal errors print one line before LLVM exits (no
/// output exists yet at that point: see [`crate::emit::Output`]).
pub fn install_process_handlers() {
    std::panic::set_hook(Box::new(|info| {
        let payload = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        report_error(&format!(
            "internal error: {payload}{at} (this is a bug in umbra)"
        ));
    }));
    // SAFETY: registers a plain function; LLVM calls it once, right before exiting.
    unsafe { llvm_sys::error_handling::LLVMInstallFatalErrorHandler(Some(on_fatal_error)) };
    install_crash_handlers();
}

/// Crashes (bugs in umbra or LLVM) print one line, then take the default action (exit status
/// 128 + signal). No output file exists yet when the LLVM work runs, so none is left behind.
fn install_crash_handlers() {
    for sig in [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE] {
        // SAFETY: a zeroed `sigaction` with an empty mask and our handler is a valid argument;
        // SA_RESETHAND restores the default action for the re-raised signal, and SA_ONSTACK runs
        // the handler on the alternate stack Rust sets up (so stack overflows are reported too).
        unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_crash as extern "C" fn(libc::c_int) as libc::sighandler_t;
            act.sa_flags = libc::SA_RESETHAND | libc::SA_ONSTACK;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(sig, &act, std::ptr::null_mut());
        }
    }
}

extern "C" fn on_crash(sig: libc::c_int) {
    let msg: &[u8] = match sig {
        libc::SIGSEGV => {
            b"umbra: error: internal error: segmentation fault (this is a bug in umbra)\n"
        }
        libc::SIGBUS => b"umbra: error: internal error: bus error (this is a bug in umbra)\n",
        libc::SIGILL => {
            b"umbra: error: internal error: illegal instruction (this is a bug in umbra)\n"
        }
        _ => b"umbra: error: internal error: arithmetic exception (this is a bug in umbra)\n",
    };
    // SAFETY: write(2) and raise(3) are async-signal-safe; the message is static.
    unsafe {
        libc::write(2, msg.as_ptr().cast(), msg.len());
        libc::raise(sig);
    }
}

extern "C" fn on_fatal_error(reason: *const c_char) {
    let text = if reason.is_null() {
        String::new()
    } else {
        // SAFETY: LLVM passes a NUL-terminated message.
        unsafe { CStr::from_ptr(reason) }
            .to_string_lossy()
            .into_owned()
    };
    report_error(&format!("LLVM fatal error: {text}"));
}

/// Routes the context's diagnostics to us: errors are kept for [`take_error`], warnings are
/// printed, remarks and notes are dropped. Without this LLVM prints them itself, and exits on
/// errors.
pub fn install_context_handler(context: &Context) {
    // SAFETY: the handler is a plain function and uses no context pointer.
    unsafe {
        llvm_sys::core::LLVMContextSetDiagnosticHandler(
            context.raw(),
            Some(on_diagnostic),
            std::ptr::null_mut(),
        )
    };
}

extern "C" fn on_diagnostic(info: LLVMDiagnosticInfoRef, _ctx: *mut c_void) {
    // SAFETY: `info` is valid for the duration of the call; the description is ours to free.
    let (severity, text) = unsafe {
        let severity = llvm_sys::core::LLVMGetDiagInfoSeverity(info);
        let desc = llvm_sys::core::LLVMGetDiagInfoDescription(info);
        let text = if desc.is_null() {
            String::new()
        } else {
            let s = CStr::from_ptr(desc).to_string_lossy().into_owned();
            llvm_sys::core::LLVMDisposeMessage(desc);
            s
        };
        (severity, text)
    };
    match severity {
        LLVMDiagnosticSeverity::LLVMDSError => {
            let mut pending = PENDING_ERROR.lock().unwrap_or_else(|e| e.into_inner());
            pending.get_or_insert(text);
        }
        LLVMDiagnosticSeverity::LLVMDSWarning => report_warning(&text),
        LLVMDiagnosticSeverity::LLVMDSRemark | LLVMDiagnosticSeverity::LLVMDSNote => {}
    }
}

/// The first error LLVM has reported since the last call, if any.
pub fn take_error() -> Option<String> {
    PENDING_ERROR
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
}

/// Fails with `what: <LLVM's message>` if LLVM reported an error during `what`.
pub fn check(what: &str) -> anyhow::Result<()> {
    match take_error() {
        Some(msg) => Err(anyhow::anyhow!("{what}: {}", first_line(&msg))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_fold_to_one_line() {
        assert_eq!(one_line("a\n  b\n\nc"), "a; b; c");
        assert_eq!(
            first_line("\n x.ll:1:1: error: bad\n  src\n  ^"),
            "x.ll:1:1: error: bad"
        );
    }
}
