//! The shared rule-test harness: builds a tiny module whose function `f` calls one rule's
//! callee, differentiates `f` with the real session in both modes (so the rule is reached
//! exactly as in user code), JIT-compiles it, and compares every partial derivative with a
//! central finite difference: forward mode one tangent direction at a time, reverse mode the
//! whole gradient at once. Scalar cases run in `double` and `float`.
//!
//! The JIT entry points take and return everything through memory (`fwd(x*, dx*, out*)`,
//! `rev(x*, grad*)`) so no aggregate-return ABI questions arise.

use crate::api::Activity;
use crate::cache::Session;
use crate::ir::{Builder, Module, Ty, Val};
use crate::options::Options;
use inkwell::context::Context;
use inkwell::targets::{InitializationConfig, Target};
use inkwell::OptimizationLevel;

/// How the case's function calls the rule's callee.
#[derive(Clone, Debug)]
enum Shape {
    /// `name(x0, ..., xn)`; libm spelling (float variant: `namef`).
    Libm(String),
    /// `llvm.name.<ty>(x0, ..., xn)`.
    Intrinsic(String),
    /// `name(x0, n)` with a constant integer second argument (`powi`, `ldexp`).
    WithInt(String, i32),
    /// `name([start,] <4 x ty> (x0..x3))`.
    Reduction(String),
    /// A hand-built body (memory-based rules such as BLAS): `body(b, m, ty, xs, config)`
    /// emits the code of `f` from its parameters and returns the scalar it returns.
    Body(
        #[expect(
            dead_code,
            reason = "the case's name, shown only in failure messages (Debug)"
        )]
        String,
        Vec<i64>,
        Body,
    ),
}

/// Emits the body of a test function `f(x0..xn) -> ty` (see [`Case::body`]).
pub type Body = fn(&mut Builder, Module, Ty, &[Val], &[i64]) -> Val;

/// One rule test case: a call shape and the point to differentiate at.
#[derive(Clone, Debug)]
pub struct Case {
    shape: Shape,
    xs: Vec<f64>,
}

impl Case {
    /// A libm function of `xs.len()` floating-point arguments.
    pub fn libm(name: &str, xs: &[f64]) -> Case {
        Case {
            shape: Shape::Libm(name.into()),
            xs: xs.to_vec(),
        }
    }
    /// An overloaded math intrinsic.
    pub fn intrinsic(name: &str, xs: &[f64]) -> Case {
        Case {
            shape: Shape::Intrinsic(name.into()),
            xs: xs.to_vec(),
        }
    }
    /// A function of one float and one constant `i32`.
    pub fn with_int(name: &str, x: f64, n: i32) -> Case {
        Case {
            shape: Shape::WithInt(name.into(), n),
            xs: vec![x],
        }
    }
    /// A function whose body `body` builds, given the parameters and a per-case `config`
    /// (e.g. strides, storage order); run in `double` and `float`.
    pub fn body(name: &str, xs: &[f64], config: &[i64], body: Body) -> Case {
        Case {
            shape: Shape::Body(name.into(), config.to_vec(), body),
            xs: xs.to_vec(),
        }
    }
    /// A vector reduction over four lanes.
    pub fn reduction(name: &str, lanes: &[f64; 4]) -> Case {
        Case {
            shape: Shape::Reduction(name.into()),
            xs: lanes.to_vec(),
        }
    }
}

type ForwardFn = unsafe extern "C" fn(*const f64, *const f64, *mut f64);
type ReverseFn = unsafe extern "C" fn(*const f64, *mut f64);

/// Checks every partial of `case` against central finite differences; panics with the rule's
/// name, the point and both values on a mismatch.
pub fn check_rule(case: &Case) {
    let floats: &[bool] = match case.shape {
        Shape::Reduction(_) => &[false],
        _ => &[false, true],
    };
    for &single in floats {
        let ctx = Context::create();
        let module = ctx.create_module("rule_case");
        let m = Module(module.as_mut_ptr());
        build_case(m, case, single);
        if let Err(e) = m.verify() {
            panic!("{case:?}: invalid module: {e}");
        }
        Target::initialize_native(&InitializationConfig::default()).expect("native target");
        let ee = module
            .create_jit_execution_engine(OptimizationLevel::None)
            .expect("JIT");
        // SAFETY: `fwd` and `rev` were built above with exactly these signatures.
        let fwd = unsafe { ee.get_function::<ForwardFn>("fwd") }.expect("fwd function");
        let rev = unsafe { ee.get_function::<ReverseFn>("rev") }.expect("rev function");
        let n = case.xs.len();
        let primal = |x: &[f64]| {
            let mut out = [0.0f64; 2];
            unsafe { fwd.call(x.as_ptr(), vec![0.0; n].as_ptr(), out.as_mut_ptr()) };
            out[0]
        };
        let mut grad = vec![0.0f64; n];
        unsafe { rev.call(case.xs.as_ptr(), grad.as_mut_ptr()) };
        for j in 0..n {
            let mut dx = vec![0.0; n];
            dx[j] = 1.0;
            let mut out = [0.0f64; 2];
            unsafe { fwd.call(case.xs.as_ptr(), dx.as_ptr(), out.as_mut_ptr()) };
            let fd = central_difference(primal, &case.xs, j, single);
            assert!(
                fd.is_finite(),
                "{case:?}: finite differences are not finite at this point; pick another"
            );
            let tol = if single { 2e-3 } else { 1e-6 };
            let precision = if single { "float" } else { "double" };
            for (mode, ad) in [("forward", out[1]), ("reverse", grad[j])] {
                assert!(
                    (ad - fd).abs() <= tol * (1.0 + fd.abs()),
                    "{case:?} ({precision}, {mode} mode): d/dx{j} = {ad} but finite differences give {fd}"
                );
            }
        }
    }
}

fn central_difference(f: impl Fn(&[f64]) -> f64, x: &[f64], j: usize, single: bool) -> f64 {
    let h = if single { 1e-2 } else { 1e-6 } * x[j].abs().max(1.0);
    let (mut xp, mut xm) = (x.to_vec(), x.to_vec());
    xp[j] += h;
    xm[j] -= h;
    (f(&xp) - f(&xm)) / (2.0 * h)
}

/// Builds `f` (calling the rule) and `test(x*, dx*, out*)` (calling f's forward derivative).
fn build_case(m: Module, case: &Case, single: bool) {
    let ctx = m.context();
    let fty = if single {
        Ty(unsafe { crate::ir::sys::core::LLVMFloatTypeInContext(ctx) })
    } else {
        Ty::double(ctx)
    };
    let n = case.xs.len();
    let f = m.add_function("f", Ty::function(fty, &vec![fty; n], false));
    let mut b = Builder::new(m);
    b.position_at_end(f.append_block("entry"));
    let xs = f.params();
    let r = call_rule(&mut b, m, case, fty, &xs);
    b.ret(r);

    let mut session = Session::new(m, &Options::default());
    let d = session
        .forward_function(f, &vec![Activity::Dup; n])
        .unwrap_or_else(|e| panic!("{case:?}: {e}"));
    let (aug, adj) = session
        .reverse_functions(f, &vec![Activity::Out; n], true)
        .unwrap_or_else(|e| panic!("{case:?}: {e}"));

    let ptr = Ty::ptr(ctx);
    let dbl = Ty::double(ctx);
    let i64t = Ty::int(ctx, 64);
    let load_arg = |b: &mut Builder, base: Val, k: u64| {
        let p = b.gep(dbl, base, &[i64t.int_const(k)], true);
        let v = b.load(dbl, p, 8);
        if single {
            b.fp_cast(v, fty)
        } else {
            v
        }
    };
    let store_out = |b: &mut Builder, v: Val, base: Val, k: u64| {
        let v = if single { b.fp_cast(v, dbl) } else { v };
        let p = b.gep(dbl, base, &[i64t.int_const(k)], true);
        b.store(v, p, 8);
    };

    // fwd(x, dx, out): out = {f(x), J dx}
    let fwd = m.add_function("fwd", Ty::function(Ty::void(ctx), &[ptr, ptr, ptr], false));
    b.position_at_end(fwd.append_block("entry"));
    let [x, dx, out] = [fwd.params()[0], fwd.params()[1], fwd.params()[2]];
    let mut args = Vec::new();
    for k in 0..n as u64 {
        args.push(load_arg(&mut b, x, k));
        args.push(load_arg(&mut b, dx, k));
    }
    let res = b.call_function(d, &args);
    for k in 0..2u32 {
        let v = b.extract_value(res, k);
        store_out(&mut b, v, out, k as u64);
    }
    b.ret_void();

    // rev(x, grad): grad = gradient of f at x
    let rev = m.add_function("rev", Ty::function(Ty::void(ctx), &[ptr, ptr], false));
    let entry = rev.append_block("entry");
    b.position_at_end(entry);
    let [x, grad] = [rev.params()[0], rev.params()[1]];
    let ret = b.ret_void();
    let tape = crate::reverse::new_tape(&mut b, rev, ret);
    let mut args = vec![tape];
    for k in 0..n as u64 {
        args.push(load_arg(&mut b, x, k));
    }
    b.call_function(aug, &args);
    args.push(fty.float_const(1.0));
    let adjoints = b.call_function(adj, &args);
    for k in 0..n as u32 {
        let g = b.extract_value(adjoints, k);
        store_out(&mut b, g, grad, k as u64);
    }
    crate::reverse::free_tape(&mut b, tape);
}

fn call_rule(b: &mut Builder, m: Module, case: &Case, fty: Ty, xs: &[Val]) -> Val {
    let single = fty != Ty::double(m.context());
    match &case.shape {
        Shape::Libm(name) => {
            let name = if single {
                format!("{name}f")
            } else {
                name.clone()
            };
            let callee =
                m.get_or_add_function(&name, Ty::function(fty, &vec![fty; xs.len()], false));
            b.call_function(callee, xs)
        }
        Shape::Intrinsic(name) => b
            .intrinsic(name, &[fty], xs)
            .unwrap_or_else(|| panic!("no intrinsic {name}")),
        Shape::WithInt(name, k) => {
            let i32t = Ty::int(m.context(), 32);
            let kv = i32t.int_const(*k as i64 as u64);
            if name.starts_with("llvm.") {
                b.intrinsic(name, &[fty, i32t], &[xs[0], kv])
                    .unwrap_or_else(|| panic!("no intrinsic {name}"))
            } else {
                let name = if single {
                    format!("{name}f")
                } else {
                    name.clone()
                };
                let callee = m.get_or_add_function(&name, Ty::function(fty, &[fty, i32t], false));
                b.call_function(callee, &[xs[0], kv])
            }
        }
        Shape::Reduction(name) => {
            let vty = Ty(unsafe { crate::ir::sys::core::LLVMVectorType(fty.0, xs.len() as u32) });
            let mut v = vty.poison();
            for (k, &x) in xs.iter().enumerate() {
                let idx = Ty::int(m.context(), 32).int_const(k as u64);
                v = b.insert_element(v, x, idx);
            }
            let args = match name.as_str() {
                "llvm.vector.reduce.fadd" => vec![fty.float_const(0.25), v],
                "llvm.vector.reduce.fmul" => vec![fty.float_const(1.5), v],
                _ => vec![v],
            };
            b.intrinsic(name, &[vty], &args)
                .unwrap_or_else(|| panic!("no intrinsic {name}"))
        }
        Shape::Body(_, config, body) => body(b, m, fty, xs, config),
    }
}
