//! Reading the input module: the bytes from a file or standard input, detection of bitcode
//! versus textual IR by content, and parsing into an inkwell [`Module`] with one-line errors.

use crate::cli::is_stdio;
use crate::diagnostics::{self, first_line};
use anyhow::{anyhow, bail, Result};
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use std::io::Read;
use std::path::Path;

/// Raw bitcode starts with 'BC' 0xC0DE.
const BITCODE_MAGIC: [u8; 4] = [b'B', b'C', 0xC0, 0xDE];
/// The bitcode wrapper header (used by Darwin toolchains) starts with 0x0B17C0DE, little-endian.
const WRAPPER_MAGIC: [u8; 4] = [0xDE, 0xC0, 0x17, 0x0B];

/// The two input formats LLVM reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Binary bitcode (raw or wrapped).
    Bitcode,
    /// Textual IR (`.ll`).
    Text,
}

/// Detects the format from the first bytes. Anything that is not bitcode is taken as text.
pub fn detect(bytes: &[u8]) -> Format {
    if bytes.starts_with(&BITCODE_MAGIC) || bytes.starts_with(&WRAPPER_MAGIC) {
        Format::Bitcode
    } else {
        Format::Text
    }
}

/// Reads and parses `path` ('-' for standard input) into a module of `context`.
pub fn read_module<'ctx>(path: &Path, context: &'ctx Context) -> Result<Module<'ctx>> {
    let (bytes, name) = read_bytes(path)?;
    parse(&bytes, &name, context)
}

/// Parses `bytes` (named `name` in messages) into a module of `context`.
pub fn parse<'ctx>(bytes: &[u8], name: &str, context: &'ctx Context) -> Result<Module<'ctx>> {
    if bytes.is_empty() {
        bail!("'{name}' is empty: expected LLVM bitcode or textual IR");
    }
    let buffer = MemoryBuffer::create_from_memory_range_copy(bytes, name);
    let module = match detect(bytes) {
        Format::Bitcode => Module::parse_bitcode_from_buffer(&buffer, context).map_err(|e| {
            anyhow!(
                "cannot read bitcode '{name}': {} (is the file truncated or corrupt?)",
                first_line(&e.to_string_lossy())
            )
        })?,
        Format::Text => {
            if !looks_like_text(bytes) {
                bail!("'{name}' is neither LLVM bitcode nor textual IR");
            }
            // LLVM's message reads `name:line:col: error: ...` followed by a source excerpt;
            // keep `name:line:col: ...` (we print our own `error:`).
            context.create_module_from_ir(buffer).map_err(|e| {
                let text = e.to_string_lossy();
                anyhow!("{}", first_line(&text).replacen(": error: ", ": ", 1))
            })?
        }
    };
    diagnostics::check(&format!("cannot read '{name}'"))?;
    Ok(module)
}

/// Textual IR is UTF-8 without NUL bytes; anything else is garbage, not a parse error.
fn looks_like_text(bytes: &[u8]) -> bool {
    !bytes.contains(&0) && std::str::from_utf8(bytes).is_ok()
}

fn read_bytes(path: &Path) -> Result<(Vec<u8>, String)> {
    if is_stdio(path) {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| anyhow!("cannot read standard input: {}", io_message(&e)))?;
        return Ok((bytes, "<stdin>".to_string()));
    }
    let name = path.display().to_string();
    if path.is_dir() {
        bail!("cannot read '{name}': is a directory");
    }
    let bytes =
        std::fs::read(path).map_err(|e| anyhow!("cannot read '{name}': {}", io_message(&e)))?;
    Ok((bytes, name))
}

/// An I/O error's text without Rust's `(os error N)` suffix.
pub fn io_message(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_bitcode_by_magic() {
        assert_eq!(detect(b"BC\xC0\xDE\x35\x14"), Format::Bitcode);
        assert_eq!(detect(b"\xDE\xC0\x17\x0B\0\0\0\0"), Format::Bitcode);
        assert_eq!(detect(b"; ModuleID = 'x'\n"), Format::Text);
        assert_eq!(detect(b"BC"), Format::Text);
    }

    #[test]
    fn parses_text_and_reports_errors_on_one_line() {
        let ctx = Context::create();
        let m = parse(b"define i32 @f() {\n  ret i32 1\n}\n", "ok.ll", &ctx).unwrap();
        assert!(m.get_function("f").is_some());
        let err = parse(b"define i32 @f( {\n", "bad.ll", &ctx)
            .err()
            .unwrap()
            .to_string();
        assert!(err.starts_with("bad.ll:"), "{err}");
        assert!(!err.contains("error:"), "{err}");
        assert!(!err.contains('\n'), "{err}");
    }

    #[test]
    fn rejects_garbage_and_truncated_bitcode() {
        let ctx = Context::create();
        assert!(parse(b"\x7fELF\x02\x01\x01\0\0\0", "x.bc", &ctx).is_err());
        assert!(parse(b"", "x.bc", &ctx).is_err());
        let err = parse(b"BC\xC0\xDE\x35\x14\0\0", "t.bc", &ctx)
            .err()
            .unwrap()
            .to_string();
        assert!(err.starts_with("cannot read bitcode 't.bc': "), "{err}");
    }
}
