//! Tangents of instructions with partials (their formulas are rows of
//! [`crate::rules::instructions`]), and of integer bit operations on shadow bits (floats moved
//! through integers by `-O2` code: packing two floats into an `i64`, say).

use super::function::{gather, lane, ForwardFn};
use crate::analysis::types;
use crate::diag::{Error, Result};
use crate::ir::{Opcode, RealPred, Val};
use crate::rules::{linear, Partials};

impl ForwardFn<'_> {
    /// An instruction with partials (`fadd`, `fsub`, `fmul`, `fdiv`, `frem`, `fneg`): the
    /// tangent is the sum of partial times operand tangent ([`linear::combine`]).
    pub(super) fn visit_linear(&mut self, i: Val, partials: Partials) -> Result<()> {
        let r = self.clone_primal(i);
        if !self.is_active(i) {
            return Ok(());
        }
        let ops = i.operands();
        let args: Vec<Val> = ops.iter().map(|&o| self.map(o)).collect();
        let tangents: Vec<Option<Val>> = ops.iter().map(|&o| self.tangent(o)).collect();
        // An operand's tangent stands where the operand stood: `da · b + a · db`.
        let t = apply_partials(
            &mut self.b,
            partials,
            &args,
            r,
            &tangents,
            self.width,
            |k| k == 0,
        );
        self.set_tangent(i, t);
        Ok(())
    }

    /// Shifts and bitwise logic on integers that hold differentiable bytes. The same operation
    /// applied to the shadow bits moves the tangent's bits exactly as the primal's move, which
    /// is right for packing and unpacking (shifts, `or` of disjoint fields, masks) and for sign
    /// flips (`xor` with the sign bit). Clearing or setting a float's sign bit is not a bit
    /// operation on the tangent ([`ForwardFn::visit_sign_bit`]).
    pub(super) fn visit_bits(&mut self, i: Val) -> Result<()> {
        self.clone_primal(i);
        if !self.is_active(i) {
            return Ok(());
        }
        let (x, y) = (i.operand(0), i.operand(1));
        let t = match i.opcode() {
            Opcode::LLVMShl | Opcode::LLVMLShr | Opcode::LLVMAShr => {
                if self.tangent(x).is_none() {
                    return Ok(());
                }
                self.emit_with_tangents(i, &[0])?
            }
            Opcode::LLVMOr => self.emit_with_tangents(i, &[0, 1])?,
            _ => {
                let (ax, ay) = (self.tangent(x).is_some(), self.tangent(y).is_some());
                if ax && ay {
                    return Err(Error::at(
                        i,
                        "bitwise and/xor of two values that both hold floating-point bits cannot be differentiated",
                    ));
                }
                let active = if ax { 0 } else { 1 };
                self.emit_with_tangents(i, &[active])?
            }
        };
        self.set_tangent(i, Some(t));
        Ok(())
    }
}

impl ForwardFn<'_> {
    /// An integer `and` clearing (or, with `set`, `or` setting) the sign bit of the float in
    /// operand `float` (an integer `fabs` or `-fabs`, [`InstClass::SignBit`]): its tangent is
    /// the float's, times the sign ([`ForwardFn::integer_sign`]).
    ///
    /// [`InstClass::SignBit`]: crate::analysis::opcodes::InstClass::SignBit
    pub(super) fn visit_sign_bit(&mut self, i: Val, set: bool, float: u32) -> Result<()> {
        self.clone_primal(i);
        if !self.is_active(i) {
            return Ok(());
        }
        let t = self.integer_sign(i, i.operand(float), set)?;
        self.set_tangent(i, Some(t));
        Ok(())
    }

    /// The tangent of an integer `and` clearing the sign bit of `x`'s float (a hand-written
    /// fabs, as a union does it): the float tangent's sign flips where `x` is negative, and
    /// travels on as bits; with `set` (an `or` setting the sign bit, `-fabs`) it flips where
    /// `x` is not negative. The float format is the one the type analysis finds in `x`; without
    /// one the tangent bits need not be a float's, so that is refused.
    fn integer_sign(&mut self, i: Val, x: Val, set: bool) -> Result<Val> {
        let m = self.session.module;
        let fty = match types::float_bits(self.session.types(), m, x) {
            // The mask clears one sign bit: several floats packed into the integer would
            // keep their signs but one.
            Some(t) if t.is_vector() => {
                let what = if set {
                    "'or' setting"
                } else {
                    "'and' clearing"
                };
                return Err(Error::at(
                    i,
                    format!("integer {what} the top bit of several floating-point values packed into one integer cannot be differentiated; use fabs()"),
                ));
            }
            Some(t) => t,
            // Not known to be a float: its tangent bits may not be a float's either.
            None => {
                let what = if set {
                    "'or' setting"
                } else {
                    "'and' clearing"
                };
                return Err(Error::at(
                    i,
                    format!("integer {what} the sign bit of data the type analysis cannot show to be one floating-point value (an integer fabs) cannot be differentiated; use fabs()"),
                ));
            }
        };
        let px = self.map(x);
        let tx = self.tangent_or_zero(x, i)?;
        let xf = self.b.cast(Opcode::LLVMBitCast, px, fty);
        let neg = self.b.fcmp(RealPred::LLVMRealOLT, xf, fty.zero());
        // Batched, the integer tangent is an array of lanes: each lane is flipped alike.
        let lanes = (0..self.width)
            .map(|k| {
                let l = self.lane(tx, k);
                let tf = self.b.cast(Opcode::LLVMBitCast, l, fty);
                let flipped = self.b.fneg(tf);
                let t = if set {
                    self.b.select(neg, tf, flipped)
                } else {
                    self.b.select(neg, flipped, tf)
                };
                self.b.cast(Opcode::LLVMBitCast, t, i.ty())
            })
            .collect();
        Ok(self.gather(lanes))
    }
}

/// `Σ partial · tangent` of `partials` at `args` (result `r`): the tangent of an instruction or
/// math call. Partials of operands without a tangent are not kept. Batched (`width > 1`), the
/// partials are built once; vector tangents (of scalar floats) are combined with them in one
/// vector instruction per term, other tangents lane by lane.
pub(super) fn apply_partials(
    b: &mut crate::ir::Builder,
    partials: Partials,
    args: &[Val],
    r: Val,
    tangents: &[Option<Val>],
    width: u32,
    tangent_first: impl Fn(usize) -> bool,
) -> Option<Val> {
    if tangents.iter().all(Option::is_none) {
        return None;
    }
    let before = linear::mark(b);
    let ps = partials(b, args, r);
    let built = linear::built_since(b, &before);
    if width > 1 && tangents.iter().flatten().all(|t| t.ty().is_vector()) {
        // The lanes of scalar tangents are one vector: each term is one vector instruction,
        // the scalar partials broadcast to it.
        let terms: Vec<(Option<Val>, Option<Val>)> =
            ps.iter().copied().zip(tangents.iter().copied()).collect();
        let t = linear::combine(b, &terms, &tangent_first, &built);
        linear::erase_unused(built);
        return t;
    }
    let mut lanes = Vec::with_capacity(width as usize);
    for k in 0..width {
        let terms: Vec<(Option<Val>, Option<Val>)> = ps
            .iter()
            .zip(tangents)
            .map(|(&p, t)| (p, t.map(|t| lane(b, t, k, width))))
            .collect();
        lanes.push(linear::combine(b, &terms, &tangent_first, &built));
    }
    linear::erase_unused(built);
    // Every lane has the same partials, so either all lanes have a tangent or none has.
    let lanes: Option<Vec<Val>> = lanes.into_iter().collect();
    lanes.map(|l| gather(b, l))
}
