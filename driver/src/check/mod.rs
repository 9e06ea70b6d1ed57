//! `umbra check IN.bc|IN.ll [--function DESC]... [--seed N] [--points K]`: checks the
//! derivatives Umbra builds for functions of a module numerically, without writing a program.
//!
//! Which functions: those named by `--function` (with a description of their parameters where
//! they are not all `double`/`float`), else every function a derivative request of the module
//! targets (with the request's activities, sizes and constants) and every function with a
//! registered derivative or gradient. Per function, entry points are added to the module
//! ([`harness`]); the module is differentiated and re-optimised as `umbra in.bc -o out.o`
//! would do it, JIT-compiled by LLVM's MCJIT, and the derivatives compared ([`compare`]).
//!
//! Output: one line per function with the worst relative error; for a function that disagrees,
//! a table of the disagreements (check, argument, point, direction) and its worst point. Exit
//! status 0 when everything agrees, [`EXIT_DISAGREE`] when something does not, 1 on errors.

mod compare;
mod harness;
mod run;
mod signature;

use crate::diagnostics;
use anyhow::{anyhow, bail, Result};
use clap::Parser;
use harness::{Entry, Variants};
use inkwell::context::Context;
use signature::{IrType, Signature};
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit status when a derivative disagrees with its reference.
pub const EXIT_DISAGREE: u8 = 3;

/// Check the derivatives Umbra builds for functions of a module: forward mode against central
/// finite differences, reverse against forward mode, registered rules against the derivative
/// of the body they replace, at random points.
#[derive(Parser, Debug)]
#[command(name = "umbra check", bin_name = "umbra check")]
pub struct CheckArgs {
    /// Input module: LLVM bitcode or textual IR
    #[arg(value_name = "INPUT")]
    pub input: PathBuf,

    /// A function to check, with its parameters where they are not all double/float:
    /// 'f(x: double[8], n: const 8)' (types: double, float, double[N], float[N], each possibly
    /// 'const'; an integer parameter takes a constant: 'n: 8'). Repeatable [default: every
    /// function a derivative request targets, and every function with a registered rule]
    #[arg(long = "function", value_name = "DESC")]
    pub functions: Vec<String>,

    /// Seed of the random points and directions
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Random points per function
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=10000))]
    pub points: u64,

    /// Inputs are drawn uniformly from [LO, HI)
    #[arg(
        long,
        value_name = "LO,HI",
        default_value = "0.5,1.5",
        allow_hyphen_values = true
    )]
    pub range: String,

    /// Largest relative error that passes [default: 1e-6; 1e-2 when float is involved]
    #[arg(long, value_name = "REL")]
    pub tolerance: Option<f64>,

    /// Re-optimisation level after differentiation, as for `umbra IN -o OUT`
    #[arg(short = 'O', value_name = "LEVEL", default_value_t = 2,
          value_parser = clap::value_parser!(u8).range(0..=3))]
    pub opt_level: u8,

    /// Rules file (TOML), as for `umbra IN -o OUT`. Repeatable
    #[arg(long, value_name = "FILE")]
    pub rules: Vec<PathBuf>,
}

/// `umbra check ...` (`argv` starts with the program name, then `check`).
pub fn main(argv: Vec<std::ffi::OsString>) -> ExitCode {
    let args = match CheckArgs::try_parse_from(argv.into_iter().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                e.exit();
            }
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or("").trim();
            let first = first.strip_prefix("error: ").unwrap_or(first);
            diagnostics::report_error(&format!("{first} (see 'umbra check --help')"));
            return ExitCode::from(diagnostics::EXIT_ERROR);
        }
    };
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(EXIT_DISAGREE),
        Err(e) => {
            diagnostics::report_error(&format!("{e:#}"));
            ExitCode::from(diagnostics::EXIT_ERROR)
        }
    }
}

fn parse_range(text: &str) -> Result<(f64, f64)> {
    let (lo, hi) = text
        .split_once(',')
        .ok_or_else(|| anyhow!("--range '{text}': expected LO,HI"))?;
    let lo: f64 = lo
        .trim()
        .parse()
        .map_err(|_| anyhow!("--range '{text}': bad LO"))?;
    let hi: f64 = hi
        .trim()
        .parse()
        .map_err(|_| anyhow!("--range '{text}': bad HI"))?;
    if !(lo.is_finite() && hi.is_finite() && lo < hi) {
        bail!("--range '{text}': expected finite LO < HI");
    }
    Ok((lo, hi))
}

/// The LLVM types of function `name`'s parameters and result.
fn ir_type(module: umbra_passes::Module, name: &str) -> Result<IrType> {
    let f = module
        .function(name)
        .ok_or_else(|| anyhow!("the module has no function named '{name}'"))?;
    let ty = f.function_type();
    if ty.is_var_arg() {
        bail!("'{name}' takes variable arguments, which umbra check cannot generate");
    }
    Ok(IrType {
        params: ty.param_types().iter().map(|t| t.print()).collect(),
        ret: ty.return_type().print(),
    })
}

/// The functions to check, with their signatures; functions that cannot be checked by default
/// are reported and left out (a named one is an error).
fn targets(
    module: umbra_passes::Module,
    args: &CheckArgs,
    registered: &[umbra_passes::inspect::Registered],
) -> Result<Vec<Signature>> {
    let mut out: Vec<Signature> = Vec::new();
    if !args.functions.is_empty() {
        for desc in &args.functions {
            let name = signature::name_of(desc);
            out.push(signature::parse(desc, &ir_type(module, name)?)?);
        }
        return Ok(out);
    }
    let push = |out: &mut Vec<Signature>, s: Signature| {
        if !out.iter().any(|o| o.key() == s.key()) {
            out.push(s);
        }
    };
    for req in umbra_passes::inspect::requests(module).map_err(|e| anyhow!("{e}"))? {
        let ir = ir_type(module, &req.function)?;
        let described: Vec<signature::RequestArg> = req
            .args
            .iter()
            .map(|a| signature::RequestArg {
                active: a.activity != umbra_passes::inspect::ArgActivity::Const,
                const_int: a.const_int,
                array: a.array.clone(),
            })
            .collect();
        match signature::from_request(&req.function, &ir, &described) {
            Ok(s) => push(&mut out, s),
            Err(e) => println!("umbra check: '{}' not checked: {e:#}", req.function),
        }
    }
    for r in registered {
        if out.iter().any(|s| s.name == r.function) {
            continue;
        }
        match ir_type(module, &r.function).and_then(|ir| signature::defaults(&r.function, &ir)) {
            Ok(s) => push(&mut out, s),
            Err(e) => println!("umbra check: '{}' not checked: {e:#}", r.function),
        }
    }
    if out.is_empty() {
        bail!("nothing to check: the module has no derivative request or registered rule for a function umbra check can describe; name functions with --function");
    }
    Ok(out)
}

fn run(args: &CheckArgs) -> Result<bool> {
    let range = parse_range(&args.range)?;
    let context = Context::create();
    diagnostics::install_context_handler(&context);
    let name = crate::input::display_name(&args.input);
    let bytes = std::fs::read(&args.input)
        .map_err(|e| anyhow!("cannot read '{name}': {}", crate::input::io_message(&e)))?;
    let module = crate::input::parse(&bytes, &name, &context)?;
    let raw = umbra_passes::Module(module.as_mut_ptr());
    raw.verify()
        .map_err(|e| anyhow!("input module is invalid: {}", diagnostics::first_line(&e)))?;
    let options = umbra_passes::Options {
        rules_files: args
            .rules
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect(),
        ..umbra_passes::Options::default()
    };
    let registered =
        umbra_passes::inspect::registered_rules(raw, &options).map_err(|e| anyhow!("{e}"))?;
    let sigs = targets(raw, args, &registered)?;

    let machine = crate::target::machine_for(
        &module,
        &crate::target::TargetRequest {
            opt_level: args.opt_level,
            ..Default::default()
        },
    )?;
    crate::target::adopt(&module, &machine, false);
    let variants: Vec<Variants> = sigs
        .iter()
        .map(|s| {
            let r = registered.iter().find(|r| r.function == s.name);
            let body = raw.function(&s.name).is_some_and(|f| !f.is_declaration());
            Variants {
                body: body && s.has_active(),
                derivative: r.is_some_and(|r| r.derivative) && s.has_active(),
                gradient: r.is_some_and(|r| r.gradient) && s.has_active(),
            }
        })
        .collect();
    let listed: Vec<(usize, &Signature, Variants)> = sigs
        .iter()
        .zip(&variants)
        .enumerate()
        .map(|(i, (s, &v))| (i, s, v))
        .collect();
    let layout = machine.get_target_data().get_data_layout();
    let text = harness::text(
        &listed,
        &layout.as_str().to_string_lossy(),
        &machine.get_triple().as_str().to_string_lossy(),
    );
    let harness_module = crate::input::parse(text.as_bytes(), "<umbra check>", &context)
        .map_err(|e| crate::Internal(format!("the check harness does not parse: {e:#}")))?;
    module
        .link_in_module(harness_module)
        .map_err(|e| anyhow!("cannot link the check harness: {}", e.to_string_lossy()))?;

    let summary = umbra_passes::differentiate_module(raw, &options).map_err(crate::passes_error)?;
    for line in &summary.warnings {
        diagnostics::report_warning(line);
    }
    diagnostics::check("differentiation failed")?;
    raw.verify().map_err(|e| {
        crate::Internal(format!(
            "differentiation produced invalid IR: {}",
            diagnostics::first_line(&e)
        ))
    })?;
    umbra_passes::reoptimize::run_pipeline(
        raw,
        args.opt_level,
        machine.as_mut_ptr(),
        &summary.untouched,
    )
    .map_err(|e| anyhow!("re-optimisation failed: {}", diagnostics::first_line(&e)))?;
    diagnostics::check("re-optimisation failed")?;
    let (_dir, library) = load(&module, &machine)?;
    let settings = compare::Settings {
        points: args.points as usize,
        seed: args.seed,
        range,
        tolerance: args.tolerance,
    };
    let mut all_ok = true;
    for &(i, sig, v) in &listed {
        let mut entries: HashMap<Entry, run::EntryFn> = HashMap::new();
        for entry in Entry::all(v) {
            entries.insert(entry, library.entry(&entry.symbol(i))?);
        }
        if !sig.has_active() {
            println!(
                "umbra check: '{}' not checked: no active parameter",
                sig.name
            );
            continue;
        }
        let outcome = compare::check(sig, &entries, &settings);
        all_ok &= report(sig, &outcome, args.points as usize);
    }
    Ok(all_ok)
}

/// The module as a loaded shared object: rendered to object code by the machine `umbra IN -o
/// OUT.o` uses, linked by the system's C compiler (`$CC`, else `cc`) with libm, and opened with
/// `dlopen`, so what runs is the code a user's program would link. The directory is removed
/// when the returned guard drops; the library stays loaded for the process.
fn load(
    module: &inkwell::module::Module,
    machine: &inkwell::targets::TargetMachine,
) -> Result<(tempfile::TempDir, Library)> {
    let bytes = crate::emit::render(module, machine, crate::cli::EmitKind::Obj)?;
    let dir = tempfile::Builder::new()
        .prefix("umbra-check")
        .tempdir()
        .map_err(|e| anyhow!("cannot create a temporary directory: {e}"))?;
    let obj = dir.path().join("checked.o");
    let lib = dir.path().join("checked.so");
    std::fs::write(&obj, bytes).map_err(|e| anyhow!("cannot write {}: {e}", obj.display()))?;
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let out = std::process::Command::new(&cc)
        .args(["-shared", "-Wl,-Bsymbolic", "-o"])
        .arg(&lib)
        .arg(&obj)
        .arg("-lm")
        .output()
        .map_err(|e| anyhow!("cannot run the linker '{cc}' (set CC): {e}"))?;
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stderr);
        bail!(
            "linking the checked module failed: {}",
            diagnostics::first_line(text.trim())
        );
    }
    let c = std::ffi::CString::new(lib.to_string_lossy().into_owned())
        .map_err(|_| anyhow!("temporary path holds a NUL byte"))?;
    // SAFETY: dlopen of the library just linked; its initialisers are the module's own.
    let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if handle.is_null() {
        // SAFETY: dlerror returns a NUL-terminated message or null.
        let why = unsafe {
            let e = libc::dlerror();
            if e.is_null() {
                String::from("unknown error")
            } else {
                std::ffi::CStr::from_ptr(e).to_string_lossy().into_owned()
            }
        };
        bail!("cannot load the checked module: {why} (umbra check runs only code whose calls libc and libm resolve)");
    }
    Ok((dir, Library(handle)))
}

/// A `dlopen` handle, never closed (the entry points are called until the process ends).
struct Library(*mut libc::c_void);

impl Library {
    fn entry(&self, symbol: &str) -> Result<run::EntryFn> {
        let c = std::ffi::CString::new(symbol).map_err(|_| anyhow!("bad symbol"))?;
        // SAFETY: dlsym reads the NUL-terminated name; the handle is open.
        let address = unsafe { libc::dlsym(self.0, c.as_ptr()) };
        if address.is_null() {
            return Err(crate::Internal(format!("the checked module has no {symbol}")).into());
        }
        // SAFETY: the entry points all have the C type `void (ptr, ptr, ptr)`
        // (`harness::text`), which `EntryFn` spells.
        Ok(unsafe { std::mem::transmute::<*mut libc::c_void, run::EntryFn>(address) })
    }
}

fn short(values: &[f64]) -> String {
    let shown: Vec<String> = values.iter().take(6).map(|v| format!("{v:.6}")).collect();
    if values.len() == 1 {
        shown[0].clone()
    } else if values.len() > 6 {
        format!("[{}, ... ({} values)]", shown.join(", "), values.len())
    } else {
        format!("[{}]", shown.join(", "))
    }
}

/// Prints the outcome for one function; true when it agrees.
fn report(sig: &Signature, o: &compare::Outcome, points: usize) -> bool {
    let checked = points - o.skipped;
    if checked == 0 {
        println!(
            "umbra check: '{}' not checked: the function is not finite at any of the {points} points (try --range)",
            sig.name
        );
        return true;
    }
    let verdict = if o.failures.is_empty() {
        "ok"
    } else {
        "FAILED"
    };
    let skipped = if o.skipped > 0 {
        format!(", {} skipped: not finite", o.skipped)
    } else {
        String::new()
    };
    println!(
        "umbra check: '{}' {verdict}: worst relative error {:.1e} (tolerance {:.0e}; {checked} points{skipped}; {})",
        sig.name,
        o.worst,
        o.tolerance,
        o.checks.join(", ")
    );
    if o.failures.is_empty() {
        return true;
    }
    println!(
        "  {:<44} {:<10} {:>5} {:>10} {:>16} {:>16}  direction",
        "check", "argument", "point", "rel.error", "derivative", "reference"
    );
    // The worst failure per (check, argument).
    let mut rows: Vec<&compare::Failure> = Vec::new();
    for f in &o.failures {
        match rows
            .iter_mut()
            .find(|r| r.check == f.check && r.argument == f.argument)
        {
            Some(r) if f.error > r.error => *r = f,
            Some(_) => {}
            None => rows.push(f),
        }
    }
    for f in &rows {
        println!(
            "  {:<44} {:<10} {:>5} {:>10.1e} {:>16.9e} {:>16.9e}  {}",
            f.check,
            f.argument,
            f.point,
            f.error,
            f.got,
            f.expected,
            short(&f.direction)
        );
    }
    let worst = o
        .failures
        .iter()
        .fold(&o.failures[0], |w, f| if f.error > w.error { f } else { w });
    let (inputs, constants) = &o.points[worst.point - 1];
    let (mut i, mut c) = (0, 0);
    let mut parts = Vec::new();
    for (label, p) in sig.labels.iter().zip(&sig.params) {
        let n = p.floats();
        let text = match p {
            signature::Param::Int { value, .. } => value.to_string(),
            _ if p.active() => {
                i += n;
                short(&inputs[i - n..i])
            }
            _ => {
                c += n;
                short(&constants[c - n..c])
            }
        };
        parts.push(format!("{label} = {text}"));
    }
    println!(
        "  worst point: {}({}) [point {} of seed's sequence]",
        sig.name,
        parts.join(", "),
        worst.point
    );
    false
}
