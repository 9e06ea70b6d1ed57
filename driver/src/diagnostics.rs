//! How problems reach the user: LLVM's diagnostic and fatal-error handlers and the panic hook are
//! routed here, so that every failure prints exactly one `umbra: error: ...` line, warnings print
//! as `umbra: warning: ...`, and no failure leaves a (partial) output file behind. It also owns
//! the exit statuses, which tell the three kinds of failure apart.

use inkwell::context::Context;
use inkwell::llvm_sys;
use llvm_sys::prelude::LLVMDiagnosticInfoRef;
use llvm_sys::LLVMDiagnosticSeverity;
use std::ffi::{c_char, c_void, CStr};
use std::sync::{Mutex, OnceLock};

/// Exit status for errors in the input or on the command line.
pub const EXIT_ERROR: u8 = 1;
/// Exit status when the input could not be read safely: LLVM's reader crashed on it, or reading
/// it hit the memory or CPU-time limit. Still the input's fault, but not a message from LLVM.
pub const EXIT_UNREADABLE: u8 = 2;
/// Exit status for faults in Umbra itself (`EX_SOFTWARE` from sysexits.h).
pub const EXIT_INTERNAL: u8 = 70;

/// The input's name while it is being read, so that LLVM's fatal errors name it.
static READING: Mutex<Option<String>> = Mutex::new(None);

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

/// What follows every internal error: how to get it fixed.
fn report_hint() -> &'static str {
    static HINT: OnceLock<String> = OnceLock::new();
    HINT.get_or_init(|| {
        format!(
            "this is a bug in umbra {}; please report it with the input file, the command line \
             and this message",
            crate::cli::version_string()
        )
    })
}

/// Prints `umbra: error: internal error: <what> (<how to report it>)`: reserved for faults in
/// Umbra's own code (and LLVM's passes running on a module that was verified).
pub fn report_internal_error(what: &str) {
    report_error(&format!("internal error: {what} ({})", report_hint()));
}

/// Notes that `name` is being read (`Some`) or done with (`None`), for LLVM's fatal errors.
pub fn set_reading(name: Option<&str>) {
    *READING.lock().unwrap_or_else(|e| e.into_inner()) = name.map(str::to_string);
}

/// Installs the process-wide handlers: panics become one `internal error` line (the caller exits
/// with [`EXIT_INTERNAL`]), and LLVM fatal errors print one line before LLVM exits (no output
/// exists yet at that point: see [`crate::emit::Output`]). Crashes are explained by the
/// supervising parent (see [`crate::sandbox`]), which knows whether the input was being read.
pub fn install_process_handlers() {
    let _ = report_hint();
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
        report_internal_error(&format!("{payload}{at}"));
    }));
    // SAFETY: registers a plain function; LLVM calls it once, right before exiting.
    unsafe { llvm_sys::error_handling::LLVMInstallFatalErrorHandler(Some(on_fatal_error)) };
}

/// For the supervising parent, which runs no LLVM code: its own crashes print one line, then
/// take the default action.
pub fn install_crash_handlers() {
    let _ = crash_messages();

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

static CRASH_MESSAGES: OnceLock<[String; 4]> = OnceLock::new();

/// The crash handler's messages, built before any crash (formatting is not async-signal-safe).
fn crash_messages() -> &'static [String; 4] {
    CRASH_MESSAGES.get_or_init(|| {
        [
            "segmentation fault",
            "bus error",
            "illegal instruction",
            "arithmetic exception",
        ]
        .map(|what| format!("umbra: error: internal error: {what} ({})\n", report_hint()))
    })
}

extern "C" fn on_crash(sig: libc::c_int) {
    let index = match sig {
        libc::SIGSEGV => 0,
        libc::SIGBUS => 1,
        libc::SIGILL => 2,
        _ => 3,
    };
    // Initialised by `install_crash_handlers`; `get` is a plain atomic load.
    let msg = CRASH_MESSAGES
        .get()
        .map(|m| m[index].as_bytes())
        .unwrap_or(b"umbra: error: internal error\n");
    // SAFETY: write(2) and raise(3) are async-signal-safe; the message is never freed.
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
    // No lock wait in a handler that may run mid-crash: `try_lock`, and without a name if busy.
    let reading = READING.try_lock().ok().and_then(|r| r.clone());
    match reading {
        Some(name) => report_error(&format!("cannot read '{name}': LLVM fatal error: {text}")),
        None => report_error(&format!("LLVM fatal error: {text}")),
    }
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
