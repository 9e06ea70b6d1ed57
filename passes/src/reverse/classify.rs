//! How the reverse sweeps treat a call site: run it as it is, differentiate the callee
//! recursively, or apply a rule's reverse half.

use crate::analysis::activity::ActiveSet;
use crate::ir::Val;
use crate::rules::user::{UserRule, UserRules};
use crate::rules::{Callee, CustomReverse, Effects, Reverse, Rule, RuleKind};
use crate::vocab::{Activity, Mode};

/// A call site as reverse mode sees it.
#[derive(Clone, Copy)]
pub enum ReverseCallee {
    /// No derivative flows through the call: it runs in the forward sweep only.
    Primal,
    /// Declarative math: adjoints from the rule's partials.
    Math,
    /// A function with a body: its augmented forward and adjoint functions are called.
    Derived(Val),
    /// An OpenMP parallel region running this outlined function (`reverse/openmp.rs`).
    Parallel(Val),
    /// A rule with hand-written sweeps (memory copies, reductions, allocations, BLAS, ...).
    Custom(&'static Rule, &'static CustomReverse),
    /// A function with a user-registered gradient (augmented forward + gradient functions).
    User(UserRule),
    /// `free` and its kin: the primal is released, the shadow lives on for the adjoint.
    Free,
    /// Derivatives flow into a call without a body or a rule (or an indirect call).
    NoRule,
    /// Derivatives flow into a call whose rule has no reverse half yet; the message says why.
    Unsupported(&'static str),
}

/// Classifies call `i` for reverse mode.
pub fn reverse_callee(i: Val, active: &ActiveSet, rules: &UserRules) -> ReverseCallee {
    if let Some(f) = crate::openmp::outlined(i) {
        return ReverseCallee::Parallel(f);
    }
    let flows = active.call_receives(i) || active.contains(i);
    if !flows {
        return ReverseCallee::Primal;
    }
    match crate::rules::classify_for(i, rules, Mode::Reverse) {
        Callee::User(u) => ReverseCallee::User(u),
        Callee::Inactive => ReverseCallee::Primal,
        Callee::Defined(f) => ReverseCallee::Derived(f),
        Callee::Unknown => ReverseCallee::NoRule,
        Callee::Rule(r) => match r.kind {
            // A pure math call whose result takes no derivative (only comparisons use it:
            // `super::dead_adjoints`) has a zero adjoint.
            RuleKind::Math(_) if !active.contains(i) && r.effects == Effects::default() => {
                ReverseCallee::Primal
            }
            RuleKind::Math(_) => ReverseCallee::Math,
            RuleKind::Inactive => ReverseCallee::Primal,
            RuleKind::Forward(_, rev) => match rev {
                Reverse::Custom(c) => ReverseCallee::Custom(r, c),
                Reverse::Free => ReverseCallee::Free,
                Reverse::NotYet(why) => ReverseCallee::Unsupported(why),
            },
        },
    }
}

/// The activity a callee parameter gets from the caller's argument `a`: pointers with shadows
/// are duplicated, floating-point values with adjoints are active (`out`), and so are integers
/// the parameter receives as float bits (`float_bits`, [`crate::signature::FloatBits`]); the
/// rest constant.
pub(crate) fn call_activity(a: Val, float_bits: bool, is_active: impl Fn(Val) -> bool) -> Activity {
    call_activity_at(None, a, float_bits, is_active)
}

/// [`call_activity`] of argument `k` of `call` to a defined callee, where a null pointer the
/// callee may store is duplicated ([`crate::analysis::activity::null_needs_shadow`]).
pub(crate) fn arg_activity(
    call: Val,
    k: usize,
    a: Val,
    float_bits: bool,
    is_active: impl Fn(Val) -> bool,
) -> Activity {
    call_activity_at(Some((call, k)), a, float_bits, is_active)
}

fn call_activity_at(
    at: Option<(Val, usize)>,
    a: Val,
    float_bits: bool,
    is_active: impl Fn(Val) -> bool,
) -> Activity {
    if at.is_some_and(|(call, k)| crate::analysis::activity::null_needs_shadow(call, k, a)) {
        return Activity::Dup;
    }
    if !is_active(a) {
        return Activity::Const;
    }
    let ty = a.ty();
    if ty.is_ptr() {
        Activity::Dup
    } else if ty.contains_float() && !ty.contains_ptr() || ty.is_int() && float_bits {
        Activity::Out
    } else {
        Activity::Const
    }
}
