//! What `umbra check` feeds a function: one [`Param`] per parameter (an active or constant
//! floating-point scalar, an active or constant array of floats of a given length, or an integer
//! constant), from the user's description (`--function 'f(x: double[8], n: const 8)'`), from a
//! derivative request in the module, or by default for scalar-only signatures. Every signature
//! is checked against the function's LLVM type before any code is generated for it.

use anyhow::{anyhow, bail, Result};

/// A floating-point type `umbra check` can generate values of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Float {
    /// `double`
    F64,
    /// `float`
    F32,
}

impl Float {
    /// The type's LLVM spelling.
    pub fn ir(self) -> &'static str {
        match self {
            Float::F64 => "double",
            Float::F32 => "float",
        }
    }

    /// From an LLVM or C spelling.
    pub fn parse(text: &str) -> Option<Float> {
        match text {
            "double" => Some(Float::F64),
            "float" => Some(Float::F32),
            _ => None,
        }
    }
}

/// How one parameter is fed.
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    /// A floating-point value; `active`: differentiated (dup in forward, out in reverse mode).
    Scalar { ty: Float, active: bool },
    /// A pointer to `len` floats; `active`: differentiated (dup, with shadow memory).
    Array { ty: Float, len: usize, active: bool },
    /// An integer of `bits` bits, always constant.
    Int { bits: u32, value: i64 },
}

impl Param {
    /// True when derivatives are taken with respect to this parameter.
    pub fn active(&self) -> bool {
        matches!(
            self,
            Param::Scalar { active: true, .. } | Param::Array { active: true, .. }
        )
    }

    /// The number of floats it holds (1 for a scalar, 0 for an integer).
    pub fn floats(&self) -> usize {
        match self {
            Param::Scalar { .. } => 1,
            Param::Array { len, .. } => *len,
            Param::Int { .. } => 0,
        }
    }
}

/// The function's LLVM parameter and return types, as LLVM prints them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IrType {
    /// One per parameter: `double`, `float`, `i32`, `ptr`, ...
    pub params: Vec<String>,
    /// `double`, `float` or `void` (anything else is refused).
    pub ret: String,
}

/// Everything needed to call one function with generated values.
#[derive(Debug, Clone, PartialEq)]
pub struct Signature {
    /// The function's name in the module.
    pub name: String,
    /// Parameter names for messages (`x`, or `arg2` when the description gives none).
    pub labels: Vec<String>,
    /// How each parameter is fed.
    pub params: Vec<Param>,
    /// The floating-point result, `None` for `void`.
    pub ret: Option<Float>,
}

impl Signature {
    /// True when some parameter is active.
    pub fn has_active(&self) -> bool {
        self.params.iter().any(Param::active)
    }

    /// A key that tells two signatures of one function apart (by what is active and how big).
    pub fn key(&self) -> String {
        format!("{}{:?}", self.name, self.params)
    }
}

/// The name in `--function` text: everything before `(`, trimmed.
pub fn name_of(text: &str) -> &str {
    text.split('(').next().unwrap_or(text).trim()
}

/// Parses `--function` text: `NAME` alone (defaults from the type) or
/// `NAME(PARAM, ...)` with PARAM = `[label:] TYPE` and TYPE one of `double`, `float`,
/// `double[N]`, `float[N]`, the same after `const`, or an integer (`const 8` or `8`).
pub fn parse(text: &str, ir: &IrType) -> Result<Signature> {
    let name = name_of(text).to_string();
    if name.is_empty() {
        bail!("--function '{text}': no function name");
    }
    let Some(open) = text.find('(') else {
        return defaults(&name, ir);
    };
    let inner = text[open + 1..]
        .trim_end()
        .strip_suffix(')')
        .ok_or_else(|| anyhow!("--function '{text}': missing ')'"))?;
    let items: Vec<&str> = if inner.trim().is_empty() {
        Vec::new()
    } else {
        inner.split(',').map(str::trim).collect()
    };
    if items.len() != ir.params.len() {
        bail!(
            "--function '{text}': '{name}' has {} parameter(s), the description {}",
            ir.params.len(),
            items.len()
        );
    }
    let mut labels = Vec::new();
    let mut params = Vec::new();
    for (k, item) in items.iter().enumerate() {
        let (label, ty) = match item.split_once(':') {
            Some((l, t)) => (l.trim().to_string(), t.trim()),
            None => (format!("arg{k}"), *item),
        };
        let param = parse_param(ty)
            .ok_or_else(|| anyhow!("--function '{text}': cannot read parameter '{item}' (expected double, float, double[N], float[N], const ..., or an integer)"))?;
        let param = fit(param, &ir.params[k]).map_err(|why| {
            anyhow!(
                "--function '{text}': parameter '{label}' of '{name}' is {}: {why}",
                ir.params[k]
            )
        })?;
        labels.push(label);
        params.push(param);
    }
    Ok(Signature {
        ret: ret_of(&name, ir)?,
        name,
        labels,
        params,
    })
}

fn parse_param(ty: &str) -> Option<Param> {
    let (active, rest) = match ty.strip_prefix("const ") {
        Some(rest) => (false, rest.trim()),
        None => (true, ty),
    };
    if let Ok(value) = rest.parse::<i64>() {
        return Some(Param::Int { bits: 0, value });
    }
    if let Some(open) = rest.find('[') {
        let elem = Float::parse(rest[..open].trim())?;
        let len = rest[open + 1..]
            .strip_suffix(']')?
            .trim()
            .parse::<usize>()
            .ok()?;
        if len == 0 {
            return None;
        }
        return Some(Param::Array {
            ty: elem,
            len,
            active,
        });
    }
    Some(Param::Scalar {
        ty: Float::parse(rest)?,
        active,
    })
}

/// `param` checked against (and completed from) the LLVM type `ir`.
fn fit(param: Param, ir: &str) -> std::result::Result<Param, &'static str> {
    match param {
        Param::Int { value, .. } => {
            match ir.strip_prefix('i').and_then(|b| b.parse::<u32>().ok()) {
                Some(bits) if bits <= 64 => Ok(Param::Int { bits, value }),
                _ => Err("an integer was given for it"),
            }
        }
        Param::Scalar { ty, .. } if ty.ir() != ir => Err("the description gives another type"),
        Param::Array { .. } if ir != "ptr" => Err("an array was given for it"),
        p => Ok(p),
    }
}

fn ret_of(name: &str, ir: &IrType) -> Result<Option<Float>> {
    match ir.ret.as_str() {
        "void" => Ok(None),
        other => match Float::parse(other) {
            Some(f) => Ok(Some(f)),
            None => bail!(
                "'{name}' returns {other}: umbra check handles functions returning double, float or void"
            ),
        },
    }
}

/// The signature of a function whose parameters are all `double` or `float`: all active.
pub fn defaults(name: &str, ir: &IrType) -> Result<Signature> {
    let mut params = Vec::new();
    for (k, p) in ir.params.iter().enumerate() {
        match Float::parse(p) {
            Some(ty) => params.push(Param::Scalar { ty, active: true }),
            None => bail!(
                "'{name}': parameter {k} is {p}; describe it, e.g. --function '{name}(x: double[8], n: const 8)'"
            ),
        }
    }
    Ok(Signature {
        name: name.to_string(),
        labels: (0..params.len()).map(|k| format!("arg{k}")).collect(),
        params,
        ret: ret_of(name, ir)?,
    })
}

/// What a request says about one parameter, as `umbra_passes::inspect` reports it.
pub struct RequestArg {
    /// Differentiated (dup or out) rather than const.
    pub active: bool,
    /// The integer constant passed.
    pub const_int: Option<i64>,
    /// The array pointed to: element type and length.
    pub array: Option<(String, u64)>,
}

/// The signature a request in the module implies, or why it cannot be told.
pub fn from_request(name: &str, ir: &IrType, args: &[RequestArg]) -> Result<Signature> {
    let mut params = Vec::new();
    for (k, (a, ty)) in args.iter().zip(&ir.params).enumerate() {
        let param = if let Some(f) = Float::parse(ty) {
            Param::Scalar {
                ty: f,
                active: a.active,
            }
        } else if let Some(bits) = ty.strip_prefix('i').and_then(|b| b.parse::<u32>().ok()) {
            match a.const_int {
                Some(value) if bits <= 64 => Param::Int { bits, value },
                _ => bail!(
                    "'{name}': the request passes parameter {k} ({ty}) a value known only at run time; describe it with --function"
                ),
            }
        } else if ty == "ptr" {
            match a.array.as_ref().and_then(|(e, n)| Some((Float::parse(e)?, *n))) {
                Some((elem, len)) if len > 0 => Param::Array {
                    ty: elem,
                    len: len as usize,
                    active: a.active,
                },
                _ => bail!(
                    "'{name}': cannot tell how many floats parameter {k} points to; describe it with --function '{name}(...: double[N], ...)'"
                ),
            }
        } else {
            bail!("'{name}': parameter {k} is {ty}, which umbra check cannot generate");
        };
        params.push(param);
    }
    Ok(Signature {
        name: name.to_string(),
        labels: (0..params.len()).map(|k| format!("arg{k}")).collect(),
        params,
        ret: ret_of(name, ir)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ir(params: &[&str], ret: &str) -> IrType {
        IrType {
            params: params.iter().map(|s| s.to_string()).collect(),
            ret: ret.to_string(),
        }
    }

    #[test]
    fn descriptions_parse_and_are_checked_against_the_type() {
        let s = parse(
            "f(x: double[8], n: const 8)",
            &ir(&["ptr", "i32"], "double"),
        )
        .unwrap();
        assert_eq!(s.name, "f");
        assert_eq!(s.labels, vec!["x", "n"]);
        assert_eq!(
            s.params,
            vec![
                Param::Array {
                    ty: Float::F64,
                    len: 8,
                    active: true
                },
                Param::Int { bits: 32, value: 8 }
            ]
        );
        let s = parse(
            "g(a: const float, float[2])",
            &ir(&["float", "ptr"], "void"),
        )
        .unwrap();
        assert_eq!(s.labels[1], "arg1");
        assert!(!s.params[0].active() && s.params[1].active());
        assert_eq!(s.ret, None);
        // Wrong count, wrong type, bad syntax, unsupported result.
        assert!(parse("f(x: double[8])", &ir(&["ptr", "i32"], "double")).is_err());
        assert!(parse("f(x: double)", &ir(&["float"], "double")).is_err());
        assert!(parse("f(x: double[0])", &ir(&["ptr"], "double")).is_err());
        assert!(parse("f(x: double[8]", &ir(&["ptr"], "double")).is_err());
        assert!(parse("f(x: double)", &ir(&["double"], "i32")).is_err());
    }

    #[test]
    fn scalar_only_signatures_need_no_description() {
        let s = parse("f", &ir(&["double", "float"], "double")).unwrap();
        assert!(s.params.iter().all(Param::active));
        assert!(parse("f", &ir(&["ptr"], "double")).is_err());
    }
}
