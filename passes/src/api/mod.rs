//! The user-facing API: finding derivative requests (calls to functions whose names contain
//! `__umbra_fwddiff`, `__enzyme_fwddiff` or the reverse-mode spellings, C or C++-mangled),
//! decoding their activity markers, and replacing each request call by a call to its derived
//! function. Calls to other functions of the API's namespaces are errors.
//!
//! Guarantees: every request is either lowered completely or reported as an error naming the
//! call site; `__enzyme_batch` requests are lowered to batched functions ([`crate::batch`]);
//! marker loads that become dead are removed so that `extern int enzyme_dup;` needs
//! no definition at link time.

pub mod batch;
pub mod batch_args;
pub mod dispatch;
pub mod lower;
mod markers;
mod names;
mod request;
mod split;

pub use markers::Marker;
pub use names::{classify, ApiName};
pub use request::{find_requests, inner_first, redecode, ArgPlan, Mode, Request, Split, Sweep};

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
