//! Activity markers: the globals `umbra_dup`, `enzyme_const`, ... that users pass before an
//! argument to say how it is differentiated. As in Enzyme, a marker arrives as the global's
//! address, a load of it (C `extern int enzyme_dup;`, and C++ templates, whose `int`
//! parameters receive the loaded value), a cast of either, or a metadata string
//! (`metadata !"enzyme_dup"`). C++ may mangle the global's name (`_ZL10enzyme_dup` for a
//! `static` one).

use super::names::source_identifier;
use crate::ir::{Opcode, Val};
use crate::vocab::Activity;

/// A decoded marker argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Marker {
    /// A known marker setting the next argument's activity.
    Known(Activity),
    /// `enzyme_width`: the next argument is the number of tangents per call (batched forward
    /// mode); each duplicated argument is followed by that many shadows.
    Width,
    /// `enzyme_dupv` / `enzyme_dupnoneedv`: the argument is followed by a byte stride and one
    /// shadow pointer; lane `k`'s shadow is at `pointer + k * stride`.
    Strided(Activity),
    /// Split mode: `enzyme_allocated, size`: the tape buffer's size in bytes.
    Allocated,
    /// Split mode: `enzyme_tape, pointer`: where the tape lives.
    Tape,
    /// Split mode: `enzyme_nofree` (keep the tape after the reverse sweep).
    NoFree,
    /// `__enzyme_batch`: how the next parameter's values are given.
    Batch(BatchMarker),
    /// `enzyme_context, ctx`: the request reads and writes the global shadows of context
    /// `ctx` (`super::shadow_context`).
    Context,
    /// A name like a marker's (`enzyme_width`, ...) that Umbra does not support.
    Unknown(String),
}

/// The markers of `__enzyme_batch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchMarker {
    /// `enzyme_scalar`: one value for every lane.
    Scalar,
    /// `enzyme_vector`: one value per lane (the default).
    Vector,
    /// `enzyme_buffer, stride`: one pointer; lane `k`'s is `stride * k` bytes further.
    Buffer,
}

const PREFIXES: [&str; 2] = ["umbra_", "enzyme_"];

/// The marker names Umbra implements, for messages.
pub const SUPPORTED: &str =
    "dup, dupnoneed, const, out, width, dupv, dupnoneedv, context, in split mode allocated and tape, and in __enzyme_batch scalar, vector and buffer (with the prefix enzyme_ or umbra_)";

/// Decodes `arg` as a marker; `None` when it is an ordinary argument.
pub fn decode(arg: Val) -> Option<Marker> {
    let name = if let Some(text) = arg.metadata_string() {
        text
    } else {
        marker_global(arg)?.name()
    };
    let id = source_identifier(&name, &PREFIXES);
    let suffix = PREFIXES.iter().find_map(|p| id.strip_prefix(p))?;
    Some(match suffix {
        "dup" => Marker::Known(Activity::Dup),
        "dupnoneed" => Marker::Known(Activity::DupNoNeed),
        "const" => Marker::Known(Activity::Const),
        "out" => Marker::Known(Activity::Out),
        "width" => Marker::Width,
        "dupv" => Marker::Strided(Activity::Dup),
        "dupnoneedv" => Marker::Strided(Activity::DupNoNeed),
        "allocated" => Marker::Allocated,
        "tape" => Marker::Tape,
        "nofree" => Marker::NoFree,
        "context" => Marker::Context,
        "scalar" => Marker::Batch(BatchMarker::Scalar),
        "vector" => Marker::Batch(BatchMarker::Vector),
        "buffer" => Marker::Batch(BatchMarker::Buffer),
        _ => Marker::Unknown(id.to_string()),
    })
}

/// The global a marker argument refers to: itself, or the operand of a load or cast of it.
fn marker_global(arg: Val) -> Option<Val> {
    if arg.is_global_variable() {
        return Some(arg);
    }
    let op = if arg.is_instruction() {
        arg.opcode()
    } else if arg.is_constant_expr() {
        arg.const_opcode()
    } else {
        return None;
    };
    let wraps_global = matches!(
        op,
        Opcode::LLVMLoad | Opcode::LLVMPtrToInt | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast
    );
    (wraps_global && arg.operand(0).is_global_variable()).then(|| arg.operand(0))
}
