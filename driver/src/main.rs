//! `umbra`: differentiates the derivative requests in an LLVM module and emits the result.
//!
//! Pipeline: parse → verify → differentiate → verify → re-optimise → emit, run by a worker
//! process that the `umbra` process supervises (see [`sandbox`]). Every failure prints one
//! `umbra: error: ...` line and exits non-zero (1: bad input or arguments; 2: the input could
//! not be read safely; 70: a bug in Umbra), leaving OUTPUT untouched.

mod check;
mod cli;
mod diagnostics;
mod emit;
mod input;
mod sandbox;
mod target;

use anyhow::{anyhow, Result};
use cli::Args;
use diagnostics::{EXIT_ERROR, EXIT_INTERNAL};
use inkwell::context::Context;
use sandbox::{Limits, Phase};
use std::ffi::OsString;
use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<OsString> = std::env::args_os().collect();
    if argv.get(1).is_some_and(|a| a == "rules") {
        return list_rules();
    }
    if argv.get(1).is_some_and(|a| a == "check") {
        return check::main(argv);
    }
    // Arguments are checked here, so usage errors cost no worker.
    let args = Args::parse_or_exit(argv);
    let child = match sandbox::fork_worker() {
        Ok(sandbox::Forked::Worker) => return worker(&args),
        Ok(sandbox::Forked::Parent(child)) => child,
        Err(e) => return sandbox::start_failed(&e),
    };
    diagnostics::install_crash_handlers();
    sandbox::supervise(
        child,
        &sandbox::Supervision {
            input_name: &input::display_name(&args.input),
            limits: limits(&args),
        },
    )
}

/// The worker: the whole pipeline, in the child process.
fn worker(args: &Args) -> ExitCode {
    diagnostics::install_process_handlers();
    // A panic has already been reported by the hook; unwinding drops the temporary output.
    match std::panic::catch_unwind(|| run(args)) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => match e.downcast_ref::<Internal>() {
            Some(Internal(what)) => {
                diagnostics::report_internal_error(what);
                ExitCode::from(EXIT_INTERNAL)
            }
            None => {
                diagnostics::report_error(&format!("{e:#}"));
                ExitCode::from(EXIT_ERROR)
            }
        },
        Err(_) => ExitCode::from(EXIT_INTERNAL),
    }
}

/// A fault in Umbra's own code (an internal error of the passes, invalid IR out of them): exit
/// status [`EXIT_INTERNAL`] and the reporting hint, never the user's fault.
#[derive(Debug)]
struct Internal(String);

impl std::fmt::Display for Internal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "internal error: {}", self.0)
    }
}

impl std::error::Error for Internal {}

/// A differentiation error as the driver reports it: internal errors by kind.
fn passes_error(e: umbra_passes::Error) -> anyhow::Error {
    match e.kind {
        umbra_passes::ErrorKind::Internal => {
            Internal(format!("{}{}", e.location, e.message)).into()
        }
        _ => anyhow!("{e}"),
    }
}

fn limits(args: &Args) -> Limits {
    Limits {
        memory_mib: args.max_memory,
        cpu_seconds: args.max_read_time,
    }
}

/// `umbra rules [--markdown]`: the built-in rule reference.
fn list_rules() -> ExitCode {
    let rest: Vec<String> = std::env::args().skip(2).collect();
    match rest
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] => print!("{}", umbra_passes::reference::text()),
        ["--markdown"] => print!("{}", umbra_passes::reference::markdown()),
        _ => {
            diagnostics::report_error("usage: umbra rules [--markdown]");
            return ExitCode::from(EXIT_ERROR);
        }
    }
    ExitCode::SUCCESS
}

fn run(args: &Args) -> Result<()> {
    let kind = args.emit_kind()?;
    let output = emit::Output::create(&args.output)?;

    let mut clock = PhaseClock::new(args.time_report);
    let context = Context::create();
    diagnostics::install_context_handler(&context);
    // Reading and verifying run under the limits; the parent explains a crash or a limit hit.
    let limits = limits(args);
    let reading = sandbox::Worker::start_reading(&limits);
    diagnostics::set_reading(Some(&input::display_name(&args.input)));
    let module = input::read_module(&args.input, &context, &limits)?;
    sandbox::announce(Phase::Verify);
    let raw = umbra_passes::Module(module.as_mut_ptr());
    raw.verify()
        .map_err(|e| anyhow!("input module is invalid: {}", diagnostics::first_line(&e)))?;
    diagnostics::set_reading(None);
    reading.finish_reading();
    clock.lap("read and verify");

    let request = target::TargetRequest {
        triple: args.target.clone(),
        cpu: args.cpu.clone(),
        features: args.features.clone(),
        opt_level: args.opt_level,
    };
    let machine = target::machine_for(&module, &request)?;
    target::adopt(&module, &machine, args.target.is_some());

    for name in &args.inactive {
        if module.get_function(name).is_none() {
            diagnostics::report_warning(&format!(
                "--inactive: the module has no function named '{name}'"
            ));
        }
    }
    let options = umbra_passes::Options {
        inactive: args.inactive.clone(),
        print_activity: args.print_activity,
        print_types: args.print_types,
        tape_stats: args.tape_stats,
        tape_report: args.tape_report,
        debug_checks: args.debug_checks,
        truncate_all: args.truncate_all.clone(),
        reoptimize: None,
        rust_sysroot: args
            .rust_sysroot
            .as_ref()
            .map(|p| p.to_string_lossy().into_owned()),
        rules_files: args
            .rules
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect(),
        inactive_files: args
            .inactive_file
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect(),
    };
    let summary = umbra_passes::differentiate_module(raw, &options).map_err(passes_error)?;
    for line in &summary.report {
        eprintln!("{line}");
    }
    for line in &summary.warnings {
        diagnostics::report_warning(line);
    }
    diagnostics::check("differentiation failed")?;
    raw.verify().map_err(|e| {
        Internal(format!(
            "differentiation produced invalid IR: {}",
            diagnostics::first_line(&e)
        ))
    })?;
    clock.lap("differentiate");
    if args.verbose {
        eprintln!(
            "umbra: {} derivative request(s) lowered, {} derived function(s) generated",
            summary.requests, summary.derived_functions
        );
    }

    umbra_passes::reoptimize::run_pipeline(
        raw,
        args.opt_level,
        machine.as_mut_ptr(),
        &summary.untouched,
    )
    .map_err(|e| anyhow!("re-optimisation failed: {}", diagnostics::first_line(&e)))?;
    diagnostics::check("re-optimisation failed")?;
    clock.lap("re-optimise");

    sandbox::announce(Phase::Codegen);
    let bytes = emit::render(&module, &machine, kind)?;
    output.commit(&bytes)?;
    clock.lap("emit");
    clock.total();
    Ok(())
}

/// `--time-report`: wall time per phase of the worker, printed as each phase ends.
struct PhaseClock {
    enabled: bool,
    start: std::time::Instant,
    last: std::time::Instant,
}

impl PhaseClock {
    fn new(enabled: bool) -> PhaseClock {
        let now = std::time::Instant::now();
        PhaseClock {
            enabled,
            start: now,
            last: now,
        }
    }

    fn lap(&mut self, phase: &str) {
        let now = std::time::Instant::now();
        if self.enabled {
            eprintln!(
                "umbra: time: {phase:<16} {:8.3} s",
                (now - self.last).as_secs_f64()
            );
        }
        self.last = now;
    }

    fn total(&self) {
        if self.enabled {
            eprintln!(
                "umbra: time: {:<16} {:8.3} s",
                "total",
                self.start.elapsed().as_secs_f64()
            );
        }
    }
}
