//! The comparisons of `umbra check` for one function, at K random points: forward tangents
//! against central finite differences of the primal at several step sizes (agreement at any
//! step passes: the best step depends on the function), reverse against forward by the dot
//! product identity <J v, w> = <v, J^T w>, and each registered rule against the derivative of
//! the body it replaces. Directions are per active argument, so a disagreement names the
//! argument that shows it. The random numbers come from a seeded SplitMix64: a run is
//! reproducible from `--seed`.

use super::harness::Entry;
use super::run::{self, EntryFn};
use super::signature::{Float, Param, Signature};
use std::collections::HashMap;

/// A small reproducible random number generator (SplitMix64).
pub struct Rng(u64);

impl Rng {
    /// Seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * u
    }

    fn vector(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.uniform(lo, hi)).collect()
    }
}

/// How to check.
pub struct Settings {
    /// Random points per function.
    pub points: usize,
    /// Seed of the random numbers.
    pub seed: u64,
    /// Inputs are drawn from [lo, hi).
    pub range: (f64, f64),
    /// Largest relative error that passes; `None`: 1e-6, or 1e-2 when floats are involved.
    pub tolerance: Option<f64>,
}

/// One disagreement beyond the tolerance.
#[derive(Debug, Clone)]
pub struct Failure {
    /// Which comparison: `forward vs finite differences`, ...
    pub check: &'static str,
    /// The argument the direction moves.
    pub argument: String,
    /// The point's number (from 1).
    pub point: usize,
    /// The relative error.
    pub error: f64,
    /// The entry of the two vectors (or products) that differ most: derivative, reference.
    pub got: f64,
    /// The reference value.
    pub expected: f64,
    /// The direction along the argument (its entries).
    pub direction: Vec<f64>,
}

/// What checking one function found.
pub struct Outcome {
    /// The worst relative error over every comparison.
    pub worst: f64,
    /// The comparisons made, by name, in order.
    pub checks: Vec<&'static str>,
    /// Disagreements beyond the tolerance.
    pub failures: Vec<Failure>,
    /// The points (inputs, constants), for naming the worst one.
    pub points: Vec<(Vec<f64>, Vec<f64>)>,
    /// Points skipped because the primal was not finite there.
    pub skipped: usize,
    /// The tolerance used.
    pub tolerance: f64,
}

/// `max |a - b| / max(|a|, |b|, floor)` with the entry where the difference is largest.
fn relative(a: &[f64], b: &[f64], floor: f64) -> (f64, f64, f64) {
    let scale = a.iter().chain(b).fold(floor, |m, x| m.max(x.abs()));
    let mut worst = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        let e = if x.is_nan() || y.is_nan() || x.is_infinite() || y.is_infinite() {
            if x == y {
                0.0
            } else {
                f64::INFINITY
            }
        } else {
            (x - y).abs() / scale
        };
        if e > worst.0 || (e.is_nan() && !worst.0.is_nan()) {
            worst = (e, *x, *y);
        }
    }
    worst
}

fn uses_f32(sig: &Signature) -> bool {
    sig.ret == Some(Float::F32)
        || sig.params.iter().any(|p| {
            matches!(
                p,
                Param::Scalar { ty: Float::F32, .. } | Param::Array { ty: Float::F32, .. }
            )
        })
}

fn dot(a: &[f64], b: &[f64]) -> (f64, f64) {
    let s: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let m: f64 = a.iter().zip(b).map(|(x, y)| (x * y).abs()).sum();
    (s, m)
}

/// Checks `sig` through its compiled `entries` (the primal's always present).
pub fn check(sig: &Signature, entries: &HashMap<Entry, EntryFn>, s: &Settings) -> Outcome {
    let f32 = uses_f32(sig);
    let tolerance = s.tolerance.unwrap_or(if f32 { 1e-2 } else { 1e-6 });
    let steps: &[f64] = if f32 {
        &[1e-1, 3e-2, 1e-2, 3e-3, 1e-3]
    } else {
        &[1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7]
    };
    let primal = entries[&Entry::Primal];
    let forwards: Vec<(Entry, &'static str)> = [
        (Entry::Forward, "forward vs finite differences"),
        (
            Entry::ForwardRule,
            "registered derivative vs finite differences",
        ),
    ]
    .into_iter()
    .filter(|(e, _)| entries.contains_key(e))
    .collect();
    let reverses: Vec<(Entry, &'static str)> = [
        (Entry::Reverse, "reverse vs forward"),
        (Entry::ReverseRule, "registered gradient vs forward"),
    ]
    .into_iter()
    .filter(|(e, _)| entries.contains_key(e))
    .collect();
    // The forward derivative reverse mode is held against: the body's, else the rule's.
    let reference = forwards.first().map(|&(e, _)| e);
    let mut out = Outcome {
        worst: 0.0,
        checks: forwards.iter().chain(&reverses).map(|&(_, n)| n).collect(),
        failures: Vec::new(),
        points: Vec::new(),
        skipped: 0,
        tolerance,
    };
    if entries.contains_key(&Entry::Forward) && entries.contains_key(&Entry::ForwardRule) {
        out.checks.push("registered derivative vs body");
    }
    if entries.contains_key(&Entry::Reverse) && entries.contains_key(&Entry::ReverseRule) {
        out.checks.push("registered gradient vs body");
    }
    let mut rng = Rng::new(s.seed);
    let (lo, hi) = s.range;
    let n_in = run::input_len(sig);
    let n_out = run::output_len(sig);
    let active: Vec<usize> = (0..sig.params.len())
        .filter(|&k| sig.params[k].active())
        .collect();
    for point in 1..=s.points {
        let inputs = rng.vector(n_in, lo, hi);
        let constants = rng.vector(run::const_len(sig), lo, hi);
        let mut weights = rng.vector(n_out, -1.0, 1.0);
        if sig.ret.is_some() {
            weights[0] = 1.0;
        }
        out.points.push((inputs.clone(), constants.clone()));
        let y = run::primal(sig, primal, &inputs, &constants);
        if y.iter().any(|v| !v.is_finite()) {
            out.skipped += 1;
            continue;
        }
        let y_scale = y.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        // Per active argument: its direction and the reference tangent.
        let mut tangents: Vec<(usize, Vec<f64>, Vec<f64>)> = Vec::new();
        for &k in &active {
            let range = run::input_range(sig, k);
            let mut dir = vec![0.0; n_in];
            for d in &mut dir[range.clone()] {
                *d = rng.uniform(-1.0, 1.0);
            }
            let mut by_entry: HashMap<Entry, Vec<f64>> = HashMap::new();
            for &(entry, name) in &forwards {
                let t = run::forward(sig, entries[&entry], &inputs, &constants, &dir);
                // The best agreement over the steps.
                let mut best = (f64::INFINITY, 0.0, 0.0);
                for &h in steps {
                    let plus: Vec<f64> = inputs.iter().zip(&dir).map(|(x, d)| x + h * d).collect();
                    let minus: Vec<f64> = inputs.iter().zip(&dir).map(|(x, d)| x - h * d).collect();
                    let yp = run::primal(sig, primal, &plus, &constants);
                    let ym = run::primal(sig, primal, &minus, &constants);
                    let fd: Vec<f64> = yp
                        .iter()
                        .zip(&ym)
                        .map(|(a, b)| (a - b) / (2.0 * h))
                        .collect();
                    let floor = 1e-8 * y_scale;
                    let r = relative(&t, &fd, floor);
                    if r.0 < best.0 || best.0.is_nan() {
                        best = r;
                    }
                }
                record(
                    &mut out,
                    tolerance,
                    name,
                    sig,
                    k,
                    point,
                    best,
                    &dir[range.clone()],
                );
                by_entry.insert(entry, t);
            }
            if let (Some(b), Some(r)) = (
                by_entry.get(&Entry::Forward),
                by_entry.get(&Entry::ForwardRule),
            ) {
                let res = relative(r, b, 1e-8 * y_scale);
                record(
                    &mut out,
                    tolerance,
                    "registered derivative vs body",
                    sig,
                    k,
                    point,
                    res,
                    &dir[range.clone()],
                );
            }
            let t = reference
                .and_then(|e| by_entry.remove(&e))
                .unwrap_or_default();
            tangents.push((k, dir, t));
        }
        let mut grads: HashMap<Entry, Vec<f64>> = HashMap::new();
        for &(entry, name) in &reverses {
            let g = run::reverse(sig, entries[&entry], &inputs, &constants, &weights);
            for (k, dir, t) in &tangents {
                if t.is_empty() {
                    continue;
                }
                let (lhs, m1) = dot(t, &weights);
                let (rhs, m2) = dot(dir, &g);
                let floor = 1e-10 * (1.0 + m1 + m2);
                let res = relative(&[rhs], &[lhs], floor);
                let range = run::input_range(sig, *k);
                record(&mut out, tolerance, name, sig, *k, point, res, &dir[range]);
            }
            grads.insert(entry, g);
        }
        if let (Some(b), Some(r)) = (grads.get(&Entry::Reverse), grads.get(&Entry::ReverseRule)) {
            for &k in &active {
                let range = run::input_range(sig, k);
                let res = relative(&r[range.clone()], &b[range.clone()], 1e-8 * y_scale);
                let dir = weights.clone();
                record(
                    &mut out,
                    tolerance,
                    "registered gradient vs body",
                    sig,
                    k,
                    point,
                    res,
                    &dir,
                );
            }
        }
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn record(
    out: &mut Outcome,
    tolerance: f64,
    check: &'static str,
    sig: &Signature,
    k: usize,
    point: usize,
    (error, got, expected): (f64, f64, f64),
    direction: &[f64],
) {
    let error = if error.is_nan() { f64::INFINITY } else { error };
    if error > out.worst {
        out.worst = error;
    }
    if error > tolerance {
        out.failures.push(Failure {
            check,
            argument: sig.labels[k].clone(),
            point,
            error,
            got,
            expected,
            direction: direction.to_vec(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_error_uses_the_larger_magnitude_and_the_floor() {
        assert_eq!(relative(&[1.0, 2.0], &[1.0, 2.0], 1e-8).0, 0.0);
        let (e, got, want) = relative(&[1.0, 2.2], &[1.0, 2.0], 1e-8);
        assert!((e - 0.2 / 2.2).abs() < 1e-12 && got == 2.2 && want == 2.0);
        // Both tiny: measured against the floor.
        assert!(relative(&[1e-12], &[0.0], 1e-8).0 < 1e-3);
        assert_eq!(relative(&[f64::NAN], &[1.0], 1e-8).0, f64::INFINITY);
    }

    #[test]
    fn the_generator_is_reproducible_and_in_range() {
        let a: Vec<f64> = Rng::new(7).vector(100, 0.5, 1.5);
        assert_eq!(a, Rng::new(7).vector(100, 0.5, 1.5));
        assert!(a.iter().all(|&x| (0.5..1.5).contains(&x)));
        assert_ne!(a, Rng::new(8).vector(100, 0.5, 1.5));
    }
}
