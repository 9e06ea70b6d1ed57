//! Analyses the visitors consult before emitting code: control-flow order ([`cfg`]), which
//! values carry derivatives ([`activity`]), and what copied memory holds ([`contents`]).

pub mod activity;
pub mod cfg;
pub mod contents;
