//! The user's type hints: Enzyme's `__enzyme_float(p, n)`, `__enzyme_double(p, n)`,
//! `__enzyme_integer(p, n)` and `__enzyme_pointer(p, n)` say that the `n` bytes at `p` hold
//! floats, doubles, integers or pointers (`n` a constant; without it, one such value). `api`
//! lowers each call to a call of `umbra.type_hint.<kind>(p, n)` ([`HINT_PREFIX`]), which stays
//! in the module while the derivatives are built (the rule table makes it inactive, and it
//! writes nothing), and is removed after them.
//!
//! Guarantees: the analysis adds each hint's facts about the memory at `p` in every type context
//! of its function ([`pointee`], read by the transfer functions), and records the hint; then
//! [`check`] refuses, naming the call, every hint the analysis contradicts (bytes the program
//! also reads as another kind, which the join turns into another kind or a conflict), whose
//! size is not a constant whole number of values, or whose pointer is a global or constant (the
//! analysis types those by their declared types only). A hint never silently loses.

use super::queries::TypeInfo;
use super::tree::{self, FloatKind, Kind, Tree};
use crate::diag::{Error, Result};
use crate::ir::{Module, Val};

/// The name prefix of the lowered hints: `umbra.type_hint.double`, ...
pub const HINT_PREFIX: &str = "umbra.type_hint.";

/// What a hint says the bytes hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hint {
    /// `__enzyme_float`: `float`s, every 4 bytes.
    Float,
    /// `__enzyme_double`: `double`s, every 8 bytes.
    Double,
    /// `__enzyme_integer`: integer data, every byte.
    Integer,
    /// `__enzyme_pointer`: pointers, every 8 bytes.
    Pointer,
}

impl Hint {
    /// Every hint, for name lookups.
    pub const ALL: [Hint; 4] = [Hint::Float, Hint::Double, Hint::Integer, Hint::Pointer];

    /// The word of its names: `__enzyme_<word>`, `umbra.type_hint.<word>`.
    pub fn word(self) -> &'static str {
        match self {
            Hint::Float => "float",
            Hint::Double => "double",
            Hint::Integer => "integer",
            Hint::Pointer => "pointer",
        }
    }

    /// The bytes of one value of the kind (an integer hint is per byte, as in Enzyme).
    pub fn step(self) -> u64 {
        match self {
            Hint::Float => 4,
            Hint::Double | Hint::Pointer => 8,
            Hint::Integer => 1,
        }
    }

    /// The kind at each value's first byte.
    fn kind(self) -> Kind {
        match self {
            Hint::Float => Kind::Float(FloatKind::Float),
            Hint::Double => Kind::Float(FloatKind::Double),
            Hint::Integer => Kind::Integer,
            Hint::Pointer => Kind::Pointer,
        }
    }

    /// The hint a lowered call's callee name carries.
    fn of_name(name: &str) -> Option<Hint> {
        let word = name.strip_prefix(HINT_PREFIX)?;
        Hint::ALL.into_iter().find(|h| h.word() == word)
    }
}

/// The hint `call` makes and its constant size in bytes (`None`: not a constant), when it calls
/// a lowered hint.
pub fn read(call: Val) -> Option<(Hint, Option<u64>)> {
    let f = call.called_function()?;
    let hint = Hint::of_name(&f.name())?;
    let size = call.call_args().get(1).and_then(|n| n.const_int_value());
    Some((hint, size))
}

/// What hint `h` over `size` bytes says the memory holds: the kind at every whole value's first
/// byte, up to the trees' offset bound.
pub fn pointee(h: Hint, size: u64) -> Tree {
    let mut t = Tree::default();
    let mut at = 0;
    while at + h.step() <= size.min(tree::MAX_OFFSET) {
        t.at.insert(at, h.kind());
        at += h.step();
    }
    t
}

/// Refuses each hint the analysis recorded that it cannot honour or that contradicts what it
/// found ([module docs](self)).
pub fn check(info: TypeInfo, m: Module) -> Result<()> {
    for (ctx, call) in info.hint_sites() {
        let Some((h, size)) = read(call) else {
            continue;
        };
        let name = format!("__enzyme_{}", h.word());
        let Some(size) = size else {
            return Err(Error::user_at(
                call,
                format!("'{name}' needs a constant size in bytes (the number of bytes at the pointer it describes)"),
            ));
        };
        if size % h.step() != 0 {
            return Err(Error::user_at(
                call,
                format!(
                    "'{name}' describes {size} bytes, not a whole number of {}s ({} bytes each)",
                    h.word(),
                    h.step()
                ),
            ));
        }
        let p = call.call_args()[0];
        if !(p.is_instruction() || p.is_argument()) {
            // A global, or a constant address inside one.
            let global = crate::analysis::objects::underlying_objects(p)
                .into_iter()
                .find(|g| g.is_global_variable())
                .map_or_else(|| crate::diag::short(p), |g| format!("@{}", g.name()));
            return Err(Error::user_at(
                call,
                format!("'{name}' on a global's memory ('{global}'): Umbra types a global by its declared type only; declare it with the type the hint names"),
            ));
        }
        if !info.converged {
            continue;
        }
        let found = info.in_context(ctx).pointee(m, p);
        if let Some((at, kind)) = contradiction(h, size, &found) {
            return Err(Error::user_at(
                call,
                format!(
                    "'{name}' says the {size} bytes here hold {}s, but the program also accesses byte {at} as {kind}; remove the hint or correct it",
                    h.word()
                ),
            ));
        }
    }
    Ok(())
}

/// The first byte of the hinted range where `found` (the memory's tree with the hint merged in)
/// says other than the hint: another kind where a value starts, or a value starting inside one
/// (a float's own tail excepted).
fn contradiction(h: Hint, size: u64, found: &Tree) -> Option<(u64, Kind)> {
    for at in 0..size.min(tree::MAX_OFFSET) {
        let Some(k) = found.get(at) else {
            continue;
        };
        let starts = at % h.step() == 0;
        let fits = match k {
            Kind::Anything => true,
            Kind::FloatTail(f) => !starts && h.kind() == Kind::Float(f),
            k => starts && k == h.kind(),
        };
        if !fits {
            return Some((at, k));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_cover_whole_values_only() {
        let t = pointee(Hint::Double, 24);
        assert_eq!(t.at.keys().copied().collect::<Vec<_>>(), vec![0, 8, 16]);
        assert_eq!(pointee(Hint::Integer, 3).at.len(), 3);
        assert!(pointee(Hint::Pointer, 4).at.is_empty());
        assert_eq!(Hint::of_name("umbra.type_hint.float"), Some(Hint::Float));
        assert_eq!(Hint::of_name("umbra.type_hint.floats"), None);
    }

    #[test]
    fn a_contradicted_hint_is_found() {
        let mut t = pointee(Hint::Double, 16);
        assert_eq!(contradiction(Hint::Double, 16, &t), None);
        // An `int` read at byte 4, inside the first double.
        t.at.insert(4, Kind::Integer);
        assert_eq!(
            contradiction(Hint::Double, 16, &t),
            Some((4, Kind::Integer))
        );
        // A float also read as an integer stays a float: an integer hint over it loses.
        let mut f = pointee(Hint::Integer, 8);
        f.at.insert(0, Kind::Float(FloatKind::Double));
        assert_eq!(
            contradiction(Hint::Integer, 8, &f),
            Some((0, Kind::Float(FloatKind::Double)))
        );
        let mut c = pointee(Hint::Float, 8);
        c.at.insert(4, Kind::Conflict);
        assert_eq!(contradiction(Hint::Float, 8, &c), Some((4, Kind::Conflict)));
    }
}
