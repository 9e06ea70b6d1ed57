//! Reading the input module: the bytes from a file or standard input (at most as many as the
//! memory limit allows, and no more than needed to see that they are garbage), detection of
//! bitcode versus textual IR by content, and parsing into an inkwell [`Module`] with one-line
//! errors.

use crate::cli::is_stdio;
use crate::diagnostics::{self, first_line};
use crate::sandbox::{self, Limits, Phase};
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

/// The input's name in messages: its path, or `<stdin>` for '-'.
pub fn display_name(path: &Path) -> String {
    if is_stdio(path) {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// Reads and parses `path` ('-' for standard input) into a module of `context`, telling the
/// supervising parent when LLVM's parser takes over.
pub fn read_module<'ctx>(
    path: &Path,
    context: &'ctx Context,
    limits: &Limits,
) -> Result<Module<'ctx>> {
    let name = display_name(path);
    let bytes = read_bytes(path, &name, limits)?;
    sandbox::announce(Phase::Parse(detect(&bytes)));
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

fn read_bytes(path: &Path, name: &str, limits: &Limits) -> Result<Vec<u8>> {
    let cap = limits.max_input_bytes();
    if is_stdio(path) {
        return read_capped(std::io::stdin().lock(), name, cap, limits.memory_mib);
    }
    let file = std::fs::File::open(path)
        .map_err(|e| anyhow!("cannot read '{name}': {}", io_message(&e)))?;
    let meta = file
        .metadata()
        .map_err(|e| anyhow!("cannot read '{name}': {}", io_message(&e)))?;
    if meta.is_dir() {
        bail!("cannot read '{name}': is a directory");
    }
    // A regular file's size is known up front; devices and pipes (`/dev/zero`) are capped while
    // reading.
    if meta.is_file() && meta.len() > cap {
        bail!(too_large(name, limits.memory_mib));
    }
    read_capped(file, name, cap, limits.memory_mib)
}

fn too_large(name: &str, memory_mib: u64) -> String {
    format!(
        "cannot read '{name}': it is larger than the memory limit of {memory_mib} MiB \
         (--max-memory raises the limit)"
    )
}

/// Reads all of `reader`, failing once more than `cap` bytes arrive, or as soon as the bytes
/// cannot be bitcode or textual IR (a NUL byte in what is not bitcode), so that endless garbage
/// such as `/dev/zero` is rejected after the first chunk.
fn read_capped(mut reader: impl Read, name: &str, cap: u64, memory_mib: u64) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => bail!("cannot read '{name}': {}", io_message(&e)),
        };
        if (bytes.len() + n) as u64 > cap {
            bail!(too_large(name, memory_mib));
        }
        if bytes.try_reserve(n).is_err() {
            bail!(
                "cannot read '{name}': exceeded the memory limit of {memory_mib} MiB while \
                 reading (--max-memory raises the limit)"
            );
        }
        bytes.extend_from_slice(&chunk[..n]);
        // The format is known once 4 bytes are in; text never holds a NUL.
        if bytes.len() >= BITCODE_MAGIC.len()
            && detect(&bytes) == Format::Text
            && chunk[..n].contains(&0)
        {
            bail!("'{name}' is neither LLVM bitcode nor textual IR");
        }
    }
    Ok(bytes)
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
    fn reading_stops_at_the_cap_and_at_garbage() {
        let text = b"define void @f() {\n  ret void\n}\n";
        assert_eq!(read_capped(&text[..], "t", 1 << 20, 1).unwrap(), text);
        let err = read_capped(&text[..], "t", 8, 1).unwrap_err().to_string();
        assert!(
            err.contains("larger than the memory limit of 1 MiB"),
            "{err}"
        );
        // An endless stream of zeros is rejected after one chunk, not read to the cap.
        let err = read_capped(std::io::repeat(0), "z", u64::MAX, 1)
            .unwrap_err()
            .to_string();
        assert!(err.contains("neither LLVM bitcode nor textual IR"), "{err}");
        let err = read_capped(std::io::repeat(b'a'), "a", 1 << 20, 1)
            .unwrap_err()
            .to_string();
        assert!(err.contains("larger than the memory limit"), "{err}");
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
