// Rust Vecs grown by push inside the differentiated function: starting empty, each grows
// through liballoc's `finish_grow`, whose `__rust_realloc` moves bytes it never types. Reverse
// mode hands the moved shadow bytes to the new block's shadow and back in the adjoint, so a
// Vec<f64> (adjoints) and a Vec<&f64> (shadows of pointers) both come through. Checked against
// finite differences by Inputs/main.rs (seven elements: the Vecs reallocate from 4 to 8).
// Before, `__rust_realloc` was refused in reverse mode.
//
// REQUIRES: rustc
// RUN: rm -rf %t && mkdir -p %t/o2 %t/o3 %t/plugin
// RUN: %rustc --crate-type=lib -C opt-level=2 -C panic=abort -C codegen-units=1 --emit=llvm-bc -o %t/o2/vecpush.bc %s
// RUN: %umbra %t/o2/vecpush.bc -o %t/o2/vecpush.o
// RUN: llvm-ar rcs %t/o2/libvecpush.a %t/o2/vecpush.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/o2 -l static=vecpush -o %t/o2/main
// RUN: %t/o2/main
// RUN: %rustc --crate-type=lib -C opt-level=3 -C panic=abort -C codegen-units=1 --emit=llvm-bc -o %t/o3/vecpush.bc %s
// RUN: %umbra %t/o3/vecpush.bc -O3 -o %t/o3/vecpush.o
// RUN: llvm-ar rcs %t/o3/libvecpush.a %t/o3/vecpush.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/o3 -l static=vecpush -o %t/o3/main
// RUN: %t/o3/main
// RUN: opt -load-pass-plugin=%plugin -passes='umbra<reopt=O2>' %t/o2/vecpush.bc -o %t/plugin/vecpush.bc
// RUN: %clang -c -fPIC %t/plugin/vecpush.bc -o %t/plugin/vecpush.o
// RUN: llvm-ar rcs %t/plugin/libvecpush.a %t/plugin/vecpush.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/plugin -l static=vecpush -o %t/plugin/main
// RUN: %t/plugin/main
// The default panic strategy (unwind): calls that may panic are `invoke`s whose landing
// pads drop the Vecs; `Vec::with_capacity`'s data pointer is an integer phi of the
// allocation and the empty Vec's dangling 8 (an `inttoptr` of a merge).
// RUN: mkdir -p %t/u2 %t/u3 %t/uplugin2 %t/uplugin3
// RUN: %rustc --crate-type=lib -C opt-level=2 -C codegen-units=1 --emit=llvm-bc -o %t/u2/vecpush.bc %s
// RUN: %umbra %t/u2/vecpush.bc -O2 -o %t/u2/vecpush.o
// RUN: llvm-ar rcs %t/u2/libvecpush.a %t/u2/vecpush.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/u2 -l static=vecpush -o %t/u2/main
// RUN: %t/u2/main
// RUN: %rustc --crate-type=lib -C opt-level=3 -C codegen-units=1 --emit=llvm-bc -o %t/u3/vecpush.bc %s
// RUN: %umbra %t/u3/vecpush.bc -O3 -o %t/u3/vecpush.o
// RUN: llvm-ar rcs %t/u3/libvecpush.a %t/u3/vecpush.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/u3 -l static=vecpush -o %t/u3/main
// RUN: %t/u3/main
// RUN: opt -load-pass-plugin=%plugin -passes='umbra<reopt=O2>' %t/u2/vecpush.bc -o %t/uplugin2/vecpush.bc
// RUN: %clang -c -fPIC %t/uplugin2/vecpush.bc -o %t/uplugin2/vecpush.o
// RUN: llvm-ar rcs %t/uplugin2/libvecpush.a %t/uplugin2/vecpush.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/uplugin2 -l static=vecpush -o %t/uplugin2/main
// RUN: %t/uplugin2/main
// RUN: opt -load-pass-plugin=%plugin -passes='umbra<reopt=O3>' %t/u3/vecpush.bc -o %t/uplugin3/vecpush.bc
// RUN: %clang -c -fPIC %t/uplugin3/vecpush.bc -o %t/uplugin3/vecpush.o
// RUN: llvm-ar rcs %t/uplugin3/libvecpush.a %t/uplugin3/vecpush.o
// RUN: %rustc -C opt-level=0 %S/Inputs/main.rs -L %t/uplugin3 -l static=vecpush -o %t/uplugin3/main
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
    let mut v: Vec<f64> = Vec::new();
    let mut r: Vec<&f64> = Vec::new();
    for i in 0..n {
        v.push(x[i] * x[(i + 1) % n] + c);
        r.push(&x[(i * 3) % n]);
    }
    let mut s = 0.0;
    for i in 0..n {
        s += v[i] * *r[i] + v[(i + 2) % n] * c;
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
