// REQUIRES: rustc
// Rust bitcode: f uses Vec<f64> (`to_vec` calls __rust_alloc, `vec![0.0; n]`
// __rust_alloc_zeroed, the drops __rust_dealloc, under rustc's v0-mangled allocator-shim
// names), and a gradient requested through `__enzyme_autodiff` declared in an `extern "C"`
// block. Compiled with rustc to bitcode, differentiated by the driver (and by the plugin through
// opt), archived and linked into a Rust program (Inputs/main.rs) that checks the gradient
// against central finite differences.
//
// Built with -C panic=abort and with the default panic=unwind (below), where every call that
// may panic (bounds checks, allocation failure) is an `invoke` with a landing pad dropping the
// Vecs, and `Vec::with_capacity`'s data pointer is `inttoptr` of an integer phi of the
// allocation and the empty Vec's dangling 8 (refused before: its base is computed on one path
// only). opt-level 2 and 3 only: at 0 and 1 Umbra loads liballoc's `RawVecInner` methods from the
// toolchain (see vec-push-o0.rs), but the Vec's capacity is then copied out of
// `try_allocate_in`'s `Result` slot as an integer, which reverse mode refuses (README, Not yet).
//
// RUN: rm -rf %t && mkdir -p %t/o2 %t/o3 %t/plugin
// RUN: %rustc --crate-type=lib -C opt-level=2 -C panic=abort -C codegen-units=1 --emit=llvm-bc -o %t/o2/vecgrad.bc %s
// RUN: %umbra %t/o2/vecgrad.bc -o %t/o2/vecgrad.o
// RUN: llvm-ar rcs %t/o2/libvecgrad.a %t/o2/vecgrad.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/o2 -l static=vecgrad -o %t/o2/main
// RUN: %t/o2/main
// RUN: %rustc --crate-type=lib -C opt-level=3 -C panic=abort -C codegen-units=1 --emit=llvm-bc -o %t/o3/vecgrad.bc %s
// RUN: %umbra %t/o3/vecgrad.bc -O3 -o %t/o3/vecgrad.o
// RUN: llvm-ar rcs %t/o3/libvecgrad.a %t/o3/vecgrad.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/o3 -l static=vecgrad -o %t/o3/main
// RUN: %t/o3/main
// RUN: opt -load-pass-plugin=%plugin -passes='umbra<reopt=O2>' %t/o2/vecgrad.bc -o %t/plugin/vecgrad.bc
// RUN: %clang -c -fPIC %t/plugin/vecgrad.bc -o %t/plugin/vecgrad.o
// RUN: llvm-ar rcs %t/plugin/libvecgrad.a %t/plugin/vecgrad.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/plugin -l static=vecgrad -o %t/plugin/main
// RUN: %t/plugin/main
// The default panic strategy (unwind): calls that may panic are `invoke`s whose landing
// pads drop the Vecs; `Vec::with_capacity`'s data pointer is an integer phi of the
// allocation and the empty Vec's dangling 8 (an `inttoptr` of a merge).
// RUN: mkdir -p %t/u2 %t/u3 %t/uplugin2 %t/uplugin3
// RUN: %rustc --crate-type=lib -C opt-level=2 -C codegen-units=1 --emit=llvm-bc -o %t/u2/vecgrad.bc %s
// RUN: %umbra %t/u2/vecgrad.bc -O2 -o %t/u2/vecgrad.o
// RUN: llvm-ar rcs %t/u2/libvecgrad.a %t/u2/vecgrad.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/u2 -l static=vecgrad -o %t/u2/main
// RUN: %t/u2/main
// RUN: %rustc --crate-type=lib -C opt-level=3 -C codegen-units=1 --emit=llvm-bc -o %t/u3/vecgrad.bc %s
// RUN: %umbra %t/u3/vecgrad.bc -O3 -o %t/u3/vecgrad.o
// RUN: llvm-ar rcs %t/u3/libvecgrad.a %t/u3/vecgrad.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/u3 -l static=vecgrad -o %t/u3/main
// RUN: %t/u3/main
// RUN: opt -load-pass-plugin=%plugin -passes='umbra<reopt=O2>' %t/u2/vecgrad.bc -o %t/uplugin2/vecgrad.bc
// RUN: %clang -c -fPIC %t/uplugin2/vecgrad.bc -o %t/uplugin2/vecgrad.o
// RUN: llvm-ar rcs %t/uplugin2/libvecgrad.a %t/uplugin2/vecgrad.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/uplugin2 -l static=vecgrad -o %t/uplugin2/main
// RUN: %t/uplugin2/main
// RUN: opt -load-pass-plugin=%plugin -passes='umbra<reopt=O3>' %t/u3/vecgrad.bc -o %t/uplugin3/vecgrad.bc
// RUN: %clang -c -fPIC %t/uplugin3/vecgrad.bc -o %t/uplugin3/vecgrad.o
// RUN: llvm-ar rcs %t/uplugin3/libvecgrad.a %t/uplugin3/vecgrad.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/uplugin3 -l static=vecgrad -o %t/uplugin3/main
// RUN: %t/uplugin3/main

use std::ffi::c_void;

extern "C" {
    static enzyme_dup: i32;
    static enzyme_const: i32;
    static enzyme_out: i32;
    fn __enzyme_autodiff(f: *const c_void, ...) -> f64;
    fn __enzyme_fwddiff(f: *const c_void, ...) -> f64;
}

#[inline(never)]
#[no_mangle]
pub extern "C" fn f(x: *const f64, n: usize, c: f64) -> f64 {
    let x = unsafe { std::slice::from_raw_parts(x, n) };
    let mut a = x.to_vec();
    let mut b = vec![0.0f64; n];
    for i in 0..n {
        a[i] = a[i] * c;
        b[i] = x[i].sin() + c;
    }
    for i in 0..n - 1 {
        a[i] += a[i + 1] * b[i];
    }
    let mut s = 0.0;
    for i in 0..n {
        s += a[i] * b[(i + 1) % n];
    }
    s
}

#[no_mangle]
pub extern "C" fn gradient(x: *const f64, dx: *mut f64, n: usize, c: f64) -> f64 {
    unsafe {
        __enzyme_autodiff(
            f as *const c_void,
            enzyme_dup, x, dx,
            enzyme_const, n,
            enzyme_out, c,
        )
    }
}

/// Forward mode: the derivative of `f` along `v` (a tangent of `x`; `c` constant).
#[no_mangle]
pub extern "C" fn tangent(x: *const f64, v: *const f64, n: usize, c: f64) -> f64 {
    unsafe {
        __enzyme_fwddiff(
            f as *const c_void,
            enzyme_dup, x, v,
            enzyme_const, n,
            enzyme_const, c,
        )
    }
}
