//! The vocabulary every layer shares: how an argument takes part in differentiation
//! ([`Activity`]) and which derivative is built ([`Mode`]). A leaf: it depends on nothing in the
//! crate, so the rules, the analyses and the engine can all name these without depending on
//! [`crate::api`] (which re-exports them for compatibility).

/// How one argument of a differentiated function takes part in differentiation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Activity {
    /// No derivative flows through this argument.
    Const,
    /// Primal plus a shadow (tangent, or shadow memory for pointers).
    Dup,
    /// Like `Dup`, but the primal value is not needed by the caller.
    DupNoNeed,
    /// Reverse mode: an active scalar whose adjoint is returned.
    Out,
}

impl Activity {
    /// True when the derived function takes a shadow argument for this parameter.
    pub fn has_shadow(self) -> bool {
        matches!(self, Activity::Dup | Activity::DupNoNeed)
    }

    /// One-letter code used in derived function names.
    pub fn code(self) -> char {
        match self {
            Activity::Const => 'c',
            Activity::Dup => 'd',
            Activity::DupNoNeed => 'n',
            Activity::Out => 'a',
        }
    }
}

/// Which derivative a request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    /// Tangents (`__umbra_fwddiff`, `__enzyme_fwddiff`).
    Forward,
    /// Gradients (`__umbra_autodiff`, `__enzyme_autodiff`).
    Reverse,
}
