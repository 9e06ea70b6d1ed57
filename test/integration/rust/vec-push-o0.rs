// Rust Vecs grown by push, at cargo's debug levels: -C opt-level=0 and 1. There rustc calls
// liballoc's non-generic `RawVecInner` methods (`grow_amortized`, `deallocate`) instead of
// inlining them, and this crate's bitcode only declares them. Umbra loads their bodies from
// the toolchain's rlibs (the `.llvmbc` sections), specialised to the constant element size and
// alignment, as internal copies. Checked against finite differences by Inputs/main.rs, with
// panic=abort and the default unwind, through the driver and
// the plugin. Before: "no derivative rule for '..._5alloc7raw_vecNtB5_11RawVecInner14grow_amortized...'".
//
// REQUIRES: rustc
// RUN: rm -rf %t && mkdir -p %t/a0 %t/a1 %t/u0 %t/u1 %t/pa0 %t/pu1
// RUN: %rustc --crate-type=lib -C opt-level=0 -C panic=abort -C codegen-units=1 --emit=llvm-bc -o %t/a0/vecpush.bc %S/vec-push.rs
// RUN: %umbra %t/a0/vecpush.bc -o %t/a0/vecpush.o
// RUN: llvm-ar rcs %t/a0/libvecpush.a %t/a0/vecpush.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/a0 -l static=vecpush -o %t/a0/main
// RUN: %t/a0/main
// `umbra -O0` (no re-optimisation) leaves the requests' marker loads in place: the marker
// globals, declared only, get weak definitions so the program links (before: undefined
// symbol `enzyme_dup`).
// RUN: mkdir -p %t/z0
// RUN: %umbra -O0 %t/a0/vecpush.bc -o %t/z0/vecpush.o
// RUN: llvm-ar rcs %t/z0/libvecpush.a %t/z0/vecpush.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/z0 -l static=vecpush -o %t/z0/main
// RUN: %t/z0/main
// RUN: %rustc --crate-type=lib -C opt-level=1 -C panic=abort -C codegen-units=1 --emit=llvm-bc -o %t/a1/vecpush.bc %S/vec-push.rs
// RUN: %umbra %t/a1/vecpush.bc -o %t/a1/vecpush.o
// RUN: llvm-ar rcs %t/a1/libvecpush.a %t/a1/vecpush.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/a1 -l static=vecpush -o %t/a1/main
// RUN: %t/a1/main
// RUN: %rustc --crate-type=lib -C opt-level=0 -C codegen-units=1 --emit=llvm-bc -o %t/u0/vecpush.bc %S/vec-push.rs
// RUN: %umbra %t/u0/vecpush.bc -o %t/u0/vecpush.o
// RUN: llvm-ar rcs %t/u0/libvecpush.a %t/u0/vecpush.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/u0 -l static=vecpush -o %t/u0/main
// RUN: %t/u0/main
// RUN: %rustc --crate-type=lib -C opt-level=1 -C codegen-units=1 --emit=llvm-bc -o %t/u1/vecpush.bc %S/vec-push.rs
// RUN: %umbra %t/u1/vecpush.bc -O1 -o %t/u1/vecpush.o
// RUN: llvm-ar rcs %t/u1/libvecpush.a %t/u1/vecpush.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/u1 -l static=vecpush -o %t/u1/main
// RUN: %t/u1/main
// The plugin, with the sysroot given as a pass parameter and through RUST_SYSROOT.
// RUN: opt -load-pass-plugin=%plugin -passes='umbra<reopt=O2;rust-sysroot=%rust_sysroot>' %t/a0/vecpush.bc -o %t/pa0/vecpush.bc
// RUN: %clang -c -fPIC %t/pa0/vecpush.bc -o %t/pa0/vecpush.o
// RUN: llvm-ar rcs %t/pa0/libvecpush.a %t/pa0/vecpush.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/pa0 -l static=vecpush -o %t/pa0/main
// RUN: %t/pa0/main
// RUN: env RUST_SYSROOT=%rust_sysroot opt -load-pass-plugin=%plugin -passes='umbra<reopt=O1>' %t/u1/vecpush.bc -o %t/pu1/vecpush.bc
// RUN: %clang -c -fPIC %t/pu1/vecpush.bc -o %t/pu1/vecpush.o
// RUN: llvm-ar rcs %t/pu1/libvecpush.a %t/pu1/vecpush.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/pu1 -l static=vecpush -o %t/pu1/main
// RUN: %t/pu1/main
// The copies are internal (the final link against std sees each symbol once) and no
// declaration of the loaded methods is left called.
// RUN: %umbra %t/a0/vecpush.bc -O0 -o %t/a0/vecpush.ll
// RUN: FileCheck %s < %t/a0/vecpush.ll
// RUN: not grep -E 'call .*RawVecInner(14grow_amortized|10deallocate)[A-Za-z0-9_]*\(' %t/a0/vecpush.ll
// CHECK-DAG: define internal {{.*}}RawVecInner14grow_amortized{{[A-Za-z0-9_]*}}.umbra.x.x.1.8.8(
// CHECK-DAG: define internal {{.*}}RawVecInner10deallocate{{[A-Za-z0-9_]*}}.umbra.x.8.8(
