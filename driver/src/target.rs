//! The target machine: which triple, CPU and features code is generated (and cost models are
//! evaluated) for, checking that LLVM knows the CPU and features asked for, and giving a module
//! without a triple or data layout the target's.

use crate::diagnostics::report_warning;
use anyhow::{anyhow, bail, Result};
use inkwell::llvm_sys;
use inkwell::module::Module;
use inkwell::targets::{CodeModel, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::OptimizationLevel;
use std::ffi::CStr;

/// What the user asked for on the command line; `None` means "decide from module and host".
#[derive(Debug, Clone, Default)]
pub struct TargetRequest {
    /// `--target`.
    pub triple: Option<String>,
    /// `--cpu` (`native` = the host's).
    pub cpu: Option<String>,
    /// `--features`.
    pub features: Option<String>,
    /// `-O` level, 0-3.
    pub opt_level: u8,
}

/// Registers every target the loaded LLVM library was built with.
fn initialize_targets() {
    use std::sync::Once;
    static INIT: Once = Once::new();
    // SAFETY: LLVM's target registration functions take no arguments and are idempotent; `Once`
    // keeps them to one call.
    INIT.call_once(|| unsafe {
        llvm_sys::target::LLVM_InitializeAllTargetInfos();
        llvm_sys::target::LLVM_InitializeAllTargets();
        llvm_sys::target::LLVM_InitializeAllTargetMCs();
        llvm_sys::target::LLVM_InitializeAllAsmPrinters();
        llvm_sys::target::LLVM_InitializeAllAsmParsers();
    });
}

/// The module's target triple, `""` when it has none.
fn module_triple(module: &Module) -> String {
    module.get_triple().as_str().to_string_lossy().into_owned()
}

/// The module's data layout string, `""` when it has none.
fn module_data_layout(module: &Module) -> String {
    // SAFETY: the module is alive; LLVM returns a pointer to its own NUL-terminated string.
    unsafe {
        let p = llvm_sys::core::LLVMGetDataLayoutStr(module.as_mut_ptr());
        if p.is_null() {
            String::new()
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    }
}

/// Architecture and operating system of a triple: the parts that decide whether the host's CPU
/// can run the code (the vendor field varies between toolchains for the same machine).
fn arch_and_os(triple: &str) -> (String, String) {
    let normalized = TargetMachine::normalize_triple(&TargetTriple::create(triple));
    let text = normalized.as_str().to_string_lossy().into_owned();
    let mut parts = text.split('-');
    let arch = parts.next().unwrap_or("").to_string();
    let os = parts.nth(1).unwrap_or("").to_string();
    (arch, os)
}

/// The host's triple.
pub fn host_triple() -> String {
    TargetMachine::get_default_triple()
        .as_str()
        .to_string_lossy()
        .into_owned()
}

/// The triple, CPU and features to generate code for, following the rules in the README: the
/// requested triple, else the module's, else the host's; the host's CPU and features when the
/// triple is the host's (or `--cpu=native`) and nothing else was asked for.
fn resolve(req: &TargetRequest, module_triple: &str) -> (String, String, String) {
    let host = host_triple();
    let triple = match (&req.triple, module_triple) {
        (Some(t), _) => t.clone(),
        (None, "") => host.clone(),
        (None, m) => m.to_string(),
    };
    let targets_host = arch_and_os(&triple) == arch_and_os(&host);
    let host_cpu = || TargetMachine::get_host_cpu_name().to_string();
    let host_features = || TargetMachine::get_host_cpu_features().to_string();
    let (cpu, cpu_is_host) = match req.cpu.as_deref() {
        Some("native") => (host_cpu(), true),
        Some(name) => (name.to_string(), false),
        None if targets_host => (host_cpu(), true),
        None => (String::new(), false),
    };
    let features = match &req.features {
        Some(f) => f.clone(),
        None if cpu_is_host => host_features(),
        None => String::new(),
    };
    (triple, cpu, features)
}

/// Creates the target machine for `module` under `req`.
pub fn machine_for(module: &Module, req: &TargetRequest) -> Result<TargetMachine> {
    initialize_targets();
    let (triple, cpu, features) = resolve(req, &module_triple(module));
    let tt = TargetTriple::create(&triple);
    let target = Target::from_triple(&tt).map_err(|e| {
        anyhow!(
            "unsupported target '{triple}': {}",
            e.to_string_lossy().trim()
        )
    })?;
    let level = match req.opt_level {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    };
    // LLVM only warns about an unknown CPU or feature, on stderr, and then ignores it (or, for
    // an unknown x86-64 CPU, later aborts): catch its warnings and make them errors.
    let (machine, warnings) = capture_stderr(|| {
        target.create_target_machine(
            &tt,
            &cpu,
            &features,
            level,
            RelocMode::PIC,
            CodeModel::Default,
        )
    });
    check_target_warnings(&warnings, &triple, "")?;
    let machine = machine.ok_or_else(|| {
        anyhow!(
            "cannot create a target machine for '{triple}' (cpu '{cpu}', features '{features}')"
        )
    })?;
    check_function_targets(module, &target, &tt, &triple)?;
    Ok(machine)
}

/// Functions may ask for their own CPU and features (`"target-cpu"`, `"target-features"`
/// attributes); code generation would warn about unknown ones once per function and ignore
/// them. Checks each distinct pair once, like the command line's.
fn check_function_targets(
    module: &Module,
    target: &Target,
    tt: &TargetTriple,
    triple: &str,
) -> Result<()> {
    use inkwell::attributes::AttributeLoc;
    let mut seen = std::collections::HashSet::new();
    for function in module.get_functions() {
        let attr = |kind: &str| {
            function
                .get_string_attribute(AttributeLoc::Function, kind)
                .map(|a| a.get_string_value().to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let name = function.get_name().to_string_lossy().into_owned();
        // A tuning CPU ("tune-cpu") names a processor like "target-cpu" does.
        let pairs = [
            (attr("target-cpu"), attr("target-features"), ""),
            (attr("tune-cpu"), String::new(), " (tune-cpu)"),
        ];
        for (cpu, features, what) in pairs {
            if (cpu.is_empty() && features.is_empty())
                || !seen.insert((cpu.clone(), features.clone()))
            {
                continue;
            }
            let (_, warnings) = capture_stderr(|| {
                target.create_target_machine(
                    tt,
                    &cpu,
                    &features,
                    OptimizationLevel::None,
                    RelocMode::PIC,
                    CodeModel::Default,
                )
            });
            check_target_warnings(&warnings, triple, &format!("function '{name}'{what}: "))?;
        }
    }
    Ok(())
}

/// Turns LLVM's "not a recognized processor/feature" warnings into an error (starting with
/// `context`); passes any other text on.
fn check_target_warnings(warnings: &str, triple: &str, context: &str) -> Result<()> {
    let quoted = |line: &str| line.split('\'').nth(1).unwrap_or("").to_string();
    for line in warnings.lines() {
        if line.contains("is not a recognized processor") {
            bail!(
                "{context}unknown CPU '{}' for target '{triple}' (`llc-22 -mtriple={triple} -mcpu=help` \
                 lists the known ones)",
                quoted(line)
            );
        }
        if line.contains("is not a recognized feature") {
            bail!(
                "{context}unknown target feature '{}' for target '{triple}' (`llc-22 -mtriple={triple} \
                 -mattr=help` lists the known ones)",
                quoted(line)
            );
        }
    }
    if !warnings.is_empty() {
        eprint!("{warnings}");
    }
    Ok(())
}

/// Runs `f` with file descriptor 2 redirected to an anonymous temporary file, and returns what
/// was written there (LLVM's `errs()` writes to the descriptor directly). If redirecting fails,
/// `f` runs with stderr as it is.
fn capture_stderr<T>(f: impl FnOnce() -> T) -> (T, String) {
    use std::io::{Read, Seek};
    use std::os::fd::AsRawFd;
    let Ok(mut file) = tempfile::tempfile() else {
        return (f(), String::new());
    };
    // SAFETY: dup/dup2/close on descriptor 2 and on descriptors we own; the original stderr is
    // restored before returning, and nothing else runs on other threads at this point.
    let saved = unsafe { libc::dup(2) };
    if saved < 0 || unsafe { libc::dup2(file.as_raw_fd(), 2) } < 0 {
        if saved >= 0 {
            unsafe { libc::close(saved) };
        }
        return (f(), String::new());
    }
    let result = f();
    // SAFETY: as above.
    unsafe {
        libc::dup2(saved, 2);
        libc::close(saved);
    }
    let mut text = String::new();
    let _ = file.rewind().and_then(|()| file.read_to_string(&mut text));
    (result, text)
}

/// Gives `module` the machine's triple and data layout where it has none, or where `--target`
/// explicitly overrides the module's own (with a warning when they differ).
pub fn adopt(module: &Module, machine: &TargetMachine, explicit_triple: bool) {
    let current = module_triple(module);
    let wanted = machine.get_triple();
    let wanted_text = wanted.as_str().to_string_lossy().into_owned();
    let retarget = current.is_empty() || (explicit_triple && current != wanted_text);
    if retarget {
        if !current.is_empty() {
            report_warning(&format!(
                "overriding the module's target triple '{current}' with '{wanted_text}'"
            ));
        }
        module.set_triple(&wanted);
    }
    if retarget || module_data_layout(module).is_empty() {
        let layout = machine.get_target_data().get_data_layout();
        module.set_data_layout(&layout);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_cpus_and_features_are_errors() {
        let t = "x86_64-unknown-linux-gnu";
        let w = "'bogus' is not a recognized processor for this target (ignoring processor)\n";
        let err = check_target_warnings(w, t, "").unwrap_err().to_string();
        assert!(
            err.starts_with("unknown CPU 'bogus' for target 'x86_64"),
            "{err}"
        );
        let w = "'+bogus' is not a recognized feature for this target (ignoring feature)\n";
        let err = check_target_warnings(w, t, "").unwrap_err().to_string();
        assert!(err.starts_with("unknown target feature '+bogus'"), "{err}");
        assert!(check_target_warnings("", t, "").is_ok());
    }

    #[test]
    fn host_cpu_only_for_the_host() {
        let host = host_triple();
        let req = TargetRequest::default();
        let (t, cpu, _) = resolve(&req, "");
        assert_eq!(t, host);
        assert!(!cpu.is_empty());
        let req = TargetRequest {
            triple: Some("riscv64-unknown-linux-gnu".into()),
            ..Default::default()
        };
        let (t, cpu, features) = resolve(&req, &host);
        assert_eq!(t, "riscv64-unknown-linux-gnu");
        assert_eq!((cpu.as_str(), features.as_str()), ("", ""));
        let req = TargetRequest {
            cpu: Some("x86-64".into()),
            ..Default::default()
        };
        let (_, cpu, features) = resolve(&req, &host);
        assert_eq!((cpu.as_str(), features.as_str()), ("x86-64", ""));
    }
}
