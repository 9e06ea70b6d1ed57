//! Forward activity: which values of a function carry a derivative, given which parameters do.
//!
//! A value is *active* when it may carry a nonzero tangent (floating point), a shadow (pointers:
//! shadow memory exists), or shadow bits (integers holding bytes of differentiable memory, as
//! `-O2` code moves structs through `i64` loads and stores). Computed to a fixed point over the
//! reachable instructions so loop-carried phis are right. Activity is an over-approximation:
//! an active value whose tangent turns out zero costs time, never correctness.

use super::cfg::reverse_post_order;
use super::opcodes::{classify, derivative_operands, InstClass};
use crate::api::Activity;
use crate::ir::Val;
use crate::rules::user::UserRules;
use crate::rules::{self, Callee, RuleKind};
use std::collections::HashSet;

/// The set of active values (arguments and instructions) of one function.
pub struct ActiveSet {
    active: HashSet<Val>,
}

impl ActiveSet {
    /// The `--print-activity` report for `f` differentiated as `derived`: each parameter's
    /// activity, then every active instruction.
    pub fn describe(&self, f: Val, derived: &str, acts: &[Activity]) -> Vec<String> {
        let mut out = vec![format!("activity of @{} in @{derived}:", f.name())];
        for (k, (p, a)) in f.params().into_iter().zip(acts).enumerate() {
            let name = if p.name().is_empty() {
                format!("#{k}")
            } else {
                format!("%{}", p.name())
            };
            out.push(format!("  param {name}: {a:?}"));
        }
        for b in reverse_post_order(f) {
            for i in b.instructions() {
                if self.active.contains(&i) {
                    out.push(format!("  active: {}", i.print()));
                }
            }
        }
        out
    }

    /// True when `v` carries a derivative.
    pub fn contains(&self, v: Val) -> bool {
        self.active.contains(&v)
    }
}

/// Computes forward activity for `f` with parameter activities `acts`.
pub fn forward_activity(f: Val, acts: &[Activity], rules: &UserRules) -> ActiveSet {
    let mut active: HashSet<Val> = f
        .params()
        .into_iter()
        .zip(acts)
        .filter(|(_, a)| a.has_shadow() || **a == Activity::Out)
        .map(|(p, _)| p)
        .collect();
    let insts: Vec<Val> = reverse_post_order(f)
        .into_iter()
        .flat_map(|b| b.instructions())
        .collect();
    loop {
        let mut changed = false;
        for &i in &insts {
            if !active.contains(&i) && is_active(i, &active, rules) {
                active.insert(i);
                changed = true;
            }
        }
        if !changed {
            return ActiveSet { active };
        }
    }
}

/// True when operand `v` is active (constants never are).
fn op(v: Val, active: &HashSet<Val>) -> bool {
    active.contains(&v)
}

/// True when an argument passes a derivative into a call: an active float or pointer (integers
/// with shadow bits do not count for calls).
pub fn carries_into_call(v: Val, is_active: impl Fn(Val) -> bool) -> bool {
    is_active(v) && v.ty().carries_derivative()
}

fn is_active(i: Val, active: &HashSet<Val>, rules: &UserRules) -> bool {
    let ty = i.ty();
    if ty.is_void() {
        return false;
    }
    let any = |idx: &[u32]| idx.iter().any(|&k| op(i.operand(k), active));
    if let Some(operands) = derivative_operands(i.opcode()) {
        return any(operands);
    }
    match classify(i.opcode()) {
        // Every alloca may receive differentiable data, except variables parallel regions
        // only read (`crate::openmp::inactive_capture`).
        InstClass::Alloca => !crate::openmp::inactive_capture(i, |v| active.contains(&v)),
        InstClass::Load => any(&[0]),
        InstClass::Phi => i.incoming().iter().any(|(v, _)| op(*v, active)),
        InstClass::Call => call_is_active(i, active, rules),
        _ => false,
    }
}

fn call_is_active(call: Val, active: &HashSet<Val>, rules: &UserRules) -> bool {
    let carries = |v: Val| carries_into_call(v, |x| active.contains(&x));
    let any_arg = call.call_args().into_iter().any(carries);
    match rules::classify(call, rules) {
        Callee::Inactive | Callee::Unknown => false,
        Callee::Defined(_) | Callee::User(_) => any_arg || call.ty().contains_ptr(),
        Callee::Rule(r) => match r.kind {
            RuleKind::Math(_) => any_arg,
            RuleKind::Inactive => false,
            // Allocations always get a shadow; copies and sets return their destination.
            RuleKind::Forward(..) => {
                r.effects.allocates && call.ty().is_ptr()
                    || any_arg && call.ty().carries_derivative()
            }
        },
    }
}
