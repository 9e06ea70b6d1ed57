//! Runs the lit suite (`test/`) as part of `cargo test --release`.
//!
//! The suite exercises both the `umbra` driver (this crate's binary, passed as `UMBRA_BIN`) and
//! the opt/clang pass plugin. The plugin is rebuilt with `make plugin` when it is missing or
//! older than the Rust static library it wraps. The test fails, printing lit's output, when any
//! lit test fails.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

const LIT: &str = "/usr/lib/llvm-22/bin/lit";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("driver/ has a parent")
        .to_path_buf()
}

fn modified(path: &Path) -> Option<SystemTime> {
    path.metadata().and_then(|m| m.modified()).ok()
}

/// Builds the plugin unless it exists and is newer than `libumbra_passes.a`.
fn ensure_plugin(root: &Path) {
    let plugin = root.join("build/plugin/libUmbraPlugin.so");
    let passes_lib = root.join("target/release/libumbra_passes.a");
    let up_to_date = match (modified(&plugin), modified(&passes_lib)) {
        (Some(p), Some(l)) => p >= l,
        _ => false,
    };
    if up_to_date {
        return;
    }
    let status = Command::new("make")
        .arg("-C")
        .arg(root)
        .arg("plugin")
        .status()
        .expect("failed to run make");
    assert!(
        status.success(),
        "`make -C {} plugin` failed",
        root.display()
    );
}

#[test]
fn lit_suite() {
    let root = repo_root();
    ensure_plugin(&root);

    let output = Command::new(LIT)
        .arg("-sv")
        .arg(root.join("test"))
        .env("UMBRA_BIN", env!("CARGO_BIN_EXE_umbra"))
        .output()
        .unwrap_or_else(|e| panic!("failed to run {LIT}: {e}"));

    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "lit failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    println!("{stdout}");
}
