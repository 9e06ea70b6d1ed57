//! Calling the JIT-compiled entry points of [`super::harness`] with generated values: the
//! primal's outputs at a point, a forward derivative along a direction, a gradient for output
//! weights. Every call gets fresh copies of the arrays (functions may write their inputs).
//!
//! Vectors, in parameter order: *inputs* are the active floats (a scalar, then an array's
//! elements); *constants* the inactive floats; *outputs* the result (if any), then the final
//! contents of the active arrays. The derivatives act on these vectors: forward mode maps an
//! input direction to an output tangent, reverse mode output weights to input adjoints (the
//! result's weight is 1, the seed `__enzyme_autodiff` uses).

use super::signature::{Float, Param, Signature};

/// An entry point: `void (u64 *args, u64 *shadows, u64 *results)`.
pub type EntryFn = unsafe extern "C" fn(*mut u64, *mut u64, *mut u64);

/// Memory handed to the function for an array parameter.
enum Buf {
    F64(Vec<f64>),
    F32(Vec<f32>),
}

impl Buf {
    fn new(ty: Float, values: &[f64]) -> Buf {
        match ty {
            Float::F64 => Buf::F64(values.to_vec()),
            Float::F32 => Buf::F32(values.iter().map(|&v| v as f32).collect()),
        }
    }

    fn ptr(&mut self) -> u64 {
        match self {
            Buf::F64(v) => v.as_mut_ptr() as u64,
            Buf::F32(v) => v.as_mut_ptr() as u64,
        }
    }

    fn values(&self) -> Vec<f64> {
        match self {
            Buf::F64(v) => v.clone(),
            Buf::F32(v) => v.iter().map(|&x| x as f64).collect(),
        }
    }
}

fn to_slot(ty: Float, v: f64) -> u64 {
    match ty {
        Float::F64 => v.to_bits(),
        Float::F32 => (v as f32).to_bits() as u64,
    }
}

fn from_slot(ty: Float, slot: u64) -> f64 {
    match ty {
        Float::F64 => f64::from_bits(slot),
        Float::F32 => f32::from_bits(slot as u32) as f64,
    }
}

/// The sizes of the vectors of a signature.
pub fn input_len(sig: &Signature) -> usize {
    sig.params
        .iter()
        .filter(|p| p.active())
        .map(Param::floats)
        .sum()
}

/// The number of inactive floats.
pub fn const_len(sig: &Signature) -> usize {
    sig.params
        .iter()
        .filter(|p| !p.active())
        .map(Param::floats)
        .sum()
}

/// The number of outputs.
pub fn output_len(sig: &Signature) -> usize {
    usize::from(sig.ret.is_some())
        + sig
            .params
            .iter()
            .filter(|p| p.active() && matches!(p, Param::Array { .. }))
            .map(Param::floats)
            .sum::<usize>()
}

/// Argument slots and the buffers they point to, built from `inputs` and `constants`.
struct Frame {
    args: Vec<u64>,
    shadows: Vec<u64>,
    results: Vec<u64>,
    bufs: Vec<Option<Buf>>,
    shadow_bufs: Vec<Option<Buf>>,
}

impl Frame {
    /// `shadow_in`: per input position, the tangent (forward) or nothing; `shadow_arrays`: the
    /// initial contents of active arrays' shadows, laid out like the outputs' array part.
    fn new(
        sig: &Signature,
        inputs: &[f64],
        constants: &[f64],
        tangent: Option<&[f64]>,
        weights: Option<&[f64]>,
    ) -> Frame {
        let n = sig.params.len();
        let mut f = Frame {
            args: vec![0; n],
            shadows: vec![0; n],
            results: vec![0; n + 1],
            bufs: (0..n).map(|_| None).collect(),
            shadow_bufs: (0..n).map(|_| None).collect(),
        };
        let (mut i, mut c) = (0, 0);
        // Output weights of arrays start after the result's.
        let mut w = usize::from(sig.ret.is_some());
        for (k, p) in sig.params.iter().enumerate() {
            match *p {
                Param::Int { value, .. } => f.args[k] = value as u64,
                Param::Scalar { ty, active: true } => {
                    f.args[k] = to_slot(ty, inputs[i]);
                    f.shadows[k] = to_slot(ty, tangent.map_or(0.0, |t| t[i]));
                    i += 1;
                }
                Param::Scalar { ty, active: false } => {
                    f.args[k] = to_slot(ty, constants[c]);
                    c += 1;
                }
                Param::Array { ty, len, active } => {
                    let (src, at) = if active {
                        (inputs, &mut i)
                    } else {
                        (constants, &mut c)
                    };
                    let mut b = Buf::new(ty, &src[*at..*at + len]);
                    f.args[k] = b.ptr();
                    f.bufs[k] = Some(b);
                    if active {
                        let init: Vec<f64> = match (tangent, weights) {
                            (Some(t), _) => t[*at..*at + len].to_vec(),
                            (None, Some(wt)) => wt[w..w + len].to_vec(),
                            (None, None) => vec![0.0; len],
                        };
                        let mut s = Buf::new(ty, &init);
                        f.shadows[k] = s.ptr();
                        f.shadow_bufs[k] = Some(s);
                        w += len;
                    }
                    *at += len;
                }
            }
        }
        f
    }

    fn call(&mut self, entry: EntryFn) {
        // SAFETY: `entry` was compiled from `harness::text` for this signature: it reads one
        // slot per parameter and writes at most one result slot per parameter plus one; the
        // arrays the slots point to have the lengths the signature gives and outlive the call.
        unsafe {
            entry(
                self.args.as_mut_ptr(),
                self.shadows.as_mut_ptr(),
                self.results.as_mut_ptr(),
            )
        }
    }

    /// The result slot 0, then the active arrays (`shadows`: their shadows instead).
    fn outputs(&self, sig: &Signature, shadows: bool) -> Vec<f64> {
        let mut out = Vec::new();
        if let Some(ty) = sig.ret {
            out.push(from_slot(ty, self.results[0]));
        }
        for (k, p) in sig.params.iter().enumerate() {
            if p.active() && matches!(p, Param::Array { .. }) {
                let b = if shadows {
                    &self.shadow_bufs[k]
                } else {
                    &self.bufs[k]
                };
                out.extend(b.as_ref().map(Buf::values).unwrap_or_default());
            }
        }
        out
    }
}

/// The primal's outputs at `inputs`.
pub fn primal(sig: &Signature, entry: EntryFn, inputs: &[f64], constants: &[f64]) -> Vec<f64> {
    let mut f = Frame::new(sig, inputs, constants, None, None);
    f.call(entry);
    f.outputs(sig, false)
}

/// The output tangent along input direction `dir`.
pub fn forward(
    sig: &Signature,
    entry: EntryFn,
    inputs: &[f64],
    constants: &[f64],
    dir: &[f64],
) -> Vec<f64> {
    let mut f = Frame::new(sig, inputs, constants, Some(dir), None);
    f.call(entry);
    f.outputs(sig, true)
}

/// The input adjoints for output weights `weights` (the result's weight, if any, must be 1).
pub fn reverse(
    sig: &Signature,
    entry: EntryFn,
    inputs: &[f64],
    constants: &[f64],
    weights: &[f64],
) -> Vec<f64> {
    let mut f = Frame::new(sig, inputs, constants, None, Some(weights));
    f.call(entry);
    let mut grad = Vec::new();
    let mut j = 0;
    for (k, p) in sig.params.iter().enumerate() {
        match *p {
            Param::Scalar { ty, active: true } => {
                grad.push(from_slot(ty, f.results[j]));
                j += 1;
            }
            Param::Array { active: true, .. } => grad.extend(
                f.shadow_bufs[k]
                    .as_ref()
                    .map(Buf::values)
                    .unwrap_or_default(),
            ),
            _ => {}
        }
    }
    grad
}

/// Which input positions belong to parameter `k` (empty for an inactive one).
pub fn input_range(sig: &Signature, k: usize) -> std::ops::Range<usize> {
    let start: usize = sig.params[..k]
        .iter()
        .filter(|p| p.active())
        .map(Param::floats)
        .sum();
    let len = if sig.params[k].active() {
        sig.params[k].floats()
    } else {
        0
    };
    start..start + len
}
