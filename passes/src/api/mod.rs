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
pub mod call_inactive;
pub mod dispatch;
pub mod global_shadows;
pub mod iter;
pub mod lower;
mod markers;
mod names;
mod request;
pub mod shadow_context;
pub mod shadow_sets;
mod split;
pub mod todense;
pub mod truncate;
pub mod type_hints;
pub mod virtual_reverse;

pub use crate::vocab::Mode;
pub use names::{is_request, Sweep};
pub use request::{find_requests, inner_first, redecode, ArgPlan, Request, Split};
