//! Re-optimisation after differentiation: `default<O{level}>` over the module, for the driver
//! and for hosts that do not run their own pipeline afterwards (the clang plugin runs at the end
//! of clang's pipeline, so the derivative code it adds would otherwise stay unoptimised).
//!
//! Functions the run left untouched ([`crate::untouched`]) went through the host's pipeline
//! already; they are kept out of this one by `optnone` (with the `noinline` it requires) for
//! its duration, which the pass manager honours by skipping their function passes. The
//! attributes come off again before code generation, which then treats them as before.
//! Last, [`crate::schedule`] reorders the long blocks of the functions the run changed.

use crate::ir::{Module, Val};
use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target, TargetMachine};
use inkwell::OptimizationLevel;

/// Marks a function kept out of the pipeline; its value says whether it had `noinline` before.
const SKIP_MARK: &str = "umbra-reopt-skip";
const HAD_NOINLINE: &str = "noinline";

/// The cleanup after `default<O{level}>`: loops whose values nothing uses, and what they leave.
const DEAD_LOOPS: &str = "function(loop-mssa(loop-deletion),adce,simplifycfg)";

/// Runs `default<O{level}>` over `module`, with a target machine for the module's triple (host
/// CPU and features when the triple is the host's) so cost models see the real target,
/// skipping the functions of `untouched`.
pub fn reoptimize(module: Module, level: u8, untouched: &[Val]) -> Result<(), String> {
    let tm = target_machine_for(module);
    let raw_tm = tm
        .as_ref()
        .map(|t| t.as_mut_ptr())
        .unwrap_or(std::ptr::null_mut());
    run_pipeline(module, level, raw_tm, untouched)
}

/// Runs `default<O{level}>` over `module` for target machine `tm` (may be null), skipping the
/// functions of `untouched`.
pub fn run_pipeline(
    module: Module,
    level: u8,
    tm: crate::ir::RawTargetMachine,
    untouched: &[Val],
) -> Result<(), String> {
    if level > 0 {
        for &f in untouched {
            if can_skip(f) {
                let had = if f.has_fn_attr("noinline") {
                    HAD_NOINLINE
                } else {
                    ""
                };
                f.set_string_fn_attr(SKIP_MARK, had);
                f.set_fn_attr("optnone", true);
                f.set_fn_attr("noinline", true);
            }
        }
    }
    let mut result = module.run_passes(&format!("default<O{level}>"), tm);
    if level > 0 && result.is_ok() {
        // A gradient's forward sweep computes the primal's values only to keep what the
        // adjoint needs; where it keeps nothing (everything rebuilt, the result ignored), its
        // loops die only after the pipeline unrolled them and SROA removed their stack arrays,
        // past its last loop deletion (a docking kernel's forward sweep kept recomputing every
        // pose's energy for nothing: a quarter of its gradient's time).
        result = module.run_passes(DEAD_LOOPS, tm);
        // Last, so that no pass of the pipeline undoes it: the long blocks of the functions
        // this run changed, in an order an out-of-order core can overlap.
        let changed: Vec<Val> = module
            .functions()
            .into_iter()
            .filter(|f| !f.is_declaration() && f.string_fn_attr(SKIP_MARK).is_none())
            .collect();
        crate::schedule::reorder_long_blocks(module, &changed);
    }
    // By mark rather than by `untouched`: the pipeline may have deleted some of them.
    for f in module.functions() {
        if let Some(had) = f.string_fn_attr(SKIP_MARK) {
            f.remove_string_fn_attr(SKIP_MARK);
            f.set_fn_attr("optnone", false);
            if had != HAD_NOINLINE {
                f.set_fn_attr("noinline", false);
            }
        }
    }
    result
}

/// True when `optnone` may be put on `f` (the verifier refuses it next to `alwaysinline`,
/// `optsize`, `minsize` and `optdebug`). Functions already `optnone` need nothing.
fn can_skip(f: Val) -> bool {
    !f.is_declaration()
        && !["optnone", "alwaysinline", "optsize", "minsize", "optdebug"]
            .iter()
            .any(|a| f.has_fn_attr(a))
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
