//! `umbra`: differentiates the derivative requests in an LLVM module and emits the result.
//!
//! Pipeline: parse → verify → differentiate → verify → re-optimise → emit. Every failure prints
//! one `umbra: error: ...` line and exits 1, leaving OUTPUT untouched.

mod cli;
mod diagnostics;
mod emit;
mod input;
mod target;

use anyhow::{anyhow, Result};
use cli::Args;
use inkwell::context::Context;
use std::process::ExitCode;

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some("rules") {
        return list_rules();
    }
    let args = Args::parse_or_exit();
    diagnostics::install_process_handlers();
    // A panic has already been reported by the hook; unwinding drops the temporary output.
    match std::panic::catch_unwind(|| run(&args)) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            diagnostics::report_error(&format!("{e:#}"));
            ExitCode::FAILURE
        }
        Err(_) => ExitCode::FAILURE,
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
        [] => print!("{}", umbra_passes::rules::reference::text()),
        ["--markdown"] => print!("{}", umbra_passes::rules::reference::markdown()),
        _ => {
            diagnostics::report_error("usage: umbra rules [--markdown]");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

fn run(args: &Args) -> Result<()> {
    let kind = args.emit_kind()?;
    let output = emit::Output::create(&args.output)?;

    let context = Context::create();
    diagnostics::install_context_handler(&context);
    let module = input::read_module(&args.input, &context)?;
    let raw = umbra_passes::Module(module.as_mut_ptr());
    raw.verify()
        .map_err(|e| anyhow!("input module is invalid: {}", diagnostics::first_line(&e)))?;

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
        reoptimize: None,
        rules_files: args
            .rules
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect(),
    };
    let summary = umbra_passes::differentiate_module(raw, &options).map_err(|e| anyhow!("{e}"))?;
    for line in &summary.report {
        eprintln!("{line}");
    }
    diagnostics::check("differentiation failed")?;
    raw.verify().map_err(|e| {
        anyhow!(
            "internal error: differentiation produced invalid IR (this is a bug in umbra): {}",
            diagnostics::first_line(&e)
        )
    })?;
    if args.verbose {
        eprintln!(
            "umbra: {} derivative request(s) lowered, {} derived function(s) generated",
            summary.requests, summary.derived_functions
        );
    }

    raw.run_passes(
        &format!("default<O{}>", args.opt_level),
        machine.as_mut_ptr(),
    )
    .map_err(|e| anyhow!("re-optimisation failed: {}", diagnostics::first_line(&e)))?;
    diagnostics::check("re-optimisation failed")?;

    let bytes = emit::render(&module, &machine, kind)?;
    output.commit(&bytes)
}
