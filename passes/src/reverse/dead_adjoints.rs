//! Values whose adjoint is zero on every path: floating-point values that are active (forward
//! activity: computed from an active value) but whose every use takes no derivative — a
//! comparison, a conversion to an integer — or is such a value itself. `fabs(v) < cut` makes
//! `fabs(v)` one: its adjoint would add `sign(v)·0` to `v`'s, and needs `v` for that, so a
//! velocity update `v = x + a·dt; if (fabs(v) < cut) v = 0` kept every `v` on the tape where the
//! comparison's result (its select's condition) is all its adjoint needs.
//!
//! [`prune`] removes them from the active set the reverse plan and both sweeps share
//! ([`super::activity`]): their adjoint is not emitted, so it needs nothing from the tape.
//! Guarantees: only values of a floating-point type (scalar or vector) are removed, only
//! instructions whose adjoint adds to their operands' adjoints alone (instruction rules, data
//! moves, calls of LLVM intrinsics whose math rule touches no memory: `super::classify` gives
//! those the primal's call alone once their result is inactive), and only when no use of
//! them, transitively, is anything but a removed value or an instruction without a derivative.
//! Such a value contributes nothing to any derivative, so leaving its adjoint out changes no
//! result.

use crate::analysis::activity::ActiveSet;
use crate::analysis::cfg::reverse_post_order;
use crate::analysis::opcodes::{classify, InstClass};
use crate::ir::Val;
use crate::rules::user::UserRules;
use crate::rules::{self, Callee, Effects, RuleKind};
use std::collections::HashSet;

/// Removes from `active` the values of `f` whose adjoint is always zero (see the module).
pub fn prune(f: Val, active: &mut ActiveSet, rules: &UserRules) {
    for v in dead(f, active, rules) {
        active.remove(v);
    }
}

/// The values of `f` whose adjoint is always zero.
fn dead(f: Val, active: &ActiveSet, rules: &UserRules) -> HashSet<Val> {
    let insts: Vec<Val> = reverse_post_order(f)
        .into_iter()
        .flat_map(|b| b.instructions())
        .collect();
    let mut dead: HashSet<Val> = insts
        .iter()
        .copied()
        .filter(|&i| active.contains(i) && passes_adjoint_to_operands(i, rules))
        .collect();
    // Optimistic start, then a value leaves as soon as one of its uses may take a derivative
    // (a use outside the set that is not a comparison or an integer conversion).
    loop {
        let before = dead.len();
        let alive: Vec<Val> = dead
            .iter()
            .copied()
            .filter(|&v| {
                v.users()
                    .into_iter()
                    .any(|u| !dead.contains(&u) && !matches!(classify(u), InstClass::NoDerivative))
            })
            .collect();
        for v in alive {
            dead.remove(&v);
        }
        if dead.len() == before {
            return dead;
        }
    }
}

/// True when `i` is a floating-point value whose adjoint goes to its operands' adjoints and
/// nowhere else: an instruction rule, a data move between floating-point values, or a call of
/// an LLVM intrinsic whose rule touches no memory.
fn passes_adjoint_to_operands(i: Val, rules: &UserRules) -> bool {
    if !i.ty().is_fp_or_fp_vector() {
        return false;
    }
    match classify(i) {
        InstClass::Rule(_) | InstClass::Moves { .. } => true,
        InstClass::Call => {
            let intrinsic = i
                .called_function()
                .is_some_and(|g| g.is_declaration() && g.name().starts_with("llvm."));
            intrinsic
                && !i.call_args().iter().any(|a| a.ty().is_ptr())
                && matches!(rules::classify(i, rules), Callee::Rule(r)
                    if matches!(r.kind, RuleKind::Math(_)) && r.effects == Effects::default())
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::activity::forward_activity;
    use crate::ir::{parse_test_module, Module};
    use crate::vocab::Activity;
    use inkwell::context::Context;

    /// The names of `@f`'s values (parameters: `double %x`, active, then `ptr %p`, duplicated)
    /// that are active before and after [`prune`].
    fn active_before_after(ir: &str) -> (Vec<String>, Vec<String>) {
        let ctx = Context::create();
        let module = parse_test_module(&ctx, ir);
        let m = Module(module.as_mut_ptr());
        let f = m.function("f").expect("f");
        let rules = UserRules::default();
        let bits = |_: Val, _: Val| crate::signature::FloatBits::default();
        let mut set = forward_activity(f, &[Activity::Out, Activity::Dup], &rules, &bits);
        let names = |set: &ActiveSet| -> Vec<String> {
            f.blocks()
                .into_iter()
                .flat_map(|b| b.instructions())
                .filter(|&i| set.contains(i))
                .map(|i| i.name())
                .collect()
        };
        let before = names(&set);
        prune(f, &mut set, &rules);
        (before, names(&set))
    }

    const IR: &str = r#"
declare double @llvm.fabs.f64(double)
declare double @llvm.sqrt.f64(double)
declare double @sin(double)
define double @f(double %x, ptr %p) {
  %v = fmul double %x, 3.0
  %a = call double @llvm.fabs.f64(double %v)
  %c = fcmp olt double %a, 1.0e-2
  %s = call double @llvm.sqrt.f64(double %v)
  %t = fadd double %s, 1.0
  %k = fptosi double %t to i32
  %kept = call double @llvm.fabs.f64(double %x)
  %big = fcmp ogt double %kept, 2.0
  %r = select i1 %c, double 0.0, double %v
  %u = fadd double %r, %kept
  %lib = call double @sin(double %x)
  %lc = fcmp olt double %lib, 0.0
  %st = fmul double %x, %x
  store double %st, ptr %p
  %ld = load double, ptr %p
  %lt = fcmp olt double %ld, 0.0
  ret double %u
}
"#;

    #[test]
    fn values_only_compared_or_converted_lose_their_adjoint() {
        let (before, after) = active_before_after(IR);
        for v in ["a", "s", "t"] {
            assert!(
                before.contains(&v.to_string()),
                "{v} active before: {before:?}"
            );
            assert!(
                !after.contains(&v.to_string()),
                "{v} still active: {after:?}"
            );
        }
    }

    #[test]
    fn values_with_a_derivative_use_stay() {
        let (_, after) = active_before_after(IR);
        // `kept` is compared and added to the result; `v` selected into it; a libm call
        // (not an intrinsic) and a load (memory) are left alone; a stored value has a use
        // that takes a derivative.
        for v in ["v", "kept", "r", "u", "lib", "st", "ld"] {
            assert!(after.contains(&v.to_string()), "{v} lost: {after:?}");
        }
    }
}
