//! Re-optimisation after differentiation for hosts that do not run their own pipeline afterwards
//! (the clang plugin runs at the end of clang's pipeline, so the derivative code it adds would
//! otherwise stay unoptimised).

use crate::ir::Module;
use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target, TargetMachine};
use inkwell::OptimizationLevel;

/// Runs `default<O{level}>` over `module`, with a target machine for the module's triple (host
/// CPU and features when the triple is the host's) so cost models see the real target.
pub fn reoptimize(module: Module, level: u8) -> Result<(), String> {
    let tm = target_machine_for(module);
    let raw_tm = tm
        .as_ref()
        .map(|t| t.as_mut_ptr())
        .unwrap_or(std::ptr::null_mut());
    module.run_passes(&format!("default<O{level}>"), raw_tm)
}

fn target_machine_for(module: Module) -> Option<TargetMachine> {
    Target::initialize_native(&InitializationConfig::default()).ok()?;
    let triple = module.target_triple();
    let host = TargetMachine::get_default_triple();
    let target_triple = if triple.is_empty() {
        TargetMachine::get_default_triple()
    } else {
        inkwell::targets::TargetTriple::create(&triple)
    };
    let target = Target::from_triple(&target_triple).ok()?;
    let (cpu, features) = if target_triple == host {
        (
            TargetMachine::get_host_cpu_name().to_string(),
            TargetMachine::get_host_cpu_features().to_string(),
        )
    } else {
        (String::new(), String::new())
    };
    target.create_target_machine(
        &target_triple,
        &cpu,
        &features,
        OptimizationLevel::Default,
        RelocMode::PIC,
        CodeModel::Default,
    )
}
