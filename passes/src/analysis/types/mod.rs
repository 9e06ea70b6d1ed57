//! Type analysis: which bytes hold floats. LLVM memory and integers have no float/int/pointer
//! distinction, yet reverse mode must add adjoints exactly where floats live. This is an
//! interprocedural fixed point over the whole module (Enzyme's TypeAnalysis is the reference
//! design): every value and every pointer gets a [`Tree`] (byte offset → float format /
//! integer / pointer / anything, "unknown" being the absence of an entry), seeded from typed
//! loads and stores, struct and array GEPs, TBAA, float operations, float↔int bitcasts, known
//! rule signatures (math, allocation) and copy lengths, and carried through phis, selects,
//! casts, integer extensions, truncations and shifts by whole bytes (packed values), calls
//! (arguments and returns, specialised per call site where callers conflict), derivative
//! requests (the caller's memory types the function's pointer parameters: [`requests`]),
//! returns and memory. The user's type hints (`__enzyme_double(p, n)`, ...) are facts about the
//! memory they name, and a hint the answers contradict is refused ([`hints`]). Byte-wise copies ([`bytes`]) make their two sides hold the same data.
//!
//! Floats win over integers ([`Kind::join`]): bytes that some access reads as a float are float
//! data even where another reads them as an integer (a `double` memcpy'd into a `uint64_t`, a
//! union), because for differentiation such an integer carries the float's derivative.

pub mod byte_cover;
pub mod bytes;
pub mod debug;
mod gep;
pub mod hints;
mod queries;
pub mod requests;
pub mod scope;
mod seeds;
mod solve;
mod transfer;
pub mod tree;

pub use debug::declared_integer_target;
pub use gep::length_multiplier;
pub use hints::{check as check_hints, Hint, HINT_PREFIX};
pub use queries::{
    check_no_float_bits, describe, float_bits, returned_float_bits, TypeInfo, TypeResults,
};
pub use requests::check_request;
pub use seeds::{float_ty, no_seed, CallSeed, RequestArg, RequestSite};
pub use solve::analyze;
pub use transfer::OPEN_DISPATCHER;
pub use tree::{FloatKind, Kind};

#[cfg(test)]
mod tests;
