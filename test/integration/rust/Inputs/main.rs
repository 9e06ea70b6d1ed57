//! The driver of ../vec-gradient.rs and ../vec-push.rs: the gradient of `f` (reverse mode) and
//! its tangents along each unit direction of `x` (forward mode), differentiated by Umbra and
//! linked in as a static library, against central finite differences with one Richardson step,
//! as in test/include/fdcheck.h. Exits non-zero on a mismatch.

extern "C" {
    fn f(x: *const f64, n: usize, c: f64) -> f64;
    fn gradient(x: *const f64, dx: *mut f64, n: usize, c: f64) -> f64;
    fn tangent(x: *const f64, v: *const f64, n: usize, c: f64) -> f64;
}

const N: usize = 7;

fn eval(p: &[f64]) -> f64 {
    unsafe { f(p.as_ptr(), N, p[N]) }
}

/// Central difference with one Richardson step, as test/include/fdcheck.h.
fn fd(p: &[f64], j: usize) -> f64 {
    let h = 1e-4 * p[j].abs().max(1.0);
    let d = |h: f64| {
        let (mut a, mut b) = (p.to_vec(), p.to_vec());
        a[j] += h;
        b[j] -= h;
        (eval(&a) - eval(&b)) / (2.0 * h)
    };
    (4.0 * d(h / 2.0) - d(h)) / 3.0
}

fn main() {
    let p: Vec<f64> = (0..=N).map(|i| 0.3 + 0.17 * i as f64 - 0.4 * (i % 2) as f64).collect();
    let mut dx = vec![0.0; N];
    let dc = unsafe { gradient(p.as_ptr(), dx.as_mut_ptr(), N, p[N]) };
    let mut ad = dx.clone();
    ad.push(dc);
    let mut failures = 0;
    let mut check = |what: &str, j: usize, a: f64| {
        let want = fd(&p, j);
        let ok = (a - want).abs() <= 1e-8 + 1e-6 * want.abs();
        println!("{} {what} d/dp[{j}]: ad={a} fd={want}", if ok { "ok" } else { "FAIL" });
        failures += usize::from(!ok);
    };
    for (j, &a) in ad.iter().enumerate() {
        check("gradient", j, a);
    }
    for j in 0..N {
        let mut v = vec![0.0; N];
        v[j] = 1.0;
        check("tangent", j, unsafe { tangent(p.as_ptr(), v.as_ptr(), N, p[N]) });
    }
    std::process::exit(i32::from(failures != 0));
}
