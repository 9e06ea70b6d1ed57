//! Command-line interface: the clap definition of `umbra`'s arguments, and the decisions that
//! depend on arguments alone (what kind of output to emit). Nothing here touches LLVM except
//! asking it for its version string.

use anyhow::{bail, Result};
use clap::{CommandFactory, FromArgMatches, Parser, ValueEnum};
use std::path::{Path, PathBuf};

/// Differentiate the derivative requests in an LLVM module (forward mode: `__enzyme_fwddiff`,
/// `__umbra_fwddiff`; reverse mode: `__enzyme_autodiff`, `__umbra_autodiff`; C or C++ spellings),
/// re-optimise it and emit native code, assembly, bitcode or textual IR.
#[derive(Parser, Debug)]
#[command(
    name = "umbra",
    after_help = "Other commands:\n  umbra rules [--markdown]   list the built-in derivative rules\n  umbra check IN [--function DESC]...   check derivatives numerically (umbra check --help)"
)]
pub struct Args {
    /// Input module: LLVM bitcode or textual IR, detected by content; '-' reads standard input
    #[arg(value_name = "INPUT")]
    pub input: PathBuf,

    /// Output file; '-' writes to standard output
    #[arg(short = 'o', value_name = "OUTPUT")]
    pub output: PathBuf,

    /// Output kind [default: from OUTPUT's extension (.o .s .bc .ll); llvm-ir for '-']
    #[arg(long, value_enum, value_name = "KIND")]
    pub emit: Option<EmitKind>,

    /// Optimisation level for re-optimising after differentiation and for code generation
    #[arg(
        short = 'O',
        value_name = "LEVEL",
        default_value_t = 2,
        value_parser = clap::value_parser!(u8).range(0..=3)
    )]
    pub opt_level: u8,

    /// Target triple [default: the module's, else the host's]
    #[arg(long, value_name = "TRIPLE")]
    pub target: Option<String>,

    /// Target CPU; 'native' means the host's [default: the host's when targeting the host]
    #[arg(long, value_name = "NAME")]
    pub cpu: Option<String>,

    /// Target features, e.g. '+avx2,-fma' [default: the host's when targeting the host CPU]
    #[arg(long, value_name = "STR", allow_hyphen_values = true)]
    pub features: Option<String>,

    /// Functions to treat as inactive (no derivative; called in the primal only). Repeatable
    #[arg(long, value_name = "NAME[,NAME...]", value_delimiter = ',')]
    pub inactive: Vec<String>,

    /// File of inactive functions, one name per line (Enzyme's `--enzyme-load-inactive-file`;
    /// `#` starts a comment line). Repeatable
    #[arg(long, value_name = "FILE")]
    pub inactive_file: Vec<PathBuf>,

    /// Rules file (TOML: `inactive`, `inactive_globals`, `[function_like]`). Repeatable
    #[arg(long, value_name = "FILE")]
    pub rules: Vec<PathBuf>,

    /// The Rust sysroot whose rlibs' embedded bitcode supplies bodies of `alloc`/`core`
    /// functions a crate only declares [default: $RUST_SYSROOT, else `rustc --print sysroot`]
    #[arg(long, value_name = "DIR")]
    pub rust_sysroot: Option<PathBuf>,

    /// Print on stderr which values carry derivatives in each differentiated function
    #[arg(long)]
    pub print_activity: bool,

    /// Print on stderr what each access to differentiable memory carries (reverse mode)
    #[arg(long)]
    pub print_types: bool,

    /// After each gradient, call `void umbra_tape_stats(int64_t bytes)` (which the program
    /// defines) with the bytes the gradient's tape holds at its peak (between the sweeps)
    #[arg(long)]
    pub tape_stats: bool,

    /// Print on stderr what each gradient keeps on its tape: per loop, the bytes per
    /// iteration, each value with its source location and why the adjoint cannot get it back
    /// otherwise (compile with -g for locations)
    #[arg(long)]
    pub tape_report: bool,

    /// Check at run time every tangent and adjoint the derived code computes: the first that
    /// is NaN or infinite from finite values (or a null shadow of a non-null pointer) prints
    /// one line naming the instruction and its source location, and aborts (with
    /// UMBRA_DEBUG=warn in the environment: prints every one and goes on)
    #[arg(long)]
    pub debug_checks: bool,

    /// Compute the floating-point operations of every defined function in a narrower format,
    /// as Enzyme's `-mllvm --enzyme-truncate-all=SPEC`: e.g. '64to32', '11-52to8-23',
    /// '64to32;32to16' (native formats only: 64, 32, 16, 11-52, 8-23, 5-10, 8-7) [default: none]
    #[arg(long, value_name = "SPEC", default_value = "")]
    pub truncate_all: String,

    /// Print on stderr the wall time of each phase: reading and verifying, differentiating,
    /// re-optimising, code generation (and writing)
    #[arg(long)]
    pub time_report: bool,

    /// Report on stderr how many requests were lowered and derived functions generated
    #[arg(short = 'v', long)]
    pub verbose: bool,

    /// Memory that reading and verifying INPUT may use, in MiB (corrupt bitcode can make LLVM's
    /// reader allocate without bound); INPUT itself may be at most this large
    #[arg(
        long,
        value_name = "MIB",
        default_value_t = 4096,
        value_parser = clap::value_parser!(u64).range(16..=1 << 30)
    )]
    pub max_memory: u64,

    /// CPU time that reading and verifying INPUT may take, in seconds
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 60,
        value_parser = clap::value_parser!(u64).range(1..=1 << 30)
    )]
    pub max_read_time: u64,
}

/// What `umbra` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EmitKind {
    /// Native object file (.o)
    Obj,
    /// Native assembly (.s)
    Asm,
    /// LLVM bitcode (.bc)
    LlvmBc,
    /// LLVM textual IR (.ll)
    LlvmIr,
}

/// True for the path that means standard input/output.
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

impl Args {
    /// Parses `argv` (program name first). Help and version requests print and exit 0; usage
    /// errors, including the ones [`Args::check`] finds, print one line `umbra: error: ...` and
    /// exit 1, like every other error.
    pub fn parse_or_exit(argv: impl IntoIterator<Item = std::ffi::OsString>) -> Args {
        let version: &'static str = Box::leak(version_string().into_boxed_str());
        let cmd = Args::command().version(version);
        let parsed = cmd
            .try_get_matches_from(argv)
            .and_then(|m| Args::from_arg_matches(&m));
        match parsed {
            Ok(args) => {
                if let Err(e) = args.check() {
                    eprintln!("umbra: error: {e}");
                    std::process::exit(1);
                }
                args
            }
            Err(e) => {
                use clap::error::ErrorKind;
                if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                    e.exit();
                }
                // clap's message is a paragraph (sometimes continued on indented lines), then
                // usage; keep the paragraph, on one line.
                let text = e.render().to_string();
                let paragraph: Vec<&str> = text
                    .lines()
                    .take_while(|l| !l.trim().is_empty())
                    .map(str::trim)
                    .collect();
                let message = paragraph.join(" ");
                let message = message.strip_prefix("error: ").unwrap_or(&message);
                let tip = text
                    .lines()
                    .map(str::trim)
                    .find(|l| l.starts_with("tip: "))
                    .map(|l| format!("; {l}"))
                    .unwrap_or_default();
                eprintln!("umbra: error: {message}{tip} (see 'umbra --help')");
                std::process::exit(1);
            }
        }
    }

    /// What clap cannot check alone: no empty function names, and target features spelled as
    /// LLVM needs them (LLVM reads `avx2` without a sign as "disable avx2", silently).
    pub fn check(&self) -> Result<()> {
        if self.inactive.iter().any(|name| name.is_empty()) {
            bail!("--inactive: empty function name");
        }
        if let Some(features) = self.features.as_deref().filter(|f| !f.is_empty()) {
            for feature in features.split(',') {
                match feature.as_bytes().first() {
                    None => bail!("--features: empty feature name in '{features}'"),
                    Some(b'+' | b'-') if feature.len() > 1 => {}
                    Some(b'+' | b'-') => bail!("--features: empty feature name in '{features}'"),
                    Some(_) => bail!(
                        "--features: '{feature}' must start with '+' (enable) or '-' (disable)"
                    ),
                }
            }
        }
        Ok(())
    }

    /// The kind of output to write: `--emit`, else OUTPUT's extension, else LLVM IR for stdout.
    pub fn emit_kind(&self) -> Result<EmitKind> {
        if let Some(kind) = self.emit {
            return Ok(kind);
        }
        if is_stdio(&self.output) {
            return Ok(EmitKind::LlvmIr);
        }
        let ext = self.output.extension().and_then(|e| e.to_str());
        Ok(match ext {
            Some("o") | Some("obj") => EmitKind::Obj,
            Some("s") | Some("S") | Some("asm") => EmitKind::Asm,
            Some("bc") => EmitKind::LlvmBc,
            Some("ll") => EmitKind::LlvmIr,
            _ => bail!(
                "cannot tell what to emit from the output name '{}' (expected .o, .s, .bc or .ll); \
                 use --emit=obj|asm|llvm-bc|llvm-ir",
                self.output.display()
            ),
        })
    }
}

/// `0.1.0 (LLVM 22.1.0)`: the crate version and the LLVM library actually loaded.
pub fn version_string() -> String {
    let (mut major, mut minor, mut patch) = (0, 0, 0);
    // SAFETY: LLVMGetVersion only writes the three integers.
    unsafe { inkwell::llvm_sys::core::LLVMGetVersion(&mut major, &mut minor, &mut patch) };
    format!(
        "{} (LLVM {major}.{minor}.{patch})",
        env!("CARGO_PKG_VERSION")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(argv: &[&str]) -> Args {
        Args::try_parse_from(argv).expect("arguments parse")
    }

    #[test]
    fn emit_kind_from_flag_extension_and_stdout() {
        assert_eq!(
            args(&["umbra", "x.bc", "-o", "x.o"]).emit_kind().unwrap(),
            EmitKind::Obj
        );
        assert_eq!(
            args(&["umbra", "x.bc", "-o", "x.s"]).emit_kind().unwrap(),
            EmitKind::Asm
        );
        assert_eq!(
            args(&["umbra", "x.bc", "-o", "y.bc"]).emit_kind().unwrap(),
            EmitKind::LlvmBc
        );
        assert_eq!(
            args(&["umbra", "x.bc", "-o", "y.ll"]).emit_kind().unwrap(),
            EmitKind::LlvmIr
        );
        assert_eq!(
            args(&["umbra", "x.bc", "-o", "-"]).emit_kind().unwrap(),
            EmitKind::LlvmIr
        );
        assert_eq!(
            args(&["umbra", "x.bc", "-o", "y.bin", "--emit=obj"])
                .emit_kind()
                .unwrap(),
            EmitKind::Obj
        );
        assert!(args(&["umbra", "x.bc", "-o", "y.bin"]).emit_kind().is_err());
        assert!(args(&["umbra", "x.bc", "-o", "y"]).emit_kind().is_err());
    }

    #[test]
    fn options_parse() {
        let a = args(&[
            "umbra",
            "x.ll",
            "-o",
            "x.o",
            "-O3",
            "--inactive",
            "f,g",
            "--inactive=h",
            "--features",
            "-avx,+fma",
        ]);
        assert_eq!(a.opt_level, 3);
        assert_eq!(a.inactive, vec!["f", "g", "h"]);
        assert_eq!(a.features.as_deref(), Some("-avx,+fma"));
        assert_eq!(args(&["umbra", "x.ll", "-o", "x.o"]).opt_level, 2);
        assert!(Args::try_parse_from(["umbra", "x.ll", "-o", "x.o", "-O4"]).is_err());
        assert!(Args::try_parse_from(["umbra", "x.ll"]).is_err());
        assert_eq!(args(&["umbra", "x.ll", "-o", "x.o"]).max_memory, 4096);
        assert!(Args::try_parse_from(["umbra", "x.ll", "-o", "x.o", "--max-memory=0"]).is_err());
    }

    #[test]
    fn empty_names_and_unsigned_features_are_rejected() {
        let ok = |argv: &[&str]| args(argv).check().is_ok();
        assert!(ok(&["umbra", "x.ll", "-o", "x.o", "--inactive=f,g"]));
        assert!(!ok(&["umbra", "x.ll", "-o", "x.o", "--inactive="]));
        assert!(!ok(&["umbra", "x.ll", "-o", "x.o", "--inactive=f,,g"]));
        assert!(ok(&["umbra", "x.ll", "-o", "x.o", "--features=+avx2,-fma"]));
        assert!(ok(&["umbra", "x.ll", "-o", "x.o", "--features="]));
        assert!(!ok(&["umbra", "x.ll", "-o", "x.o", "--features=avx2"]));
        assert!(!ok(&[
            "umbra",
            "x.ll",
            "-o",
            "x.o",
            "--features=+avx2,,+fma"
        ]));
        assert!(!ok(&["umbra", "x.ll", "-o", "x.o", "--features=+"]));
    }
}
