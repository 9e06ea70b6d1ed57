//! Analyses the visitors consult before emitting code: control-flow order ([`cfg`]) and which
//! values carry derivatives ([`activity`]).

pub mod activity;
pub mod cfg;
