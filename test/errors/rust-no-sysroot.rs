// REQUIRES: rustc
// At -C opt-level=0 a crate pushing to a Vec only declares liballoc's `grow_amortized`;
// Umbra loads its body from the Rust toolchain's rlibs. Without a toolchain to load it from,
// one line names the function, the call site and where Umbra looked, and no output is left.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %rustc --crate-type=lib -C opt-level=0 -C panic=abort -C codegen-units=1 --emit=llvm-bc -o %t/vecpush.bc %S/../integration/rust/vec-push.rs
// RUN: env RUST_SYSROOT=/nonexistent not %umbra %t/vecpush.bc -o %t/vecpush.o 2>&1 | FileCheck %s --check-prefix=ENV
// RUN: test ! -e %t/vecpush.o
// ENV: umbra: error: {{.*}}'{{[A-Za-z0-9_]*}}RawVecInner{{[A-Za-z0-9_]*}}' (Rust's alloc crate) has no body in this module; Umbra loads it from the Rust toolchain's bitcode, but the sysroot /nonexistent (from RUST_SYSROOT=/nonexistent) has no rlibs for 'x86_64-unknown-linux-gnu' under lib/rustlib
// RUN: not %umbra %t/vecpush.bc --rust-sysroot=%t -o %t/vecpush.o 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: error: {{.*}}but the sysroot {{.*}} (from --rust-sysroot={{.*}}) has no rlibs
// A rustc that cannot run.
// RUN: env RUSTC=/nonexistent/rustc not %umbra %t/vecpush.bc -o %t/vecpush.o 2>&1 | FileCheck %s --check-prefix=RUSTC
// RUSTC: error: {{.*}}but found no sysroot: `/nonexistent/rustc --print sysroot` could not run {{.*}}(give one with --rust-sysroot or RUST_SYSROOT)
// The plugin says the same through opt.
// RUN: env RUST_SYSROOT=/nonexistent not opt -load-pass-plugin=%plugin -passes='umbra' %t/vecpush.bc -o %t/p.bc 2>&1 | FileCheck %s --check-prefix=ENV
