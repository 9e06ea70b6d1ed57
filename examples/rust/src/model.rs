//! The module `build.rs` differentiates: plain Rust, compiled on its own as a library crate.
//!
//! A damped oscillation `y(t) = a exp(-b t) cos(c t + d)` fitted to data by least squares:
//! `loss` is the mean squared residual, a function of the four parameters `p = [a, b, c, d]`.
//! The exported functions are `extern "C"` with raw pointers, the interface `src/main.rs` calls
//! through; inside them the code is ordinary Rust (slices, iterators, a `Vec`).
use std::ffi::c_void;

extern "C" {
    // Derivative requests and activity markers, as in Enzyme: declared, never defined.
    // Umbra replaces each call with a call to the derivative it generates.
    static enzyme_dup: i32;
    static enzyme_const: i32;
    fn __enzyme_autodiff(f: *const c_void, ...) -> f64;
    fn __enzyme_fwddiff(f: *const c_void, ...) -> f64;
}

fn model(p: &[f64], t: f64) -> f64 {
    p[0] * (-p[1] * t).exp() * (p[2] * t + p[3]).cos()
}

/// The mean squared residual of the model with parameters `p[0..4]` over `m` samples `(t, y)`.
#[no_mangle]
pub extern "C" fn loss(p: *const f64, t: *const f64, y: *const f64, m: usize) -> f64 {
    let p = unsafe { std::slice::from_raw_parts(p, 4) };
    let (t, y) = unsafe {
        (
            std::slice::from_raw_parts(t, m),
            std::slice::from_raw_parts(y, m),
        )
    };
    let residuals: Vec<f64> = t.iter().zip(y).map(|(&t, &y)| model(p, t) - y).collect();
    residuals.iter().map(|r| r * r).sum::<f64>() / m as f64
}

/// `dp += d loss / d p` (reverse mode; the data are constants).
#[no_mangle]
#[rustfmt::skip] // one marker and its arguments per line
pub extern "C" fn loss_gradient(p: *const f64, dp: *mut f64, t: *const f64, y: *const f64, m: usize) {
    unsafe {
        __enzyme_autodiff(
            loss as *const c_void,
            enzyme_dup, p, dp, // p is differentiated; dp receives the gradient
            enzyme_const, t,
            enzyme_const, y,
            enzyme_const, m,
        );
    }
}

/// `d loss / d p . v` (forward mode).
#[no_mangle]
#[rustfmt::skip]
pub extern "C" fn loss_tangent(p: *const f64, v: *const f64, t: *const f64, y: *const f64, m: usize) -> f64 {
    unsafe {
        __enzyme_fwddiff(
            loss as *const c_void,
            enzyme_dup, p, v, // the derivative along v
            enzyme_const, t,
            enzyme_const, y,
            enzyme_const, m,
        )
    }
}
