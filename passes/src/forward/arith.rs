//! Tangents of floating-point arithmetic, and of integer bit operations on shadow bits (floats
//! moved through integers by `-O2` code: packing two floats into an `i64`, say).

use super::function::ForwardFn;
use crate::diag::{Error, Result};
use crate::ir::{Opcode, Val};

impl ForwardFn<'_> {
    /// `fadd`, `fsub`, `fmul`, `fdiv`, `frem`.
    pub(super) fn visit_float_binop(&mut self, i: Val) -> Result<()> {
        let r = self.clone_primal(i);
        if !self.is_active(i) {
            return Ok(());
        }
        let (a, b) = (self.map(i.operand(0)), self.map(i.operand(1)));
        let (da, db) = (self.tangent(i.operand(0)), self.tangent(i.operand(1)));
        let bld = &mut self.b;
        let t = match i.opcode() {
            Opcode::LLVMFAdd => sum(bld, da, db),
            Opcode::LLVMFSub => match (da, db) {
                (Some(x), Some(y)) => Some(bld.fsub(x, y)),
                (Some(x), None) => Some(x),
                (None, Some(y)) => Some(bld.fneg(y)),
                (None, None) => None,
            },
            Opcode::LLVMFMul => {
                let t1 = da.map(|x| bld.fmul(x, b));
                let t2 = db.map(|y| bld.fmul(a, y));
                sum(bld, t1, t2)
            }
            Opcode::LLVMFDiv => {
                // d(a/b) = (da - r db) / b
                let rdb = db.map(|y| bld.fmul(r, y));
                let num = match (da, rdb) {
                    (Some(x), Some(y)) => Some(bld.fsub(x, y)),
                    (Some(x), None) => Some(x),
                    (None, Some(y)) => Some(bld.fneg(y)),
                    (None, None) => None,
                };
                num.map(|n| bld.fdiv(n, b))
            }
            _ => {
                // frem: r = a - b * trunc(a / b), so dr = da - trunc(a / b) db
                let q = bld.fdiv(a, b);
                let tq = bld.math("llvm.trunc", &[q]);
                let tdb = db.map(|y| bld.fmul(tq, y));
                match (da, tdb) {
                    (Some(x), Some(y)) => Some(bld.fsub(x, y)),
                    (Some(x), None) => Some(x),
                    (None, Some(y)) => Some(bld.fneg(y)),
                    (None, None) => None,
                }
            }
        };
        self.set_tangent(i, t);
        Ok(())
    }

    /// Shifts and bitwise logic on integers that hold differentiable bytes. The same operation
    /// applied to the shadow bits moves the tangent's bits exactly as the primal's move, which
    /// is right for packing and unpacking (shifts, `or` of disjoint fields, masks) and for sign
    /// flips (`xor` with the sign bit). An `and` that clears a float's sign bit is an integer
    /// `fabs`, whose derivative is not a bit operation: that is refused.
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
                let (active, other) = if ax { (0, y) } else { (1, x) };
                if i.opcode() == Opcode::LLVMAnd && clears_sign_bit(other) {
                    return Err(Error::at(
                        i,
                        "integer 'and' clearing the sign bit of floating-point data (an integer fabs) cannot be differentiated; use fabs()",
                    ));
                }
                self.emit_with_tangents(i, &[active])?
            }
        };
        self.set_tangent(i, Some(t));
        Ok(())
    }
}

/// `a + b` where either may be zero (`None`).
pub(super) fn sum(b: &mut crate::ir::Builder, x: Option<Val>, y: Option<Val>) -> Option<Val> {
    match (x, y) {
        (Some(x), Some(y)) => Some(b.fadd(x, y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// True for the masks `0x7fffffff` / `0x7fffffffffffffff` that clear a float's sign bit.
fn clears_sign_bit(mask: Val) -> bool {
    let Some(m) = mask.const_int_value() else {
        return false;
    };
    let w = mask.ty().int_width();
    (w == 32 && m == 0x7fff_ffff) || (w == 64 && m == 0x7fff_ffff_ffff_ffff)
}
