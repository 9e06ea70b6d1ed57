//! [`Options`]: what the user can tell the differentiation passes, and the one text syntax shared
//! by the plugin's pass parameters (`-passes='umbra<...>'`) and the `UMBRA_OPTIONS` variable.

use crate::diag::{Error, Result};

/// Settings for one run over a module.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Functions to treat as having no derivative: calls to them run in the primal only.
    pub inactive: Vec<String>,
    /// Report which values carry derivatives in each differentiated function.
    pub print_activity: bool,
    /// Report what each differentiable memory access carries (reverse mode).
    pub print_types: bool,
    /// After each gradient, call `void umbra_tape_stats(int64_t bytes)` (defined by the user,
    /// e.g. a benchmark harness) with the bytes its tape holds at its peak.
    pub tape_stats: bool,
    /// Report what each gradient keeps on its tape, per loop, with source locations and why.
    pub tape_report: bool,
    /// Emit run-time checks of every tangent, adjoint and shadow pointer in derived code
    /// ([`crate::debug_checks`]).
    pub debug_checks: bool,
    /// Re-optimise the module after differentiation at this level (0-3). The driver runs its own
    /// pipeline and leaves this `None`; the clang plugin sets it to clang's level.
    pub reoptimize: Option<u8>,
    /// Rules files (`--rules FILE`, TOML) to read before differentiating.
    pub rules_files: Vec<String>,
    /// Files naming inactive functions, one per line (`--inactive-file FILE`, Enzyme's
    /// `--enzyme-load-inactive-file`): read with the rules files.
    pub inactive_files: Vec<String>,
    /// The Rust sysroot whose rlibs' bitcode supplies bodies of `alloc`/`core` functions a
    /// crate only declares ([`crate::rustlib`]); `None`: `RUST_SYSROOT`, else `rustc --print
    /// sysroot`.
    pub rust_sysroot: Option<String>,
    /// Enzyme's `--enzyme-truncate-all` specification (`64to32`, `11-52to8-23;32to16`; `:`
    /// separates truncations too): the floating-point operations of every defined function are
    /// computed in the narrower format ([`crate::api::truncate`]). Empty: none.
    pub truncate_all: String,
}

impl Options {
    /// Parses `key=value` settings separated by `;` (pass parameters) or whitespace
    /// (`UMBRA_OPTIONS`): `inactive=f,g` (or `f:g`) and `reopt=O2` (or `reopt=2`).
    pub fn parse(text: &str) -> Result<Options> {
        let mut opts = Options::default();
        opts.merge(text)?;
        Ok(opts)
    }

    /// Adds the settings in `text` to these options.
    pub fn merge(&mut self, text: &str) -> Result<()> {
        for item in text.split(|c: char| c == ';' || c.is_whitespace()) {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let (key, value) = item.split_once('=').unwrap_or((item, ""));
            match key.trim_start_matches("--") {
                // `:` as well as `,`: opt splits `-passes=` at commas, even inside `umbra<...>`.
                "inactive" => self.inactive.extend(
                    value
                        .split([',', ':'])
                        .filter(|s| !s.is_empty())
                        .map(str::to_string),
                ),
                "rules" if !value.is_empty() => self.rules_files.push(value.to_string()),
                "inactive-file" if !value.is_empty() => {
                    self.inactive_files.push(value.to_string())
                }
                "rust-sysroot" if !value.is_empty() => self.rust_sysroot = Some(value.to_string()),
                // `:` between truncations: `;` ends the setting.
                "truncate-all" => self.truncate_all = value.to_string(),
                "print-activity" => self.print_activity = true,
                "print-types" => self.print_types = true,
                "tape-stats" => self.tape_stats = true,
                "tape-report" => self.tape_report = true,
                "debug-checks" => self.debug_checks = true,
                "reopt" => {
                    let level = value.trim_start_matches(['O', 'o']);
                    match level.parse::<u8>() {
                        Ok(l) if l <= 3 => self.reoptimize = Some(l),
                        _ => {
                            return Err(Error::general(format!(
                                "bad umbra option 'reopt={value}': expected O0, O1, O2 or O3"
                            )))
                        }
                    }
                }
                _ => {
                    return Err(Error::general(format!(
                    "unknown umbra option '{item}' (known: inactive=NAME[:NAME...], inactive-file=FILE, rules=FILE, rust-sysroot=DIR, reopt=O0..O3, truncate-all=SPEC, print-activity, print-types, tape-stats, tape-report, debug-checks)"
                )))
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_pass_parameters_and_environment_syntax() {
        let o = Options::parse("inactive=log_msg:trace;reopt=O2").unwrap();
        assert_eq!(o.inactive, vec!["log_msg", "trace"]);
        assert_eq!(o.reoptimize, Some(2));
        let o = Options::parse("  --inactive=a   reopt=3 ").unwrap();
        assert_eq!(o.inactive, vec!["a"]);
        assert_eq!(o.reoptimize, Some(3));
        let o = Options::parse("inactive-file=/tmp/a.list --inactive-file=b.list").unwrap();
        assert_eq!(o.inactive_files, vec!["/tmp/a.list", "b.list"]);
    }

    #[test]
    fn rejects_unknown_options() {
        assert!(Options::parse("bogus=1").is_err());
        assert!(Options::parse("reopt=O7").is_err());
        assert!(Options::parse("inactive-file=").is_err());
    }
}
