//! How the reverse sweeps treat a call site: run it as it is, differentiate the callee
//! recursively, or apply a rule's reverse half.

use crate::analysis::activity::{carries_into_call, ActiveSet};
use crate::api::Mode;
use crate::ir::Val;
use crate::options::Options;
use crate::rules::user::UserRule;
use crate::rules::{self, Callee, CustomReverse, Reverse, Rule, RuleKind};

/// A call site as reverse mode sees it.
#[derive(Clone, Copy)]
pub enum ReverseCallee {
    /// No derivative flows through the call: it runs in the forward sweep only.
    Primal,
    /// Declarative math: adjoints from the rule's partials.
    Math,
    /// A vector reduction.
    Reduction,
    /// A function with a body: its augmented forward and adjoint functions are called.
    Derived(Val),
    /// `memcpy`/`memmove` between shadowed memory.
    Copy,
    /// `memset` of shadowed memory.
    Set,
    /// A rule with hand-written sweeps (allocations, BLAS, ...).
    Custom(&'static Rule, &'static CustomReverse),
    /// A function with a user-registered gradient (augmented forward + gradient functions).
    User(UserRule),
    /// `free` and its kin: the primal is released, the shadow lives on for the adjoint.
    Free,
    /// Derivatives flow into a call reverse mode cannot handle; the message says why.
    Unsupported(&'static str),
}

/// Classifies call `i` for reverse mode.
pub fn reverse_callee(i: Val, active: &ActiveSet, opts: &Options) -> ReverseCallee {
    let flows = i
        .call_args()
        .into_iter()
        .any(|a| carries_into_call(a, |v| active.contains(v)))
        || active.contains(i);
    if !flows {
        return ReverseCallee::Primal;
    }
    match rules::classify_for(i, opts, Mode::Reverse) {
        Callee::User(u) => ReverseCallee::User(u),
        Callee::Inactive => ReverseCallee::Primal,
        Callee::Defined(f) => ReverseCallee::Derived(f),
        Callee::Unknown => ReverseCallee::Unsupported("no derivative rule"),
        Callee::Rule(r) => match r.kind {
            RuleKind::Math(_) => ReverseCallee::Math,
            RuleKind::Inactive => ReverseCallee::Primal,
            RuleKind::Forward(_, rev) => match rev {
                Reverse::Reduction => ReverseCallee::Reduction,
                Reverse::Copy => ReverseCallee::Copy,
                Reverse::Set => ReverseCallee::Set,
                Reverse::Custom(c) => ReverseCallee::Custom(r, c),
                Reverse::Free => ReverseCallee::Free,
                Reverse::NotYet(why) => ReverseCallee::Unsupported(why),
            },
        },
    }
}
