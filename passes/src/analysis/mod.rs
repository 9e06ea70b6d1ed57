//! Analyses the visitors consult before emitting code: control-flow order ([`cfg`]), which
//! values carry derivatives ([`activity`]), how each opcode takes part in differentiation
//! ([`opcodes`]), what a pointer may point into ([`objects`]), what copied memory holds
//! ([`contents`]), which pointers made from integers offset which pointer ([`int_pointers`]),
//! which loads the adjoint may re-read ([`overwrite`], with index reasoning across loop nests in
//! [`indices`]), which stores' shadows nothing reads after their adjoint ([`dead_shadow`]), which
//! lanes of a scatter or gather may share an address ([`lanes`]), which bytes hold floats
//! ([`types`]), which local objects only the primal uses ([`primal_objects`]: no shadow), and
//! where a user's inactive declaration drops a derivative ([`dropped`]).

pub mod activity;
pub mod cfg;
pub mod contents;
pub mod dead_shadow;
pub mod dropped;
pub mod indices;
pub mod int_pointers;
pub mod lanes;
pub mod objects;
pub mod opcodes;
pub mod overwrite;
pub mod primal_objects;
pub mod types;
