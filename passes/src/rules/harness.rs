//! The shared rule-test harness: builds a tiny module whose function `f` calls one rule's
//! callee, differentiates `f` with the real session in both modes (so the rule is reached
//! exactly as in user code), JIT-compiles it, and compares every partial derivative with a
//! central finite difference: forward mode one tangent direction at a time, reverse mode the
//! whole gradient at once. Scalar cases run in `double`, `float` and `long double` (`x86_fp80`,
//! which reaches the libm `l` spellings); vector cases in `double` and `float`.
//!
//! Every case is also differentiated in batched forward mode at width [`WIDTH`], each lane
//! seeded with a different direction, and each lane compared with the width-1 derivative
//! along the same direction: every forward rule must work batched (issue 12).
//!
//! The JIT entry points take and return everything through memory (`fwd(x*, dx*, out*)`,
//! `fwdw(x*, dx*, out*)` with `WIDTH` tangents per input, `rev(x*, grad*)`) so no
//! aggregate-return ABI questions arise.

use crate::cache::Session;
use crate::ir::{Builder, Module, Ty, Val};
use crate::options::Options;
use crate::vocab::Activity;
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
    /// A libm call with non-float arguments: its double, float and long double spellings, and
    /// the arguments in order (the float ones take the case's inputs in order).
    Call([String; 3], Vec<Arg>),
    /// `llvm.name.v2<ty>(a, b, ...)` on two-lane vectors `a = (x0, x1)`, `b = (x2, x3)`, ...;
    /// `f` returns `r[0] + 3 r[1]`, so a swapped or dropped lane shows.
    Vector(String),
    /// A complex function of the complex numbers `(x0 + i x1, x2 + i x3, ...)` under the x86-64
    /// ABI: its `double` and `float` spellings, whether it is a compiler-rt helper (operands as
    /// scalar pairs in both precisions; otherwise `float` operands are `<2 x float>`), and
    /// whether its result is real. `f` returns `re(w) + 3 im(w)` for a complex result `w`, so a
    /// swapped or dropped part shows.
    Complex {
        names: [String; 2],
        helper: bool,
        real: bool,
    },
    /// `r = llvm.name.<ty>(x0)` returning a two-field struct (`llvm.modf`, `llvm.frexp`):
    /// `f` returns `r.0 + 3 r.1` (an integer field converted), so a swapped or dropped field
    /// shows.
    Parts(String),
    /// `name(x0, &s1, ..., &sk)`, a libm function returning results through pointers to fresh
    /// slots of the case's type (`modf`, `sincos`), and a float (`returns`) or nothing: `f`
    /// returns `r + 3 s1 + 9 s2 + ...`.
    Outputs {
        name: String,
        slots: usize,
        returns: bool,
    },
    /// `f` is whatever the function builds from the inputs (for helpers with a body, such as
    /// the digamma helper, whose own derivative is then checked). The label is only read
    /// through `Debug`, to name the case in failure messages.
    #[allow(dead_code)]
    Built(String, BuildFn),
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

/// Builds a value from `f`'s parameters (see [`Shape::Built`]).
pub type BuildFn = fn(&mut Builder, &[Val]) -> Val;

/// One argument of a [`Case::call`] shape.
#[derive(Clone, Copy, Debug)]
pub enum Arg {
    /// The next input, in the case's floating-point type (differentiated).
    X(f64),
    /// The next input, converted to `x86_fp80` (`nexttoward`'s `long double`; differentiated).
    LongDouble(f64),
    /// A constant integer of this many bits.
    Int(u32, i64),
    /// A pointer to a fresh `i32` slot the callee writes (`frexp`'s exponent, a sign).
    IntSlot,
}

/// The floating-point type a case runs in. Inputs and outputs cross the JIT boundary as
/// `double` either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// `double`: libm names as written.
    Double,
    /// `float`: libm names with an `f` suffix.
    Float,
    /// `x86_fp80` (C `long double` on x86-64): libm names with an `l` suffix.
    LongDouble,
}

impl Precision {
    /// The case's floating-point type in `ctx`.
    fn ty(self, ctx: crate::ir::Context) -> Ty {
        match self {
            Precision::Double => Ty::double(ctx),
            Precision::Float => Ty::float(ctx),
            Precision::LongDouble => Ty::x86_fp80(ctx),
        }
    }
    /// The libm suffix of this precision.
    fn suffix(self) -> &'static str {
        match self {
            Precision::Double => "",
            Precision::Float => "f",
            Precision::LongDouble => "l",
        }
    }
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
    /// A libm call with some non-float arguments (`jn`'s order, `frexp`'s exponent slot); the
    /// float and long double spellings are `name` + `f` and `name` + `l`.
    pub fn call(name: &str, args: &[Arg]) -> Case {
        Case::call_named([name, &format!("{name}f"), &format!("{name}l")], args)
    }
    /// Like [`Case::call`] with explicit spellings (`lgamma_r`, `lgammaf_r`, `lgammal_r`).
    pub fn call_named(names: [&str; 3], args: &[Arg]) -> Case {
        let xs = args
            .iter()
            .filter_map(|a| match a {
                Arg::X(x) | Arg::LongDouble(x) => Some(*x),
                Arg::Int(..) | Arg::IntSlot => None,
            })
            .collect();
        Case {
            shape: Shape::Call(names.map(String::from), args.to_vec()),
            xs,
        }
    }
    /// An overloaded math intrinsic on two-lane vectors: `xs` holds both lanes of the first
    /// argument, then both lanes of the next, ...
    pub fn vector(name: &str, xs: &[f64]) -> Case {
        assert!(xs.len().is_multiple_of(2), "{name}: two lanes per argument");
        Case {
            shape: Shape::Vector(name.into()),
            xs: xs.to_vec(),
        }
    }
    /// A `<complex.h>` function with a complex result at the complex operands `xs` (real and
    /// imaginary parts in turn); the float spelling is `name` + `f`.
    pub fn complex(name: &str, xs: &[f64]) -> Case {
        Case::complex_shape([name, &format!("{name}f")], xs, false, false)
    }
    /// A `<complex.h>` function with a real result (`cabs`, `carg`).
    pub fn complex_real(name: &str, xs: &[f64]) -> Case {
        Case::complex_shape([name, &format!("{name}f")], xs, false, true)
    }
    /// A compiler-rt complex helper (`__muldc3`, `__mulsc3`): its double and float spellings.
    pub fn complex_helper(names: [&str; 2], xs: &[f64]) -> Case {
        Case::complex_shape(names, xs, true, false)
    }
    fn complex_shape(names: [&str; 2], xs: &[f64], helper: bool, real: bool) -> Case {
        assert!(
            xs.len().is_multiple_of(2),
            "{names:?}: two parts per operand"
        );
        Case {
            shape: Shape::Complex {
                names: names.map(String::from),
                helper,
                real,
            },
            xs: xs.to_vec(),
        }
    }
    /// An intrinsic returning a two-field struct, at `x`.
    pub fn parts(name: &str, x: f64) -> Case {
        Case {
            shape: Shape::Parts(name.into()),
            xs: vec![x],
        }
    }
    /// A libm function of `x` writing `slots` results through pointers, returning a float when
    /// `returns`.
    pub fn outputs(name: &str, x: f64, slots: usize, returns: bool) -> Case {
        Case {
            shape: Shape::Outputs {
                name: name.into(),
                slots,
                returns,
            },
            xs: vec![x],
        }
    }
    /// A function built by `build` (named `label` in failure messages).
    pub fn built(label: &str, build: BuildFn, xs: &[f64]) -> Case {
        Case {
            shape: Shape::Built(label.into(), build),
            xs: xs.to_vec(),
        }
    }
    /// The callee names this case calls, in every precision it runs (for coverage checks).
    pub fn callee_names(&self) -> Vec<String> {
        let spellings = |n: &str| vec![n.to_string(), format!("{n}f"), format!("{n}l")];
        match &self.shape {
            Shape::Libm(n) | Shape::Outputs { name: n, .. } => spellings(n),
            Shape::WithInt(n, _) if !n.starts_with("llvm.") => spellings(n),
            Shape::Call(names, _) => names.to_vec(),
            Shape::Complex { names, .. } => names.to_vec(),
            Shape::Intrinsic(n)
            | Shape::WithInt(n, _)
            | Shape::Vector(n)
            | Shape::Reduction(n)
            | Shape::Parts(n) => {
                vec![n.clone()]
            }
            Shape::Built(..) | Shape::Body(..) => Vec::new(),
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

/// The batch width the harness checks beside width 1: odd, so no lane count is a power of two
/// the vectoriser could treat specially.
const WIDTH: usize = 3;

/// The entry points of one JIT-compiled case.
struct Entries {
    fwd: ForwardFn,
    wide: ForwardFn,
    rev: ReverseFn,
}

/// Checks every partial of `case` against central finite differences; panics with the rule's
/// name, the point and both values on a mismatch.
pub fn check_rule(case: &Case) {
    use Precision::*;
    let precisions: &[Precision] = match case.shape {
        Shape::Reduction(_) => &[Double],
        // Intrinsics exist for x86_fp80 but are not all selectable by the x86 backend
        // (`llvm.minimum.f80` aborts LLVM 22), which would abort the test process; the libm `l`
        // spellings are what long double code calls.
        Shape::Vector(_) | Shape::Intrinsic(_) | Shape::Parts(_) => &[Double, Float],
        // Hand-built bodies (BLAS) come in single and double precision only.
        Shape::Body(..) => &[Double, Float],
        // `long double _Complex` is passed in memory and has no rules.
        Shape::Complex { .. } => &[Double, Float],
        Shape::WithInt(ref n, _) if n.starts_with("llvm.") => &[Double, Float],
        _ => &[Double, Float, LongDouble],
    };
    for &p in precisions {
        with_jit(case, p, |e| {
            check_point(case, p, e.fwd, e.rev);
            check_batched(case, p, e.fwd, e.wide);
        });
    }
}

/// Differentiates `case`'s forward derivative once more in forward mode, in `double` and
/// `float`: derivative code must itself be differentiable (docs/reference/writing-rules.md), so this fails on a
/// missing rule at second order or invalid IR. (Values are checked at first order only.)
pub fn check_second_order(case: &Case) {
    for p in [Precision::Double, Precision::Float] {
        let ctx = Context::create();
        let module = ctx.create_module("second_order");
        let m = Module(module.as_mut_ptr());
        build_case(m, case, p);
        let f = m.function("f").expect("the case's function");
        let n = case.xs.len();
        let mut session = Session::new(m, &Options::default(), Default::default());
        session.set_type_seed(crate::rules::type_seed);
        let d = crate::derive::forward_function(&mut session, f, &vec![Activity::Dup; n])
            .unwrap_or_else(|e| panic!("{case:?}: {e}"));
        crate::derive::forward_function(&mut session, d, &vec![Activity::Dup; 2 * n])
            .unwrap_or_else(|e| panic!("{case:?} ({p:?}, second order): {e}"));
        if let Err(e) = m.verify() {
            panic!("{case:?} ({p:?}, second order): invalid module: {e}");
        }
    }
}

/// The value of `case`'s function at its point, computed in precision `p`.
pub fn evaluate(case: &Case, p: Precision) -> f64 {
    with_jit(case, p, |e| primal(e.fwd, &case.xs))
}

/// Builds `case` in a fresh module, JIT-compiles it and hands its entry points to `run`.
fn with_jit<T>(case: &Case, p: Precision, run: impl FnOnce(Entries) -> T) -> T {
    let ctx = Context::create();
    let module = ctx.create_module("rule_case");
    let m = Module(module.as_mut_ptr());
    build_case(m, case, p);
    // The tape's pool gets its bodies once derived code is built, as after a module's requests;
    // a JIT links no `__dso_handle` (crtbegin's), so the module holds its own.
    crate::tape::pool::define(m);
    if let Some(g) = m
        .global("__dso_handle")
        .filter(|g| g.initializer().is_none())
    {
        g.set_initializer(Ty::int(m.context(), 8).zero());
    }
    if let Err(e) = m.verify() {
        panic!("{case:?}: invalid module: {e}");
    }
    Target::initialize_native(&InitializationConfig::default()).expect("native target");
    let ee = module
        .create_jit_execution_engine(OptimizationLevel::None)
        .expect("JIT");
    // SAFETY: `fwd`, `fwdw` and `rev` were built by `build_case` with exactly these
    // signatures, and the raw function pointers do not outlive `ee` (they are only used inside
    // `run`).
    unsafe {
        let fwd = ee.get_function::<ForwardFn>("fwd").expect("fwd function");
        let wide = ee.get_function::<ForwardFn>("fwdw").expect("fwdw function");
        let rev = ee.get_function::<ReverseFn>("rev").expect("rev function");
        run(Entries {
            fwd: fwd.as_raw(),
            wide: wide.as_raw(),
            rev: rev.as_raw(),
        })
    }
}

fn primal(fwd: ForwardFn, x: &[f64]) -> f64 {
    let mut out = [0.0f64; 2];
    let dx = vec![0.0; x.len()];
    // SAFETY: `fwd` reads `x.len()` inputs and tangents and writes two outputs.
    unsafe { fwd(x.as_ptr(), dx.as_ptr(), out.as_mut_ptr()) };
    out[0]
}

fn check_point(case: &Case, p: Precision, fwd: ForwardFn, rev: ReverseFn) {
    let n = case.xs.len();
    let mut grad = vec![0.0f64; n];
    // SAFETY: `rev` reads `n` inputs and writes `n` adjoints.
    unsafe { rev(case.xs.as_ptr(), grad.as_mut_ptr()) };
    for j in 0..n {
        let mut dx = vec![0.0; n];
        dx[j] = 1.0;
        let mut out = [0.0f64; 2];
        // SAFETY: as in `primal`.
        unsafe { fwd(case.xs.as_ptr(), dx.as_ptr(), out.as_mut_ptr()) };
        let single = p == Precision::Float;
        let fd = central_difference(|x| primal(fwd, x), &case.xs, j, single);
        assert!(
            fd.is_finite(),
            "{case:?}: finite differences are not finite at this point; pick another"
        );
        let tol = if single { 2e-3 } else { 1e-6 };
        for (mode, ad) in [("forward", out[1]), ("reverse", grad[j])] {
            assert!(
                (ad - fd).abs() <= tol * (1.0 + fd.abs()),
                "{case:?} ({p:?}, {mode} mode): d/dx{j} = {ad} but finite differences give {fd}"
            );
        }
    }
}

/// The tangent seed of `lane` for input `j` of `n`: lane 0 is the first unit direction, the
/// others mix every input with distinct weights, so a lane that reads another lane's tangent,
/// or only the first, shows.
fn seed(lane: usize, j: usize, n: usize) -> f64 {
    match lane {
        0 => f64::from(u8::from(j == 0)),
        _ => {
            (1.0 + j as f64) * if lane.is_multiple_of(2) { 0.5 } else { -1.25 }
                + (n - j) as f64 * 0.1
        }
    }
}

/// Runs the batched derivative with a different seed per lane and compares each lane with the
/// width-1 derivative along that lane's seed.
fn check_batched(case: &Case, p: Precision, fwd: ForwardFn, wide: ForwardFn) {
    let n = case.xs.len();
    let mut dx = vec![0.0f64; n * WIDTH];
    for j in 0..n {
        for l in 0..WIDTH {
            dx[j * WIDTH + l] = seed(l, j, n);
        }
    }
    let mut out = [0.0f64; 1 + WIDTH];
    // SAFETY: `fwdw` reads `n` inputs and `n * WIDTH` tangents and writes `1 + WIDTH` outputs.
    unsafe { wide(case.xs.as_ptr(), dx.as_ptr(), out.as_mut_ptr()) };
    let tol = if p == Precision::Float { 1e-5 } else { 1e-10 };
    for l in 0..WIDTH {
        let one: Vec<f64> = (0..n).map(|j| seed(l, j, n)).collect();
        let mut single = [0.0f64; 2];
        // SAFETY: as in `primal`.
        unsafe { fwd(case.xs.as_ptr(), one.as_ptr(), single.as_mut_ptr()) };
        let (got, want) = (out[1 + l], single[1]);
        assert!(
            (got - want).abs() <= tol * (1.0 + want.abs()),
            "{case:?} ({p:?}, batched forward mode, width {WIDTH}): lane {l} along {one:?} is \
             {got} but width 1 gives {want}"
        );
    }
    let (got, want) = (out[0], primal(fwd, &case.xs));
    assert!(
        got == want || (got - want).abs() <= tol * (1.0 + want.abs()),
        "{case:?} ({p:?}, batched forward mode): primal {got} but width 1 gives {want}"
    );
}

fn central_difference(f: impl Fn(&[f64]) -> f64, x: &[f64], j: usize, single: bool) -> f64 {
    let h = if single { 1e-2 } else { 1e-6 } * x[j].abs().max(1.0);
    let (mut xp, mut xm) = (x.to_vec(), x.to_vec());
    xp[j] += h;
    xm[j] -= h;
    (f(&xp) - f(&xm)) / (2.0 * h)
}

/// Builds `f` (calling the rule) and `test(x*, dx*, out*)` (calling f's forward derivative).
fn build_case(m: Module, case: &Case, p: Precision) {
    let ctx = m.context();
    let fty = p.ty(ctx);
    let converts = p != Precision::Double;
    let n = case.xs.len();
    let f = m.add_function("f", Ty::function(fty, &vec![fty; n], false));
    let mut b = Builder::new(m);
    b.position_at_end(f.append_block("entry"));
    let xs = f.params();
    let r = call_rule(&mut b, m, case, p, &xs);
    b.ret(r);

    let mut session = Session::new(m, &Options::default(), Default::default());
    session.set_type_seed(crate::rules::type_seed);
    let d = crate::derive::forward_function(&mut session, f, &vec![Activity::Dup; n])
        .unwrap_or_else(|e| panic!("{case:?}: {e}"));
    let dw = crate::derive::forward_function_wide(
        &mut session,
        f,
        &vec![Activity::Dup; n],
        WIDTH as u32,
        0,
    )
    .unwrap_or_else(|e| panic!("{case:?} (width {WIDTH}): {e}"));
    let (aug, adj) =
        crate::derive::reverse_functions(&mut session, f, &vec![Activity::Out; n], true, 0)
            .unwrap_or_else(|e| panic!("{case:?}: {e}"));

    let ptr = Ty::ptr(ctx);
    let dbl = Ty::double(ctx);
    let i64t = Ty::int(ctx, 64);
    let load_arg = |b: &mut Builder, base: Val, k: u64| {
        let p = b.gep(dbl, base, &[i64t.int_const(k)], true);
        let v = b.load(dbl, p, 8);
        if converts {
            b.fp_cast(v, fty)
        } else {
            v
        }
    };
    let store_out = |b: &mut Builder, v: Val, base: Val, k: u64| {
        let v = if converts { b.fp_cast(v, dbl) } else { v };
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

    // fwdw(x, dx, out): out = {f(x), J dx[.., 0], ..., J dx[.., WIDTH - 1]}, the tangents of
    // input k at dx[k * WIDTH ..]
    let fwdw = m.add_function("fwdw", Ty::function(Ty::void(ctx), &[ptr, ptr, ptr], false));
    b.position_at_end(fwdw.append_block("entry"));
    let [x, dx, out] = [fwdw.params()[0], fwdw.params()[1], fwdw.params()[2]];
    let mut args = Vec::new();
    for k in 0..n as u64 {
        args.push(load_arg(&mut b, x, k));
        let lanes: Vec<Val> = (0..WIDTH as u64)
            .map(|l| load_arg(&mut b, dx, k * WIDTH as u64 + l))
            .collect();
        args.push(crate::signature::pack_lanes(&mut b, &lanes));
    }
    let res = b.call_function(dw, &args);
    let v = b.extract_value(res, 0);
    store_out(&mut b, v, out, 0);
    let ts = b.extract_value(res, 1);
    for l in 0..WIDTH as u32 {
        let v = crate::signature::lane_of(&mut b, ts, l);
        store_out(&mut b, v, out, 1 + l as u64);
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

fn call_rule(b: &mut Builder, m: Module, case: &Case, p: Precision, xs: &[Val]) -> Val {
    let fty = p.ty(m.context());
    match &case.shape {
        Shape::Libm(name) => {
            let name = format!("{name}{}", p.suffix());
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
                let name = format!("{name}{}", p.suffix());
                let callee = m.get_or_add_function(&name, Ty::function(fty, &[fty, i32t], false));
                b.call_function(callee, &[xs[0], kv])
            }
        }
        Shape::Reduction(name) => {
            let vty = Ty::vector(fty, xs.len() as u32);
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
        Shape::Call(names, args) => {
            let [double, float, long] = names;
            let name = match p {
                Precision::Double => double,
                Precision::Float => float,
                Precision::LongDouble => long,
            };
            call_with_args(b, m, name, fty, args, xs)
        }
        Shape::Vector(name) => call_on_lanes(b, m, name, fty, xs),
        Shape::Complex {
            names,
            helper,
            real,
        } => {
            let name = if p == Precision::Float {
                &names[1]
            } else {
                &names[0]
            };
            call_complex(
                b,
                m,
                name,
                fty,
                xs,
                *helper || p == Precision::Double,
                *real,
            )
        }
        Shape::Parts(name) => {
            // `llvm.frexp` is overloaded on its exponent's type too.
            let i32t = Ty::int(m.context(), 32);
            let overloads: &[Ty] = if name == "llvm.frexp" {
                &[fty, i32t]
            } else {
                &[fty]
            };
            let r = b
                .intrinsic(name, overloads, xs)
                .unwrap_or_else(|| panic!("no intrinsic {name}"));
            let first = b.extract_value(r, 0);
            let mut second = b.extract_value(r, 1);
            if second.ty().is_int() {
                second = b.si_to_fp(second, fty);
            }
            let second3 = b.fmul_const(second, 3.0);
            b.fadd(first, second3)
        }
        Shape::Outputs {
            name,
            slots,
            returns,
        } => {
            let slots: Vec<Val> = (0..*slots).map(|_| b.alloca(fty, "slot")).collect();
            let mut args = vec![xs[0]];
            args.extend(&slots);
            let params: Vec<Ty> = args.iter().map(|a| a.ty()).collect();
            let ret = if *returns { fty } else { Ty::void(m.context()) };
            let name = format!("{name}{}", p.suffix());
            let callee = m.get_or_add_function(&name, Ty::function(ret, &params, false));
            let r = b.call_function(callee, &args);
            let mut acc = if *returns { r } else { fty.float_const(0.0) };
            let mut weight = 1.0;
            for s in slots {
                weight *= 3.0;
                let v = b.load(fty, s, 0);
                let v = b.fmul_const(v, weight);
                acc = b.fadd(acc, v);
            }
            acc
        }
        Shape::Built(_, build) => build(b, xs),
        Shape::Body(_, config, body) => body(b, m, fty, xs, config),
    }
}

/// `name(args)`, the float arguments taken from `xs` in order.
fn call_with_args(
    b: &mut Builder,
    m: Module,
    name: &str,
    fty: Ty,
    args: &[Arg],
    xs: &[Val],
) -> Val {
    let ctx = m.context();
    let mut inputs = xs.iter().copied();
    let mut next_input = || inputs.next().unwrap_or_else(|| fty.poison());
    let vals: Vec<Val> = args
        .iter()
        .map(|a| match *a {
            Arg::X(_) => next_input(),
            Arg::LongDouble(_) => {
                let fp80 = Ty::x86_fp80(ctx);
                let x = next_input();
                b.fp_cast(x, fp80)
            }
            Arg::Int(bits, v) => Ty::int(ctx, bits).int_const(v as u64),
            Arg::IntSlot => b.alloca(Ty::int(ctx, 32), "slot"),
        })
        .collect();
    let params: Vec<Ty> = vals.iter().map(|v| v.ty()).collect();
    let callee = m.get_or_add_function(name, Ty::function(fty, &params, false));
    b.call_function(callee, &vals)
}

/// `r = name(<x0, x1>, <x2, x3>, ...)`, returning `r[0] + 3 r[1]`.
fn call_on_lanes(b: &mut Builder, m: Module, name: &str, fty: Ty, xs: &[Val]) -> Val {
    let vty = Ty::vector(fty, 2);
    let i32t = Ty::int(m.context(), 32);
    let vecs: Vec<Val> = xs
        .chunks(2)
        .map(|lanes| {
            let mut v = vty.poison();
            for (k, &x) in lanes.iter().enumerate() {
                v = b.insert_element(v, x, i32t.int_const(k as u64));
            }
            v
        })
        .collect();
    let r = b
        .intrinsic(name, &[vty], &vecs)
        .unwrap_or_else(|| panic!("no intrinsic {name}"));
    let r0 = b.extract_lane(r, 0);
    let r1 = b.extract_lane(r, 1);
    let r1x3 = b.fmul_const(r1, 3.0);
    b.fadd(r0, r1x3)
}

/// `name(z0, z1, ...)` for `zk = xs[2k] + i xs[2k+1]` under the x86-64 ABI: each operand as two
/// scalars (`scalars`) or one `<2 x ty>`, a complex result as `{ty, ty}` (with scalar operands)
/// or `<2 x ty>`; returns `re + 3 im` (or the real result).
fn call_complex(
    b: &mut Builder,
    m: Module,
    name: &str,
    fty: Ty,
    xs: &[Val],
    scalars: bool,
    real: bool,
) -> Val {
    let i32t = Ty::int(m.context(), 32);
    let vty = Ty::vector(fty, 2);
    let args: Vec<Val> = if scalars {
        xs.to_vec()
    } else {
        xs.chunks(2)
            .map(|parts| {
                let v = b.insert_element(vty.poison(), parts[0], i32t.int_const(0));
                b.insert_element(v, parts[1], i32t.int_const(1))
            })
            .collect()
    };
    let ret = match (real, scalars) {
        (true, _) => fty,
        (false, true) if fty == Ty::double(m.context()) => {
            Ty::literal_struct(m.context(), &[fty, fty])
        }
        // `__mulsc3` returns `float _Complex` like every other float function.
        (false, _) => vty,
    };
    let params: Vec<Ty> = args.iter().map(|a| a.ty()).collect();
    let callee = m.get_or_add_function(name, Ty::function(ret, &params, false));
    let w = b.call_function(callee, &args);
    if real {
        return w;
    }
    let (re, im) = if ret == vty {
        (b.extract_lane(w, 0), b.extract_lane(w, 1))
    } else {
        (b.extract_value(w, 0), b.extract_value(w, 1))
    };
    let im3 = b.fmul_const(im, 3.0);
    b.fadd(re, im3)
}
