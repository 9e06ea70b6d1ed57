//! `cargo run`: the gradient of `loss` (src/model.rs, differentiated by Umbra in build.rs)
//! beside central finite differences, and one tangent. Exits non-zero when they disagree.

// What build.rs links in: the module's own functions and the derivatives Umbra generated.
extern "C" {
    fn loss(p: *const f64, t: *const f64, y: *const f64, m: usize) -> f64;
    fn loss_gradient(p: *const f64, dp: *mut f64, t: *const f64, y: *const f64, m: usize);
    fn loss_tangent(p: *const f64, v: *const f64, t: *const f64, y: *const f64, m: usize) -> f64;
}

/// Safe wrappers over the linked functions.
struct Data {
    t: Vec<f64>,
    y: Vec<f64>,
}

impl Data {
    fn loss(&self, p: &[f64; 4]) -> f64 {
        unsafe { loss(p.as_ptr(), self.t.as_ptr(), self.y.as_ptr(), self.t.len()) }
    }
    fn gradient(&self, p: &[f64; 4]) -> [f64; 4] {
        let mut dp = [0.0; 4]; // the shadow accumulates: start from zero
        unsafe {
            loss_gradient(
                p.as_ptr(),
                dp.as_mut_ptr(),
                self.t.as_ptr(),
                self.y.as_ptr(),
                self.t.len(),
            )
        };
        dp
    }
    fn tangent(&self, p: &[f64; 4], v: &[f64; 4]) -> f64 {
        unsafe {
            loss_tangent(
                p.as_ptr(),
                v.as_ptr(),
                self.t.as_ptr(),
                self.y.as_ptr(),
                self.t.len(),
            )
        }
    }
    /// Central finite difference of the loss along `v`.
    fn fd(&self, p: &[f64; 4], v: &[f64; 4]) -> f64 {
        let h = 1e-6;
        let (mut a, mut b) = (*p, *p);
        for i in 0..4 {
            a[i] += h * v[i];
            b[i] -= h * v[i];
        }
        (self.loss(&a) - self.loss(&b)) / (2.0 * h)
    }
}

fn main() {
    // Samples of a damped oscillation with a deterministic wobble standing in for noise.
    let truth = [1.5, 0.3, 2.0, 0.4];
    let t: Vec<f64> = (0..200).map(|i| i as f64 * 0.05).collect();
    let y = t
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            truth[0] * (-truth[1] * t).exp() * (truth[2] * t + truth[3]).cos()
                + 0.01 * (i as f64 * 1.7).sin()
        })
        .collect();
    let data = Data { t, y };
    let p = [1.2, 0.25, 2.1, 0.3];

    println!("loss(p) = {:.12}", data.loss(&p));
    let g = data.gradient(&p);
    let mut worst: f64 = 0.0;
    println!(
        "{:<10} {:>20} {:>20}",
        "", "Umbra (reverse)", "finite difference"
    );
    for (i, name) in ["a", "b", "c", "d"].iter().enumerate() {
        let mut e = [0.0; 4];
        e[i] = 1.0;
        let fd = data.fd(&p, &e);
        worst = worst.max((g[i] - fd).abs() / fd.abs().max(1e-8));
        println!("dloss/d{name:<4} {:>20.12} {:>20.12}", g[i], fd);
    }
    let v = [0.3, -0.2, 0.5, 1.0];
    let tangent = data.tangent(&p, &v);
    let fd = data.fd(&p, &v);
    worst = worst.max((tangent - fd).abs() / fd.abs().max(1e-8));
    println!("tangent    {tangent:>20.12} {fd:>20.12}   (forward mode, along v)");
    println!("largest relative difference: {worst:.2e}");
    if worst > 1e-6 {
        eprintln!("the derivatives disagree with finite differences");
        std::process::exit(1);
    }
}
