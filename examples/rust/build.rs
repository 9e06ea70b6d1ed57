//! Turns `src/model.rs`, a module of this crate, into differentiated native code.
//!
//! 1. `rustc` compiles the module alone, as a library crate, to LLVM bitcode (`--emit=llvm-bc`);
//!    its `extern "C"` block declares the derivative requests (`__enzyme_autodiff`, ...).
//! 2. `umbra` differentiates every request and writes an object file.
//! 3. The object goes into a static library that cargo links into the program.
//!
//! `src/main.rs` does not `mod model;` (that would define the module's `#[no_mangle]` symbols
//! twice): it declares what it calls from the library in an `extern "C"` block.
//!
//! Environment: `UMBRA` (the driver; default `umbra` on PATH), `UMBRA_FLAGS` (extra driver flags,
//! split at spaces), `AR` (default `ar`). Cargo sets `RUSTC`, which umbra also uses to find the
//! sysroot whose rlibs supply liballoc's bodies when rustc leaves them out of line.
use std::env;
use std::path::PathBuf;
use std::process::Command;

fn run(cmd: &mut Command) {
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("could not start {cmd:?}: {e}"));
    assert!(status.success(), "{cmd:?} failed ({status})");
}

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let umbra = env::var_os("UMBRA").unwrap_or_else(|| "umbra".into());
    let ar = env::var_os("AR").unwrap_or_else(|| "ar".into());
    let module = "src/model.rs";
    let bitcode = out.join("model.bc");
    let object = out.join("model.o");
    println!("cargo:rerun-if-changed={module}");
    println!("cargo:rerun-if-changed=build.rs");
    for var in ["UMBRA", "UMBRA_FLAGS", "AR"] {
        println!("cargo:rerun-if-env-changed={var}");
    }

    // 1. The module alone, optimised (its derivatives are compiled from what rustc emits, so a
    //    debug build of the program still gets fast gradients), one codegen unit: one module.
    run(Command::new(&rustc)
        .args([
            "--edition=2021",
            "--crate-type=lib",
            "--crate-name=umbra_model",
        ])
        .args([
            "-C",
            "opt-level=2",
            "-C",
            "codegen-units=1",
            "--emit=llvm-bc",
        ])
        .arg("-o")
        .arg(&bitcode)
        .arg(module));

    // 2. Differentiate: bitcode in, object out.
    let mut umbra_cmd = Command::new(&umbra);
    umbra_cmd.arg(&bitcode).arg("-o").arg(&object);
    if let Ok(flags) = env::var("UMBRA_FLAGS") {
        umbra_cmd.args(flags.split_whitespace());
    }
    run(&mut umbra_cmd);

    // 3. A static library for cargo to link.
    let lib = out.join("libumbra_model.a");
    let _ = std::fs::remove_file(&lib);
    run(Command::new(&ar).arg("rcs").arg(&lib).arg(&object));
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=umbra_model");
}
