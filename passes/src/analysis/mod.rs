//! Analyses the visitors consult before emitting code: control-flow order ([`cfg`]), which
//! values carry derivatives ([`activity`]), what copied memory holds ([`contents`]), how each
//! opcode takes part in differentiation ([`opcodes`]), and which loads the adjoint may re-read
//! ([`overwrite`]).

pub mod activity;
pub mod cfg;
pub mod contents;
pub mod dropped;
pub mod opcodes;
pub mod overwrite;
