//! Keeping hostile input from taking the tool (or the machine) down: the driver runs its whole
//! pipeline in a child process, the *worker* (a fork of the driver, made once the arguments are
//! parsed: no second start-up, which with LLVM's shared library costs tens of milliseconds),
//! and the parent only supervises it.
//!
//! LLVM's bitcode reader trusts its input: some corrupt files crash it, make it abort with "out
//! of memory", or grow its memory without bound. So while the worker reads and verifies the
//! input it runs under a memory limit (`RLIMIT_AS`, `--max-memory`) and a CPU-time limit
//! (`RLIMIT_CPU`, `--max-read-time`), and lifts both once the module is known to be sound. It
//! tells the parent which phase it is in through marker lines on its standard error (one pipe,
//! so markers and messages stay in order). The parent holds back whatever the worker prints
//! while reading (LLVM's own "LLVM ERROR: ..." noise); when the worker dies during reading it
//! replaces that with one line naming the input, and exits with [`EXIT_UNREADABLE`]. A death
//! anywhere else is a fault in Umbra (or LLVM's passes): one internal-error line, exit
//! [`EXIT_INTERNAL`]. Outputs are only created after the work is done (see `emit`), so a killed
//! worker leaves none behind.

use crate::diagnostics::{self, EXIT_INTERNAL, EXIT_UNREADABLE};
use crate::input::Format;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::{ExitCode, ExitStatus};

/// Marker lines start with this (SOH cannot appear in Umbra's messages).
const MARKER: &str = "\u{1}umbra-worker-phase:";

/// Where the worker is; each phase is announced before it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Checking arguments, preparing the output: Umbra's own code.
    Setup,
    /// Loading the input's bytes (under the limits).
    Load,
    /// LLVM parses the bytes (under the limits).
    Parse(Format),
    /// LLVM's verifier checks the module (under the limits).
    Verify,
    /// Limits lifted: differentiation, optimisation.
    Work,
    /// LLVM's code generator on the finished module.
    Codegen,
}

impl Phase {
    fn code(self) -> &'static str {
        match self {
            Phase::Setup => "setup",
            Phase::Load => "load",
            Phase::Parse(Format::Bitcode) => "parse-bitcode",
            Phase::Parse(Format::Text) => "parse-text",
            Phase::Verify => "verify",
            Phase::Work => "work",
            Phase::Codegen => "codegen",
        }
    }

    fn from_code(code: &str) -> Option<Phase> {
        [
            Phase::Setup,
            Phase::Load,
            Phase::Parse(Format::Bitcode),
            Phase::Parse(Format::Text),
            Phase::Verify,
            Phase::Work,
            Phase::Codegen,
        ]
        .into_iter()
        .find(|p| p.code() == code)
    }

    /// True while the input is being read: the phases that run under the limits.
    fn reading(self) -> bool {
        matches!(self, Phase::Load | Phase::Parse(_) | Phase::Verify)
    }
}

/// The limits that apply while the input is read and verified.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Memory the worker may allocate on top of what it had mapped when reading began, MiB.
    pub memory_mib: u64,
    /// CPU time for reading and verifying, seconds.
    pub cpu_seconds: u64,
}

impl Limits {
    /// The largest input accepted, in bytes: it has to fit in the memory limit.
    pub fn max_input_bytes(&self) -> u64 {
        self.memory_mib.saturating_mul(1 << 20)
    }
}

// ---------------------------------------------------------------------------------------------
// Worker side.

/// The worker's soft limits before reading, restored by [`Worker::finish_reading`].
pub struct Worker {
    saved_as: libc::rlim_t,
    saved_cpu: libc::rlim_t,
}

/// Announces `phase` to the parent.
pub fn announce(phase: Phase) {
    // One write per marker; a failed write only costs the parent precision in its messages.
    let _ = std::io::stderr().write_all(format!("{MARKER}{}\n", phase.code()).as_bytes());
    test_fault(phase);
}

/// The test suite's way to make the worker fail in each way the parent must explain, without
/// depending on which inputs happen to crash LLVM: `__UMBRA_TEST_FAULT=PHASE[:ACTION]` makes it
/// fault on entering PHASE (a [`Phase`] code), where ACTION is `crash` (the default: a
/// segmentation fault), `spin` (burn CPU time) or `grow` (allocate without bound).
fn test_fault(phase: Phase) {
    let Some(spec) = std::env::var_os("__UMBRA_TEST_FAULT") else {
        return;
    };
    let spec = spec.to_string_lossy();
    let (at, action) = spec.split_once(':').unwrap_or((&spec, "crash"));
    if at != phase.code() {
        return;
    }
    match action {
        "spin" => loop {
            std::hint::black_box(std::time::Instant::now());
        },
        "grow" => loop {
            // Reserved, never touched: the address-space limit counts it, the machine does not.
            std::mem::forget(std::hint::black_box(Vec::<u8>::with_capacity(16 << 20)));
        },
        // The default action, not Rust's stack-overflow handler (which ignores raised signals).
        // SAFETY: dying of SIGSEGV is what this test hook is for.
        _ => unsafe {
            libc::signal(libc::SIGSEGV, libc::SIG_DFL);
            libc::raise(libc::SIGSEGV);
        },
    }
}

fn get_soft(resource: libc::__rlimit_resource_t) -> (libc::rlim_t, libc::rlim_t) {
    let mut lim = libc::rlimit {
        rlim_cur: libc::RLIM_INFINITY,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: getrlimit only writes `lim`.
    unsafe { libc::getrlimit(resource, &mut lim) };
    (lim.rlim_cur, lim.rlim_max)
}

fn set_soft(resource: libc::__rlimit_resource_t, soft: libc::rlim_t) {
    let (_, hard) = get_soft(resource);
    let lim = libc::rlimit {
        // The soft limit may not exceed the hard one; the hard one is never touched, so that the
        // soft one can be raised again afterwards.
        rlim_cur: soft.min(hard),
        rlim_max: hard,
    };
    // SAFETY: setrlimit reads `lim`; lowering or restoring a soft limit is always permitted.
    unsafe { libc::setrlimit(resource, &lim) };
}

/// The process's mapped address space, bytes (the baseline the memory limit adds to).
fn address_space_bytes() -> u64 {
    let pages = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .unwrap_or(0);
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    pages.saturating_mul(u64::try_from(page).unwrap_or(4096))
}

/// CPU time used so far, whole seconds rounded up.
fn cpu_seconds_used() -> u64 {
    // SAFETY: getrusage only writes the zeroed struct.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let secs = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec;
    u64::try_from(secs).unwrap_or(0) + 1
}

impl Worker {
    /// Applies `limits` and announces [`Phase::Load`].
    pub fn start_reading(limits: &Limits) -> Worker {
        let (saved_as, _) = get_soft(libc::RLIMIT_AS);
        let (saved_cpu, _) = get_soft(libc::RLIMIT_CPU);
        let memory = address_space_bytes().saturating_add(limits.max_input_bytes());
        set_soft(libc::RLIMIT_AS, memory as libc::rlim_t);
        let cpu = cpu_seconds_used().saturating_add(limits.cpu_seconds);
        set_soft(libc::RLIMIT_CPU, cpu as libc::rlim_t);
        announce(Phase::Load);
        Worker {
            saved_as,
            saved_cpu,
        }
    }

    /// Lifts the limits again (the rest of the pipeline works on a sound module) and announces
    /// [`Phase::Work`].
    pub fn finish_reading(self) {
        set_soft(libc::RLIMIT_AS, self.saved_as);
        set_soft(libc::RLIMIT_CPU, self.saved_cpu);
        announce(Phase::Work);
    }
}

// ---------------------------------------------------------------------------------------------
// Parent side.

/// What the parent needs to know to explain the worker's death.
pub struct Supervision<'a> {
    /// The input's name in messages.
    pub input_name: &'a str,
    /// The limits the worker applies.
    pub limits: Limits,
}

/// Which side of [`fork_worker`] this process is on.
pub enum Forked {
    /// The worker: runs the pipeline, its standard error a pipe to the parent.
    Worker,
    /// The parent, with the worker to supervise.
    Parent(Child),
}

/// The worker as the parent sees it.
pub struct Child {
    pid: libc::pid_t,
    stderr: OwnedFd,
}

/// Forks the worker. Called while the process is single-threaded (only arguments parsed, no
/// LLVM state), so the child may go on running Rust and LLVM code; it keeps Rust's own
/// handlers for stack overflows (the parent installs its crash handlers after the fork).
pub fn fork_worker() -> std::io::Result<Forked> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into `fds`.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned here only.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // Nothing buffered may be written twice.
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: getpid has no preconditions.
    let parent = unsafe { libc::getpid() };
    // SAFETY: the process is single-threaded here (see above).
    match unsafe { libc::fork() } {
        -1 => Err(std::io::Error::last_os_error()),
        0 => {
            // Die with the parent, so an interrupted `umbra` leaves no worker running (and
            // leave at once if it is already gone).
            // SAFETY: PR_SET_PDEATHSIG takes a signal number; getppid and _exit have no
            // preconditions.
            unsafe {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
                if libc::getppid() != parent {
                    libc::_exit(i32::from(EXIT_INTERNAL));
                }
            }
            drop(read);
            // SAFETY: makes the pipe this process's standard error; `write` is then closed.
            if unsafe { libc::dup2(std::os::fd::AsRawFd::as_raw_fd(&write), 2) } < 0 {
                // SAFETY: leaving the child at once, as exec failing would have.
                unsafe { libc::_exit(i32::from(EXIT_INTERNAL)) };
            }
            drop(write);
            Ok(Forked::Worker)
        }
        pid => {
            drop(write);
            Ok(Forked::Parent(Child { pid, stderr: read }))
        }
    }
}

/// Waits for `pid` to end.
fn wait_for(pid: libc::pid_t) -> std::io::Result<ExitStatus> {
    let mut status = 0;
    loop {
        // SAFETY: waitpid writes the status of our own child.
        if unsafe { libc::waitpid(pid, &mut status, 0) } == pid {
            return Ok(ExitStatus::from_raw(status));
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Relays the worker's output and turns its end into this process's exit status.
pub fn supervise(child: Child, sup: &Supervision) -> ExitCode {
    let mut phase = Phase::Setup;
    // What the worker printed before its module was known to be sound: released only if the
    // worker ends normally (it is then Umbra's own one-line error), dropped if it crashed.
    let mut held: Vec<u8> = Vec::new();
    {
        let mut reader = BufReader::new(std::fs::File::from(child.stderr));
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let (text, marker) = split_marker(&line);
            relay(text, phase, &mut held);
            if let Some(next) = marker {
                phase = next;
                if !phase.reading() && phase != Phase::Setup {
                    release(&mut held, sup.input_name, false);
                }
            }
        }
    }
    let status = match wait_for(child.pid) {
        Ok(status) => status,
        Err(e) => return start_failed(&e),
    };
    if let Some(code) = status.code() {
        release(&mut held, sup.input_name, code != 0);
        return ExitCode::from(u8::try_from(code).unwrap_or(EXIT_INTERNAL));
    }
    let signal = status.signal().unwrap_or(0);
    explain_signal(sup, phase, signal, &mut held)
}

/// Splits a line the worker wrote into text and, if it ends with one, a phase marker (LLVM may
/// have written a partial line just before it).
fn split_marker(line: &[u8]) -> (&[u8], Option<Phase>) {
    let marker = MARKER.as_bytes();
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    if let Some(at) = body.windows(marker.len()).rposition(|w| w == marker) {
        let code = String::from_utf8_lossy(&body[at + marker.len()..]);
        if let Some(phase) = Phase::from_code(code.trim()) {
            return (&line[..at], Some(phase));
        }
    }
    (line, None)
}

/// Passes worker output on, or holds it while the input is being read.
fn relay(text: &[u8], phase: Phase, held: &mut Vec<u8>) {
    if text.is_empty() {
        return;
    }
    if phase.reading() || phase == Phase::Setup {
        held.extend_from_slice(text);
    } else {
        let _ = std::io::stderr().write_all(text);
    }
}

/// Prints the held output, tidied (see [`tidy`]).
fn release(held: &mut Vec<u8>, input_name: &str, failed: bool) {
    if !held.is_empty() {
        let _ = std::io::stderr().write_all(tidy(held, input_name, failed).as_bytes());
        held.clear();
    }
}

/// LLVM's reader writes some details straight to stderr, on several lines: the verifier's dump
/// of invalid debug info before the "ignoring invalid debug info" warning, or of a broken module
/// before a fatal error. Keeps Umbra's own lines and folds the first line of LLVM's into the next
/// of them; a detail with no line of Umbra's after it becomes one (an error if the worker
/// `failed`, else a warning).
fn tidy(held: &[u8], input_name: &str, failed: bool) -> String {
    let text = String::from_utf8_lossy(held);
    let mut out = String::new();
    let mut detail: Option<&str> = None;
    for line in text.lines() {
        if line.starts_with("umbra: ") {
            match detail.take() {
                Some(d) => out.push_str(&format!("{line} ({d})\n")),
                None => out.push_str(&format!("{line}\n")),
            }
        } else if detail.is_none() && !line.trim().is_empty() {
            detail = Some(line.trim());
        }
    }
    match detail {
        Some(d) if failed => {
            out.push_str(&format!("umbra: error: cannot read '{input_name}': {d}\n"))
        }
        Some(d) => out.push_str(&format!(
            "umbra: warning: while reading '{input_name}': {d}\n"
        )),
        None => {}
    }
    out
}

/// The one line (and exit status) for a worker that could not be started.
pub fn start_failed(e: &std::io::Error) -> ExitCode {
    diagnostics::report_error(&format!(
        "cannot start the worker process: {}",
        crate::input::io_message(e)
    ));
    ExitCode::from(EXIT_INTERNAL)
}

/// True if the held output says an allocation failed (LLVM's bad-alloc handler, Rust's
/// allocation-error handler, or C++'s `std::bad_alloc`).
fn ran_out_of_memory(held: &[u8]) -> bool {
    let text = String::from_utf8_lossy(held);
    ["out of memory", "memory allocation of", "bad_alloc"]
        .iter()
        .any(|needle| text.contains(needle))
}

/// The one line (and exit status) for a worker killed by `signal` during `phase`.
fn explain_signal(sup: &Supervision, phase: Phase, signal: i32, held: &mut Vec<u8>) -> ExitCode {
    let name = sup.input_name;
    // Signals from outside (Ctrl-C, kill, a closed terminal): not Umbra's fault, nor the input's.
    if matches!(
        signal,
        libc::SIGINT | libc::SIGTERM | libc::SIGHUP | libc::SIGQUIT | libc::SIGPIPE | libc::SIGKILL
    ) {
        if signal != libc::SIGINT {
            diagnostics::report_error(&format!("interrupted by {}", signal_name(signal)));
        }
        return ExitCode::from(128u8.saturating_add(u8::try_from(signal).unwrap_or(0)));
    }
    if phase == Phase::Codegen {
        // The module was verified before code generation: a crash there is LLVM's code
        // generator failing on a valid module (the fuzzer found inputs on which llc-22 crashes
        // as well), not a fault in Umbra's code.
        release(held, name, true);
        diagnostics::report_error(&format!(
            "cannot compile '{name}': LLVM's code generator crashed with a {} on the \
             (verified) module; if `llc-22` crashes on the input too, the bug is LLVM's; \
             otherwise report it to umbra with the input and the command line",
            signal_name(signal)
        ));
        return ExitCode::from(EXIT_UNREADABLE);
    }
    if !phase.reading() {
        release(held, name, true);
        diagnostics::report_internal_error(signal_name(signal));
        return ExitCode::from(EXIT_INTERNAL);
    }
    let message = if signal == libc::SIGXCPU {
        format!(
            "cannot read '{name}': reading took more than {} s of CPU time (the input is probably \
             malformed; --max-read-time raises the limit)",
            sup.limits.cpu_seconds
        )
    } else if signal == libc::SIGABRT && ran_out_of_memory(held) {
        format!(
            "cannot read '{name}': exceeded the memory limit of {} MiB while reading (the input \
             is probably malformed; --max-memory raises the limit)",
            sup.limits.memory_mib
        )
    } else {
        // Rust's guard page handler reports a stack overflow, then aborts.
        let what = if String::from_utf8_lossy(held).contains("overflowed its stack") {
            "stack overflow"
        } else {
            signal_name(signal)
        };
        match phase {
            Phase::Parse(Format::Bitcode) => format!(
                "cannot read '{name}': the bitcode is malformed (LLVM's bitcode reader crashed on \
                 it with a {what}; the reader does not say at which byte)"
            ),
            Phase::Parse(Format::Text) => format!(
                "cannot read '{name}': the IR is malformed (LLVM's IR parser crashed on it with a \
                 {what})"
            ),
            Phase::Verify => format!(
                "cannot read '{name}': the module is malformed (LLVM's verifier crashed on it \
                 with a {what})"
            ),
            // Loading bytes is Umbra's own code: a crash there is ours.
            _ => {
                diagnostics::report_internal_error(what);
                return ExitCode::from(EXIT_INTERNAL);
            }
        }
    };
    held.clear();
    diagnostics::report_error(&message);
    ExitCode::from(EXIT_UNREADABLE)
}

/// A signal's name as people know it.
fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGSEGV => "segmentation fault",
        libc::SIGBUS => "bus error",
        libc::SIGILL => "illegal instruction",
        libc::SIGFPE => "arithmetic exception",
        libc::SIGABRT => "abort",
        libc::SIGTRAP => "trap",
        libc::SIGSYS => "bad system call",
        libc::SIGXCPU => "CPU time limit",
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGKILL => "SIGKILL",
        _ => "fatal signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_split_from_text() {
        let line = format!("{MARKER}verify\n");
        assert_eq!(
            split_marker(line.as_bytes()),
            (&b""[..], Some(Phase::Verify))
        );
        let line = format!("partial{MARKER}parse-bitcode\n");
        assert_eq!(
            split_marker(line.as_bytes()),
            (&b"partial"[..], Some(Phase::Parse(Format::Bitcode)))
        );
        assert_eq!(
            split_marker(b"umbra: error: x\n"),
            (&b"umbra: error: x\n"[..], None)
        );
        for phase in [Phase::Setup, Phase::Load, Phase::Verify, Phase::Work] {
            assert_eq!(Phase::from_code(phase.code()), Some(phase));
        }
    }

    #[test]
    fn llvm_details_fold_into_umbra_lines() {
        let held = b"invalid retained nodes, expected DILocalVariable\n!16 = distinct !{}\n\
                     umbra: warning: ignoring invalid debug info in x.bc\n";
        assert_eq!(
            tidy(held, "x.bc", false),
            "umbra: warning: ignoring invalid debug info in x.bc (invalid retained nodes, \
             expected DILocalVariable)\n"
        );
        assert_eq!(
            tidy(b"LLVM ERROR: bad\nmore\n", "x.bc", true),
            "umbra: error: cannot read 'x.bc': LLVM ERROR: bad\n"
        );
        assert_eq!(
            tidy(b"umbra: error: e\n", "x.bc", true),
            "umbra: error: e\n"
        );
    }

    #[test]
    fn out_of_memory_is_recognised() {
        assert!(ran_out_of_memory(
            b"LLVM ERROR: out of memory\nAllocation failed\n"
        ));
        assert!(ran_out_of_memory(b"memory allocation of 8 bytes failed\n"));
        assert!(!ran_out_of_memory(b"umbra: error: x\n"));
    }
}
