//! Writing the result: rendering the module as object code, assembly, bitcode or textual IR, and
//! putting the bytes at OUTPUT atomically — a temporary file beside OUTPUT, created and renamed
//! over it only once everything else succeeded, so a failed run never creates or clobbers OUTPUT.

use crate::cli::{is_stdio, EmitKind};
use crate::input::io_message;
use anyhow::{anyhow, bail, Result};
use inkwell::module::Module;
use inkwell::targets::{FileType, TargetMachine};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// Renders `module` as `kind`. Object code and assembly come from `machine`.
pub fn render(module: &Module, machine: &TargetMachine, kind: EmitKind) -> Result<Vec<u8>> {
    let bytes = match kind {
        EmitKind::Obj | EmitKind::Asm => {
            let file_type = if kind == EmitKind::Obj {
                FileType::Object
            } else {
                FileType::Assembly
            };
            let buffer = machine
                .write_to_memory_buffer(module, file_type)
                .map_err(|e| {
                    anyhow!(
                        "code generation failed: {}",
                        crate::diagnostics::first_line(&e.to_string_lossy())
                    )
                })?;
            buffer.as_slice().to_vec()
        }
        EmitKind::LlvmBc => module.write_bitcode_to_memory().as_slice().to_vec(),
        EmitKind::LlvmIr => module.print_to_string().to_bytes().to_vec(),
    };
    crate::diagnostics::check("code generation failed")?;
    Ok(bytes)
}

/// Where the output goes. Checked before any work, so an unwritable OUTPUT fails fast.
pub enum Output {
    /// `-o -`.
    Stdout,
    /// An existing non-regular file such as `/dev/null` or a FIFO: written in place, since
    /// renaming over it would replace the device or pipe.
    Special(PathBuf),
    /// A regular file, written through a temporary beside it by [`Output::commit`].
    File(PathBuf),
}

impl Output {
    /// Prepares to write `path` ('-' for standard output), failing if it cannot be written.
    pub fn create(path: &Path) -> Result<Output> {
        if is_stdio(path) {
            return Ok(Output::Stdout);
        }
        if let Ok(meta) = std::fs::metadata(path) {
            if meta.is_dir() {
                bail!("cannot write '{}': is a directory", path.display());
            }
            if !meta.is_file() {
                return Ok(Output::Special(path.to_path_buf()));
            }
        }
        // Probe now, so a bad directory fails before the real work; the probe is deleted at
        // once. The real temporary is only created once the bytes exist, so that a crash
        // (which runs no destructors) leaves nothing behind.
        drop(temp_beside(path)?);
        Ok(Output::File(path.to_path_buf()))
    }

    /// Writes `bytes` and, for a file, moves them into place.
    pub fn commit(self, bytes: &[u8]) -> Result<()> {
        match self {
            Output::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(bytes)
                    .and_then(|()| out.flush())
                    .map_err(|e| anyhow!("cannot write to standard output: {}", io_message(&e)))
            }
            Output::Special(path) => File::options()
                .write(true)
                .open(&path)
                .and_then(|mut f| f.write_all(bytes))
                .map_err(|e| anyhow!("cannot write '{}': {}", path.display(), io_message(&e))),
            Output::File(path) => {
                let name = path.display().to_string();
                let mut temp = temp_beside(&path)?;
                temp.write_all(bytes)
                    .and_then(|()| temp.flush())
                    .map_err(|e| anyhow!("cannot write '{name}': {}", io_message(&e)))?;
                temp.persist(&path)
                    .map_err(|e| anyhow!("cannot write '{name}': {}", io_message(&e.error)))?;
                Ok(())
            }
        }
    }
}

/// A temporary file in `path`'s directory (deleted on drop unless persisted), created with the
/// usual `0666 & !umask` permissions rather than tempfile's private 0600.
fn temp_beside(path: &Path) -> Result<NamedTempFile> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    tempfile::Builder::new()
        .prefix(".umbra-")
        .suffix(".tmp")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(|e| unwritable(path, dir, &e))
}

/// Why no file can be created beside `path` in `dir`, in words that fit the case: a missing
/// directory, or a directory that refuses new files (read-only, no permission, or a file system
/// such as /proc that has no room for files: it answers "No such file or directory").
fn unwritable(path: &Path, dir: &Path, e: &std::io::Error) -> anyhow::Error {
    let name = path.display();
    let dir_name = dir.display();
    if !dir.is_dir() {
        if dir.exists() {
            return anyhow!("cannot write '{name}': '{dir_name}' is not a directory");
        }
        return anyhow!("cannot write '{name}': directory '{dir_name}' does not exist");
    }
    if e.kind() == std::io::ErrorKind::NotFound {
        return anyhow!("cannot write '{name}': cannot create files in '{dir_name}'");
    }
    anyhow!(
        "cannot write '{name}': cannot create files in '{dir_name}': {}",
        io_message(e)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwritable_outputs_are_explained() {
        let err = |p: &str| match Output::create(Path::new(p)) {
            Ok(_) => String::from("ok"),
            Err(e) => e.to_string(),
        };
        assert_eq!(
            err("/nonexistent-umbra-dir/x.o"),
            "cannot write '/nonexistent-umbra-dir/x.o': directory '/nonexistent-umbra-dir' does not exist"
        );
        // As root, /proc answers "No such file or directory"; otherwise "Permission denied".
        assert!(err("/proc/version")
            .starts_with("cannot write '/proc/version': cannot create files in '/proc'"));
        assert_eq!(
            err("/etc/hostname/x.o"),
            "cannot write '/etc/hostname/x.o': '/etc/hostname' is not a directory"
        );
    }
}
