//! Errors with source locations.
//!
//! Every failure the differentiation passes can hit ends up here as an [`Error`]: one line naming
//! the function, the offending instruction or callee, and the `file:line:col` of that instruction
//! when the module carries debug info. Nothing in `umbra-passes` panics on user input; it returns
//! one of these instead.

use crate::ir::{Opcode, Val};
use std::fmt;

/// Where in the user's program an error arose.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Location {
    /// `file:line:col` from the instruction's debug location, when present.
    pub source: Option<String>,
    /// The function being differentiated (or containing the request).
    pub function: Option<String>,
    /// The instruction, printed as IR, when there is no debug location to show instead.
    pub instruction: Option<String>,
}

/// What the name of a copy of a function specialised for distinct arguments
/// ([`crate::distinct_args`]) adds to its original's: this, then one letter per argument.
pub(crate) const DISTINCT_COPY: &str = ".distinct.";

/// The metadata kind naming, on an instruction inlined from a small helper before
/// differentiation ([`crate::distinct_args::inline_leaf_helpers`]), the user's function it was
/// written in: messages about it name that function.
pub(crate) const INLINED_FROM: &str = "umbra.inlined_from";

/// The name of the user's function a message names for `f` (see [`shown`]).
pub(crate) fn shown_name(f: Val) -> String {
    shown(f).name()
}

/// The function a message names for `f`: the user's function a copy specialised for distinct
/// arguments was made from (the user wrote that one), else `f`.
fn shown(f: Val) -> Val {
    let name = f.name();
    name.rsplit_once(DISTINCT_COPY)
        .filter(|(_, rest)| {
            let letters = rest.split('.').next().unwrap_or_default();
            !letters.is_empty() && letters.chars().all(|c| c == 'n' || c == 'm')
        })
        .and_then(|(original, _)| f.module().function(original))
        .unwrap_or(f)
}

impl Location {
    /// The location of `inst` (an instruction): its debug location, its function, and, when
    /// there is no debug location, the instruction's text.
    pub fn of_instruction(inst: Val) -> Location {
        let source = inst.debug_location();
        let function = inst
            .string_md(INLINED_FROM)
            .or_else(|| inst.parent_function().map(|f| shown(f).name()));
        let instruction = if source.is_none() {
            Some(ir_text(inst))
        } else {
            None
        };
        Location {
            source,
            function,
            instruction,
        }
    }

    /// The location of a whole function: where it is defined (debug information), its name.
    pub fn of_function(f: Val) -> Location {
        let f = shown(f);
        Location {
            source: f.function_debug_location(),
            function: Some(f.name()),
            instruction: None,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(src) = &self.source {
            write!(f, "{src}: ")?;
        }
        if let Some(func) = &self.function {
            write!(f, "in function '{func}': ")?;
        }
        if let Some(inst) = &self.instruction {
            write!(f, "at '{inst}': ")?;
        }
        Ok(())
    }
}

/// Whose fault an error is, which decides how it is worded and what the user can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input or the options are wrong (a bad marker, an activity that does not fit, a
    /// malformed rules file): the user fixes the call site or the command line.
    User,
    /// The input is valid but Umbra cannot differentiate it (a missing rule, an unsupported
    /// construct): the message says the ways out.
    Unsupported,
    /// A fault in Umbra itself: the message says how to report it.
    Internal,
}

/// A differentiation failure: what went wrong and where. Displays as one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{location}{}", self.text())]
pub struct Error {
    /// Whose fault it is.
    pub kind: ErrorKind,
    /// Where it happened.
    pub location: Location,
    /// What went wrong and, where possible, how to fix it.
    pub message: String,
}

/// What an internal error asks the user to send.
pub const REPORT_HINT: &str =
    "this is a bug in umbra: please report it with the input file, the command line and the output of `umbra --version`";

impl Error {
    /// The message as shown: internal errors say so and how to report them.
    fn text(&self) -> String {
        match self.kind {
            ErrorKind::Internal => format!("internal error: {} ({REPORT_HINT})", self.message),
            _ => self.message.clone(),
        }
    }

    /// This error with another kind.
    pub fn with_kind(mut self, kind: ErrorKind) -> Error {
        self.kind = kind;
        self
    }

    /// An error at instruction `inst`: something Umbra cannot differentiate there.
    pub fn at(inst: Val, message: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Unsupported,
            location: Location::of_instruction(inst),
            message: message.into(),
        }
    }

    /// A fault in Umbra itself, found at `v` (an instruction or any value).
    pub fn internal(v: Val, what: impl Into<String>) -> Error {
        Error::at_value(v, what).with_kind(ErrorKind::Internal)
    }

    /// A mistake in the user's request or options, found at `v`.
    pub fn user_at(v: Val, message: impl Into<String>) -> Error {
        Error::at_value(v, message).with_kind(ErrorKind::User)
    }

    /// An error at any value: instructions get their location, others their text.
    pub fn at_value(v: Val, message: impl Into<String>) -> Error {
        if v.is_instruction() {
            return Error::at(v, message);
        }
        Error {
            kind: ErrorKind::Unsupported,
            location: Location {
                instruction: Some(ir_text(v)),
                ..Location::default()
            },
            message: message.into(),
        }
    }

    /// An error about function `f` as a whole.
    pub fn in_function(f: Val, message: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Unsupported,
            location: Location::of_function(f),
            message: message.into(),
        }
    }

    /// A user error with no location (a bad option, say).
    pub fn general(message: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::User,
            location: Location::default(),
            message: message.into(),
        }
    }
}

/// A value's IR text on one line: LLVM prints an `invoke` (`to label %a unwind label %b`) and
/// a `switch` (one line per case) over several, and an error is one line.
pub fn ir_text(v: Val) -> String {
    v.print().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A value's IR text, on one line and cut short for messages.
pub fn short(v: Val) -> String {
    let s = ir_text(v);
    if s.chars().count() > 80 {
        format!("{}...", s.chars().take(77).collect::<String>())
    } else {
        s
    }
}

/// Why pointer `p`, the destination of a store of a value with a derivative, has no shadow,
/// and what to do: it was made from an integer (`inttoptr`, as manual alignment
/// `(uintptr_t)p + 63 & ~63` or rustc's unwinding builds emit), or it is a parameter passed as
/// constant or a global.
pub fn why_no_shadow(p: Val) -> String {
    if made_from_integer(p) {
        return format!(
            "('{}' is made from an integer, with `inttoptr`, whose value Umbra cannot tie to one pointer: it follows `(uintptr_t)p` plus integer arithmetic on constants only); keep the arithmetic on pointers (`(double *)raw + k`, `aligned_alloc`, `__builtin_align_up`)",
            short(p)
        );
    }
    match underlying_object(p) {
        o if o.is_global_variable() => format!(
            "('{}' is in the global '{}', which has no shadow: Umbra gives one to a global the differentiated code stores floating-point values into, not to one holding pointers or integers); keep the data in a local or heap array, pass it to the differentiated function as a dup argument, or declare the global's shadow (enzyme_shadow)",
            short(p),
            o.name()
        ),
        o if o.is_argument() => format!(
            "(it points into {}, which has none: the request passes it as constant, or a caller passes a global or a constant pointer there); pass the destination as dup",
            describe_parameter(o)
        ),
        o if o.is_instruction()
            && o.opcode() == crate::ir::Opcode::LLVMLoad
            && underlying_object(o.operand(0)).is_global_variable() =>
        {
            format!(
                "('{}' is a pointer loaded from the global '{}': Umbra gives no shadow to a global holding pointers, which would have to point at shadow memory); keep the pointer in a local, pass the memory to the differentiated function as a dup argument, or declare the global's shadow (enzyme_shadow) and point it at shadow memory",
                short(p),
                underlying_object(o.operand(0)).name()
            )
        }
        _ => format!(
            "('{}' is a constant argument or a global); pass the destination as dup",
            short(p)
        ),
    }
}

/// The object `p` points into, through offsets, casts and freezes: a global, an argument, an
/// allocation, an `inttoptr`; `p` itself when it is none of those steps.
fn underlying_object(p: Val) -> Val {
    let mut v = p;
    let mut seen = std::collections::HashSet::new();
    while seen.insert(v) && (v.is_instruction() || v.is_constant_expr()) {
        match opcode_of(v) {
            Opcode::LLVMGetElementPtr
            | Opcode::LLVMBitCast
            | Opcode::LLVMAddrSpaceCast
            | Opcode::LLVMFreeze => v = v.operand(0),
            _ => break,
        }
    }
    v
}

fn opcode_of(v: Val) -> Opcode {
    if v.is_instruction() {
        v.opcode()
    } else {
        v.const_opcode()
    }
}

/// True when pointer `p` is an `inttoptr`, or an offset or cast of one.
pub fn made_from_integer(p: Val) -> bool {
    let o = underlying_object(p);
    (o.is_instruction() || o.is_constant_expr()) && opcode_of(o) == Opcode::LLVMIntToPtr
}

/// Parameter `a` for a message: `'rowptr', parameter 2 of 'solve'` (its source name from
/// debug information, else its IR name, when it has one; 1-based position).
pub fn describe_parameter(a: Val) -> String {
    let f = a.parent_function();
    let k = f
        .and_then(|f| f.params().iter().position(|&p| p == a))
        .map_or(0, |k| k + 1);
    let fname = f.map(|f| f.name()).unwrap_or_default();
    let name = f
        .and_then(|f| crate::ir::debug_types::variable_name(f, a))
        .or_else(|| Some(a.name()).filter(|n| !n.is_empty()));
    match name {
        Some(n) => format!("'{n}', parameter {k} of '{fname}'"),
        None => format!("parameter {k} of '{fname}'"),
    }
}

/// Result type of the differentiation passes.
pub type Result<T> = std::result::Result<T, Error>;
