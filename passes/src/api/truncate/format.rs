//! The floating-point formats a truncation names and how Enzyme spells them: a bit width
//! (`64`, `32`, `16`) or an exponent-significand pair (`11-52`, `8-23`, `5-10`, `8-7`), in the
//! calls' integer arguments and in `--truncate-all` specifications (`64to32`,
//! `11-52to8-23;32to16`).
//!
//! Guarantees: only formats LLVM has a native type for are accepted (`double`, `float`,
//! `half`, `bfloat`); anything else, which Enzyme emulates with MPFR, is an error naming the
//! format, and a truncation must go to a strictly narrower type.

use crate::ir::Ty;

/// A native floating-point format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// IEEE binary64 (`double`, 11-52).
    F64,
    /// IEEE binary32 (`float`, 8-23).
    F32,
    /// IEEE binary16 (`half`, 5-10).
    F16,
    /// bfloat16 (8-7).
    BF16,
}

/// What the user can be told a truncation accepts.
pub const ACCEPTED: &str =
    "umbra truncates between native formats only: widths 64, 32, 16 or exponent-significand pairs 11-52, 8-23, 5-10, 8-7 (Enzyme emulates other formats with MPFR, which umbra does not)";

impl Format {
    /// The format Enzyme means by a width alone.
    pub fn from_width(bits: u64) -> Option<Format> {
        match bits {
            64 => Some(Format::F64),
            32 => Some(Format::F32),
            16 => Some(Format::F16),
            _ => None,
        }
    }

    /// The format with `exponent` and `significand` bits (the implicit bit not counted).
    pub fn from_pair(exponent: u64, significand: u64) -> Option<Format> {
        match (exponent, significand) {
            (11, 52) => Some(Format::F64),
            (8, 23) => Some(Format::F32),
            (5, 10) => Some(Format::F16),
            (8, 7) => Some(Format::BF16),
            _ => None,
        }
    }

    /// Its size in bits (also the width of the integer holding its bits).
    pub fn bits(self) -> u32 {
        match self {
            Format::F64 => 64,
            Format::F32 => 32,
            Format::F16 | Format::BF16 => 16,
        }
    }

    /// Its LLVM type.
    pub fn ty(self, ctx: crate::ir::Context) -> Ty {
        match self {
            Format::F64 => Ty::double(ctx),
            Format::F32 => Ty::float(ctx),
            Format::F16 => Ty::half(ctx),
            Format::BF16 => Ty::bfloat(ctx),
        }
    }

    /// Its LLVM type's name, for messages about values.
    pub fn type_name(self) -> &'static str {
        match self {
            Format::F64 => "double",
            Format::F32 => "float",
            Format::F16 => "half",
            Format::BF16 => "bfloat",
        }
    }

    /// Its name in messages and in the names of truncated functions.
    pub fn name(self) -> &'static str {
        match self {
            Format::F64 => "f64",
            Format::F32 => "f32",
            Format::F16 => "f16",
            Format::BF16 => "bf16",
        }
    }
}

/// A truncation from one format to a narrower one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Truncation {
    /// The program's format.
    pub from: Format,
    /// The format operations are computed in.
    pub to: Format,
}

impl Truncation {
    /// Checks that `to` is narrower than `from`.
    pub fn new(from: Format, to: Format) -> Result<Truncation, String> {
        if to.bits() >= from.bits() {
            return Err(format!(
                "a truncation from {} to {} does not narrow the format; the target must have fewer bits",
                from.name(),
                to.name()
            ));
        }
        Ok(Truncation { from, to })
    }

    /// `f64to32`-style text for names.
    pub fn mangled(self) -> String {
        format!("{}to{}", self.from.name(), self.to.name())
    }
}

/// One format in a specification: `64` or `11-52`.
fn parse_format(text: &str) -> Result<Format, String> {
    let number = |t: &str| {
        t.parse::<u64>()
            .map_err(|_| format!("'{t}' is not a number of bits"))
    };
    let format = match text.split_once('-') {
        Some((e, s)) => Format::from_pair(number(e)?, number(s)?),
        None => Format::from_width(number(text)?),
    };
    format.ok_or_else(|| format!("'{text}' is not a native format; {ACCEPTED}"))
}

/// Parses Enzyme's `--enzyme-truncate-all` text: truncations `FROMtoTO` separated by `;` (or
/// `:`, which survives the plugin's parameter syntax); the empty text means none.
pub fn parse_spec(spec: &str) -> Result<Vec<Truncation>, String> {
    let mut out = Vec::new();
    for item in spec
        .split([';', ':'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        let Some((from, to)) = item.split_once("to") else {
            return Err(format!(
                "'{item}' is not a truncation: expected FROMtoTO, e.g. 64to32 or 11-52to8-23"
            ));
        };
        let from = parse_format(from).map_err(|e| format!("in '{item}': {e}"))?;
        let to = parse_format(to).map_err(|e| format!("in '{item}': {e}"))?;
        out.push(Truncation::new(from, to).map_err(|e| format!("in '{item}': {e}"))?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specifications_are_parsed_as_enzyme_writes_them() {
        let t = |from, to| Truncation { from, to };
        assert_eq!(parse_spec(""), Ok(vec![]));
        assert_eq!(parse_spec("64to32"), Ok(vec![t(Format::F64, Format::F32)]));
        assert_eq!(
            parse_spec("11-52to8-23;32to16"),
            Ok(vec![
                t(Format::F64, Format::F32),
                t(Format::F32, Format::F16)
            ])
        );
        assert_eq!(
            parse_spec("64to8-7:32to5-10"),
            Ok(vec![
                t(Format::F64, Format::BF16),
                t(Format::F32, Format::F16)
            ])
        );
        assert!(parse_spec("11-52to3-7").unwrap_err().contains("MPFR"));
        assert!(parse_spec("64to128")
            .unwrap_err()
            .contains("not a native format"));
        assert!(parse_spec("32to64")
            .unwrap_err()
            .contains("does not narrow"));
        assert!(parse_spec("64").unwrap_err().contains("FROMtoTO"));
    }
}
