//! Activity markers: the globals `umbra_dup`, `enzyme_const`, ... whose loaded values (or
//! addresses) users pass before an argument to say how it is differentiated.

use super::Activity;
use crate::ir::{Opcode, Val};

/// A decoded marker argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Marker {
    /// A known marker setting the next argument's activity.
    Known(Activity),
    /// A global named like a marker (`enzyme_width`, ...) that Umbra does not support.
    Unknown(String),
}

const PREFIXES: [&str; 2] = ["umbra_", "enzyme_"];

/// Decodes `arg` as a marker: a load of a marker global, or the global's address.
pub fn decode(arg: Val) -> Option<Marker> {
    let global = if arg.is_global_variable() {
        arg
    } else if arg.is_instruction() && arg.opcode() == Opcode::LLVMLoad {
        let p = arg.operand(0);
        if !p.is_global_variable() {
            return None;
        }
        p
    } else {
        return None;
    };
    let name = global.name();
    let suffix = PREFIXES.iter().find_map(|p| name.strip_prefix(p))?;
    Some(match suffix {
        "dup" => Marker::Known(Activity::Dup),
        "dupnoneed" => Marker::Known(Activity::DupNoNeed),
        "const" => Marker::Known(Activity::Const),
        "out" => Marker::Known(Activity::Out),
        _ => Marker::Unknown(name),
    })
}
