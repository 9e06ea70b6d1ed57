//! Defined stand-ins for the undefined parts of primal code: `undef`/`poison` inside constants
//! and undefined lanes of shuffle masks.
//!
//! Vectorised code leaves lanes it never reads undefined (the SLP vectoriser's
//! `<2.0, 2.0, poison, poison>`, a widening shuffle's `undef` mask lanes). The primal is right to:
//! nothing reads those lanes. Derived code is not: a lane the primal drops still meets a zero
//! adjoint or tangent in a partial, and `0 * poison` is poison, which re-optimisation folds into
//! whatever it likes (garbage that then reaches real adjoints through the lanes around it).
//! Refining `undef`/`poison` to a value is always legal, so every copy of primal code in derived
//! functions uses these stand-ins, and every lane of derived code holds a defined value.
//!
//! Guarantee: [`Val::defined`] and [`defined_mask`] return values with no undefined part, equal
//! to their input wherever the input was defined.

use super::sys::core as c;
use super::{Builder, Ty, TyKind, Val};

impl Val {
    /// This constant with every `undef`/`poison` part replaced by a defined value: `1.0` for
    /// floats (finite, with finite partials where a formula divides by it or takes its
    /// logarithm, so a dropped lane's zero adjoint stays zero), `0` for integers, `null` for
    /// pointers. Anything else (instructions, arguments, globals, constant expressions,
    /// constants with no undefined part) is returned as it is.
    pub fn defined(self) -> Val {
        if !self.is_constant() || self.is_global_value() || self.is_constant_expr() {
            return self;
        }
        if self.is_undef() {
            return defined_value_of(self.ty());
        }
        if !has_parts(self) {
            return self;
        }
        let ty = self.ty();
        let n = match ty.kind() {
            TyKind::Struct => ty.struct_fields().len() as u32,
            TyKind::Array => ty.array_len() as u32,
            TyKind::Vector => ty.vector_len(),
            _ => return self,
        };
        let mut changed = false;
        let mut parts = Vec::with_capacity(n as usize);
        for k in 0..n {
            let Some(e) = self.aggregate_element(k) else {
                return self;
            };
            let d = e.defined();
            changed |= d != e;
            parts.push(d);
        }
        if changed {
            Val::const_aggregate(ty, &parts)
        } else {
            self
        }
    }

    /// True for functions, global variables and aliases.
    fn is_global_value(self) -> bool {
        unsafe { !c::LLVMIsAGlobalValue(self.0).is_null() }
    }
}

/// True for constants whose parts may differ from one another (vectors, arrays and structs
/// built element by element). Zero-filled constants and packed data (`ConstantDataSequential`:
/// strings, arrays and vectors of plain numbers) cannot hold `undef`.
fn has_parts(v: Val) -> bool {
    if v.is_null_constant() {
        return false;
    }
    unsafe { c::LLVMIsAConstantDataSequential(v.0).is_null() }
}

/// A defined value of type `ty`: `1.0` in floats, zero elsewhere, part by part.
fn defined_value_of(ty: Ty) -> Val {
    match ty.kind() {
        TyKind::Float => ty.float_const(1.0),
        TyKind::Vector if ty.is_fp_or_fp_vector() => ty.float_const(1.0),
        TyKind::Struct => {
            let parts: Vec<Val> = ty
                .struct_fields()
                .into_iter()
                .map(defined_value_of)
                .collect();
            Val::const_aggregate(ty, &parts)
        }
        TyKind::Array => {
            let e = defined_value_of(ty.element());
            Val::const_aggregate(ty, &vec![e; ty.array_len() as usize])
        }
        _ => ty.zero(),
    }
}

/// A shuffle mask with its undefined lanes reading lane 0 (of the first operand, which
/// [`Val::defined`] and this same rule keep defined): `None` where `mask` has no undefined
/// lane.
pub fn defined_mask(mask: &[Option<u32>]) -> Option<Vec<u32>> {
    if mask.iter().all(Option::is_some) {
        return None;
    }
    Some(mask.iter().map(|m| m.unwrap_or(0)).collect())
}

/// `shuffle`, a copy of a primal `shufflevector` just inserted by `b`, or a replacement for it
/// reading lane 0 where its mask is undefined (then `shuffle` is erased). Other instructions
/// are returned as they are.
pub fn with_defined_mask(b: &mut Builder, shuffle: Val) -> Val {
    if shuffle.opcode() != super::Opcode::LLVMShuffleVector {
        return shuffle;
    }
    let Some(mask) = defined_mask(&shuffle.shuffle_mask()) else {
        return shuffle;
    };
    let r = b.shuffle(shuffle.operand(0), shuffle.operand(1), &mask);
    if r != shuffle {
        shuffle.replace_all_uses_with(r);
        // SAFETY of the erase: `shuffle` was just inserted and its uses now go to `r`.
        shuffle.erase();
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_test_module;
    use inkwell::context::Context;

    const IR: &str = "define <4 x double> @f(<4 x double> %v, { double, i32, ptr } %s) {
  %m = fmul <4 x double> %v, <double 2.0, double 2.0, double poison, double undef>
  %p = fmul <4 x double> %v, <double 2.0, double 2.0, double 3.0, double 4.0>
  %t = insertvalue { double, i32, ptr } poison, double 1.5, 0
  %w = shufflevector <4 x double> %m, <4 x double> poison, <4 x i32> <i32 3, i32 poison, i32 6, i32 poison>
  ret <4 x double> %w
}";

    #[test]
    fn constants_lose_their_undefined_parts_and_keep_the_rest() {
        let ctx = Context::create();
        let module = parse_test_module(&ctx, IR);
        let m = crate::ir::Module(module.as_mut_ptr());
        let f = m.function("f").expect("f");
        let insts = f.entry_block().instructions();
        let d = insts[0].operand(1).defined();
        assert_eq!(
            d.print(),
            "<4 x double> <double 2.000000e+00, double 2.000000e+00, double 1.000000e+00, double 1.000000e+00>"
        );
        // No undefined part: the very same constant.
        let plain = insts[1].operand(1);
        assert_eq!(plain.defined(), plain);
        assert_eq!(
            insts[2].operand(0).defined().print(),
            "{ double, i32, ptr } { double 1.000000e+00, i32 0, ptr null }"
        );
        // Not constants: unchanged.
        assert_eq!(insts[0].defined(), insts[0]);
    }

    #[test]
    fn shuffles_read_lane_zero_where_their_mask_is_undefined() {
        assert_eq!(defined_mask(&[Some(1), Some(5)]), None);
        assert_eq!(
            defined_mask(&[Some(3), None, Some(6), None]),
            Some(vec![3, 0, 6, 0])
        );
        let ctx = Context::create();
        let module = parse_test_module(&ctx, IR);
        let m = crate::ir::Module(module.as_mut_ptr());
        let f = m.function("f").expect("f");
        let shuffle = f.entry_block().instructions()[3];
        let mut b = Builder::new(m);
        b.position_before(shuffle);
        let r = with_defined_mask(&mut b, shuffle);
        assert_eq!(r.shuffle_mask(), vec![Some(3), Some(0), Some(6), Some(0)]);
        assert_eq!(f.entry_block().instructions().len(), 5);
    }
}
