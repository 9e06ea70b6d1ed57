//! Which lanes of a vector of pointers may address the same memory.
//!
//! The adjoint of a scatter or gather must handle lanes that share an address (a scatter's
//! highest lane wins; a gather's lanes each add to the one shadow), which in general means one
//! masked access per lane. The vectoriser's addresses are usually `base + constant per lane`
//! (a vector GEP over `splat(i) + <0, 40, 80, ...>`), and then the lanes are provably apart.
//! [`lanes_disjoint`] proves it: it splits a vector of pointers into a part common to every
//! lane (never inspected) and a constant byte offset per lane, and succeeds only when every two
//! lanes' accesses of `access_bytes` do not overlap. Arithmetic is modulo 2^64, as addresses
//! are, so wrapping cannot fake a distance: index vectors narrower than 64 bits (which the GEP
//! sign-extends) are not taken apart.

use crate::ir::{Module, Opcode, TyKind, Val};
use std::collections::HashMap;

/// Lane constants assumed for phis being examined (`None` while looking for a starting value).
type Assumed = HashMap<Val, Option<Vec<i64>>>;

/// True when the `access_bytes`-byte accesses at the lanes of `ptrs` (a vector of pointers)
/// cannot overlap one another.
pub fn lanes_disjoint(m: Module, ptrs: Val, access_bytes: u64) -> bool {
    let ty = ptrs.ty();
    if ty.kind() != TyKind::Vector {
        return false;
    }
    let Some(offsets) = pointer_lanes(m, ptrs, ty.vector_len(), 16, &mut Assumed::new()) else {
        return false;
    };
    offsets.iter().enumerate().all(|(i, a)| {
        offsets[i + 1..]
            .iter()
            .all(|b| a.wrapping_sub(*b).unsigned_abs() >= access_bytes)
    })
}

/// True when every lane of `ptrs` (a vector of pointers) holds the same address: a splat, as
/// the vectoriser writes a loop-invariant element read in every lane.
pub fn lanes_uniform(m: Module, ptrs: Val) -> bool {
    let ty = ptrs.ty();
    ty.kind() == TyKind::Vector
        && pointer_lanes(m, ptrs, ty.vector_len(), 16, &mut Assumed::new())
            .is_some_and(|o| o.iter().all(|x| *x == o[0]))
}

/// Per-lane constant byte offsets of a vector of `n` pointers whose variable part is the same
/// in every lane.
fn pointer_lanes(m: Module, p: Val, n: u32, depth: u32, seen: &mut Assumed) -> Option<Vec<i64>> {
    if p.ty().kind() != TyKind::Vector {
        return Some(vec![0; n as usize]); // a scalar base: the same in every lane
    }
    if depth == 0 || !p.is_instruction() {
        return None;
    }
    match p.opcode() {
        Opcode::LLVMShuffleVector => splat(p, n),
        Opcode::LLVMGetElementPtr => {
            let mut off = pointer_lanes(m, p.operand(0), n, depth - 1, seen)?;
            let mut ty = p.gep_source_type();
            let mut scale = m.alloc_size(ty) as i64;
            for k in 1..p.num_operands() {
                let idx = p.operand(k);
                if k > 1 {
                    match ty.kind() {
                        TyKind::Struct => {
                            // Struct indices are constants (splat vectors of them included).
                            let field = uniform_const(idx)?;
                            let f = u32::try_from(field).ok()?;
                            let fields = ty.struct_fields();
                            let next = *fields.get(f as usize)?;
                            let at = m.field_offset(ty, f) as i64;
                            off.iter_mut().for_each(|o| *o = o.wrapping_add(at));
                            ty = next;
                            continue;
                        }
                        TyKind::Array | TyKind::Vector => {
                            ty = ty.element();
                            scale = m.alloc_size(ty) as i64;
                        }
                        _ => return None,
                    }
                }
                let lanes = index_lanes(idx, n, depth - 1, seen)?;
                for (o, c) in off.iter_mut().zip(lanes) {
                    *o = o.wrapping_add(c.wrapping_mul(scale));
                }
            }
            Some(off)
        }
        _ => None,
    }
}

/// Per-lane constants of a vector of 64-bit integers `splat(u) + c` (a scalar is the same in
/// every lane).
fn index_lanes(v: Val, n: u32, depth: u32, seen: &mut Assumed) -> Option<Vec<i64>> {
    let ty = v.ty();
    if ty.kind() != TyKind::Vector {
        return Some(vec![0; n as usize]);
    }
    if !ty.element().is_int() || ty.element().int_width() != 64 {
        return None;
    }
    if v.is_constant() {
        return (0..n)
            .map(|k| v.aggregate_element(k)?.const_int_sext())
            .collect();
    }
    if depth == 0 || !v.is_instruction() {
        return None;
    }
    let mut both = |v: Val| {
        Some((
            index_lanes(v.operand(0), n, depth - 1, seen)?,
            index_lanes(v.operand(1), n, depth - 1, seen)?,
        ))
    };
    match v.opcode() {
        Opcode::LLVMShuffleVector => splat(v, n),
        Opcode::LLVMPHI => phi_lanes(v, n, depth, seen),
        // `or disjoint` has no carries: it is an `add` (the vectoriser's `k * 10 + 1`).
        Opcode::LLVMOr if v.is_disjoint() => {
            let (a, b) = both(v)?;
            Some(a.iter().zip(b).map(|(x, y)| x.wrapping_add(y)).collect())
        }
        Opcode::LLVMAdd => {
            let (a, b) = both(v)?;
            Some(a.iter().zip(b).map(|(x, y)| x.wrapping_add(y)).collect())
        }
        Opcode::LLVMSub => {
            let (a, b) = both(v)?;
            Some(a.iter().zip(b).map(|(x, y)| x.wrapping_sub(y)).collect())
        }
        // (u + c) * k = u * k + c * k when k is the same in every lane.
        Opcode::LLVMMul => {
            let (x, k) = match uniform_const(v.operand(1)) {
                Some(k) => (v.operand(0), k),
                None => (v.operand(1), uniform_const(v.operand(0))?),
            };
            let a = index_lanes(x, n, depth - 1, seen)?;
            Some(a.iter().map(|c| c.wrapping_mul(k)).collect())
        }
        Opcode::LLVMShl => {
            let k = uniform_const(v.operand(1))?;
            let a = index_lanes(v.operand(0), n, depth - 1, seen)?;
            let k = u32::try_from(k).ok().filter(|k| *k < 64)?;
            Some(a.iter().map(|c| c.wrapping_shl(k)).collect())
        }
        _ => None,
    }
}

/// A vector induction variable `phi [<0, 1, ...>, entry], [phi + splat(step), latch]`: its
/// lanes keep the constants of its starting value when every incoming value has the same
/// constants (up to an amount common to every lane), assuming the phi has them. The first
/// incoming value that does not depend on the phi is the starting value.
fn phi_lanes(v: Val, n: u32, depth: u32, seen: &mut Assumed) -> Option<Vec<i64>> {
    if let Some(a) = seen.get(&v) {
        return a.clone();
    }
    let incoming: Vec<Val> = v.incoming().into_iter().map(|(x, _)| x).collect();
    seen.insert(v, None);
    let start = incoming
        .iter()
        .find_map(|&x| index_lanes(x, n, depth - 1, seen))
        .map(relative);
    seen.insert(v, start.clone());
    let start = start?;
    let agree = incoming
        .iter()
        .all(|&x| index_lanes(x, n, depth - 1, seen).map(relative).as_ref() == Some(&start));
    seen.remove(&v);
    agree.then_some(start)
}

/// Lane constants relative to lane 0 (what differs between lanes).
fn relative(c: Vec<i64>) -> Vec<i64> {
    let first = c.first().copied().unwrap_or(0);
    c.into_iter().map(|x| x.wrapping_sub(first)).collect()
}

/// Zero offsets when `v` is a shuffle that reads one lane into every lane (a splat).
fn splat(v: Val, n: u32) -> Option<Vec<i64>> {
    let mask = v.shuffle_mask();
    let first = mask.first().copied().flatten()?;
    (mask.len() == n as usize && mask.iter().all(|m| *m == Some(first)))
        .then(|| vec![0; n as usize])
}

/// The value of an integer constant, or of a vector constant with the same value in each lane.
fn uniform_const(v: Val) -> Option<i64> {
    if let Some(c) = v.const_int_sext() {
        return Some(c);
    }
    if !v.is_constant() || v.ty().kind() != TyKind::Vector {
        return None;
    }
    let n = v.ty().vector_len();
    let first = v.aggregate_element(0)?.const_int_sext()?;
    (1..n)
        .all(|k| v.aggregate_element(k).and_then(|e| e.const_int_sext()) == Some(first))
        .then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_test_module;
    use inkwell::context::Context;

    /// The first vector-of-pointers GEP feeding a scatter in `f`'s body.
    fn scatter_address(m: Module) -> Val {
        let f = m.function("f").expect("f");
        f.blocks()
            .into_iter()
            .flat_map(|b| b.instructions())
            .find(|i| {
                i.is_call()
                    && i.called_function()
                        .is_some_and(|c| c.name().starts_with("llvm.masked.scatter"))
            })
            .map(|i| i.operand(1))
            .expect("a scatter")
    }

    fn disjoint(body: &str, bytes: u64) -> bool {
        let ctx = Context::create();
        let ir = format!(
            "target datalayout = \"e-m:e-i64:64-n8:16:32:64-S128\"\n\
             define void @f(ptr %p, i64 %i, <4 x double> %v, <4 x i64> %w) {{\n{body}\n  \
             call void @llvm.masked.scatter.v4f64.v4p0(<4 x double> %v, <4 x ptr> %a, \
             <4 x i1> splat (i1 true))\n  ret void\n}}"
        );
        let module = parse_test_module(&ctx, &ir);
        let m = Module(module.as_mut_ptr());
        m.verify().expect("valid test IR");
        lanes_disjoint(m, scatter_address(m), bytes)
    }

    const SPLAT_I: &str = "  %s0 = insertelement <4 x i64> poison, i64 %i, i64 0\n  \
         %s = shufflevector <4 x i64> %s0, <4 x i64> poison, <4 x i32> zeroinitializer";

    #[test]
    fn strided_lanes_from_a_splat_are_disjoint() {
        let body = format!(
            "{SPLAT_I}\n  %x = add <4 x i64> %s, <i64 0, i64 5, i64 10, i64 15>\n  \
             %g = getelementptr double, ptr %p, <4 x i64> %x\n  \
             %a = getelementptr i8, <4 x ptr> %g, i64 24"
        );
        assert!(disjoint(&body, 8));
    }

    #[test]
    fn lanes_closer_than_the_access_overlap() {
        let body = format!(
            "{SPLAT_I}\n  %x = add <4 x i64> %s, <i64 0, i64 1, i64 2, i64 3>\n  \
             %a = getelementptr i32, ptr %p, <4 x i64> %x"
        );
        assert!(!disjoint(&body, 8), "4-byte steps, 8-byte accesses");
        assert!(disjoint(&body, 4));
    }

    #[test]
    fn repeated_lanes_are_not_disjoint() {
        let body = format!(
            "{SPLAT_I}\n  %x = add <4 x i64> %s, <i64 0, i64 1, i64 0, i64 3>\n  \
             %a = getelementptr double, ptr %p, <4 x i64> %x"
        );
        assert!(!disjoint(&body, 8));
    }

    #[test]
    fn scaled_and_shifted_indices_keep_their_distances() {
        let body = format!(
            "{SPLAT_I}\n  %x = add <4 x i64> %s, <i64 0, i64 1, i64 2, i64 3>\n  \
             %y = mul <4 x i64> %x, splat (i64 3)\n  %z = shl <4 x i64> %y, splat (i64 1)\n  \
             %a = getelementptr double, ptr %p, <4 x i64> %z"
        );
        assert!(disjoint(&body, 8));
        let zero = format!(
            "{SPLAT_I}\n  %x = add <4 x i64> %s, <i64 0, i64 1, i64 2, i64 3>\n  \
             %y = mul <4 x i64> %x, zeroinitializer\n  \
             %a = getelementptr double, ptr %p, <4 x i64> %y"
        );
        assert!(
            !disjoint(&zero, 8),
            "times zero puts every lane at one address"
        );
    }

    #[test]
    fn disjoint_or_adds_like_add() {
        // The vectoriser writes `k * 10 + 1` as `or disjoint (k * 10), 1` (gmm's means).
        let body = format!(
            "{SPLAT_I}\n  %x = add <4 x i64> %s, <i64 0, i64 1, i64 2, i64 3>\n  \
             %y = mul <4 x i64> %x, splat (i64 10)\n  \
             %z = or disjoint <4 x i64> %y, splat (i64 1)\n  \
             %a = getelementptr double, ptr %p, <4 x i64> %z"
        );
        assert!(disjoint(&body, 8));
        // Without `disjoint` an `or` may merge lanes (`x | 1` of 0 and 1 is 1 in both).
        let plain = format!(
            "{SPLAT_I}\n  %x = add <4 x i64> %s, <i64 0, i64 1, i64 2, i64 3>\n  \
             %z = or <4 x i64> %x, splat (i64 1)\n  \
             %a = getelementptr double, ptr %p, <4 x i64> %z"
        );
        assert!(!disjoint(&plain, 8));
    }

    #[test]
    fn unknown_lane_values_are_not_disjoint() {
        assert!(!disjoint(
            "  %a = getelementptr double, ptr %p, <4 x i64> %w",
            8
        ));
        let body = format!(
            "{SPLAT_I}\n  %x = add <4 x i64> %s, %w\n  \
             %a = getelementptr double, ptr %p, <4 x i64> %x"
        );
        assert!(!disjoint(&body, 8));
    }

    #[test]
    fn splat_addresses_are_uniform() {
        let ctx = Context::create();
        let ir = "target datalayout = \"e-m:e-i64:64-n8:16:32:64-S128\"\n\
             define void @f(ptr %p, i64 %i, <4 x double> %v) {\n  \
             %q = getelementptr double, ptr %p, i64 %i\n  \
             %s0 = insertelement <4 x ptr> poison, ptr %q, i64 0\n  \
             %a = shufflevector <4 x ptr> %s0, <4 x ptr> poison, <4 x i32> zeroinitializer\n  \
             call void @llvm.masked.scatter.v4f64.v4p0(<4 x double> %v, <4 x ptr> %a, \
             <4 x i1> splat (i1 true))\n  \
             %b = getelementptr double, <4 x ptr> %a, <4 x i64> <i64 0, i64 0, i64 1, i64 0>\n  \
             call void @llvm.masked.scatter.v4f64.v4p0(<4 x double> %v, <4 x ptr> %b, \
             <4 x i1> splat (i1 true))\n  ret void\n}";
        let module = parse_test_module(&ctx, ir);
        let m = Module(module.as_mut_ptr());
        let a = scatter_address(m);
        assert!(lanes_uniform(m, a));
        assert!(!lanes_disjoint(m, a, 8));
        let b = a
            .users()
            .into_iter()
            .find(|u| u.opcode() == Opcode::LLVMGetElementPtr);
        assert!(!lanes_uniform(m, b.expect("%b")), "one lane steps away");
    }

    /// A loop whose address is a GEP over a vector induction variable (`%v + <0..3> * k`).
    fn induction(step: &str, scale: &str) -> bool {
        let ctx = Context::create();
        let ir = format!(
            "target datalayout = \"e-m:e-i64:64-n8:16:32:64-S128\"\n\
             define void @f(ptr %p, <4 x double> %v, i1 %c) {{\n\
             entry:\n  br label %loop\n\
             loop:\n  %iv = phi <4 x i64> [ <i64 0, i64 1, i64 2, i64 3>, %entry ], \
             [ %next, %loop ]\n  \
             %x = mul <4 x i64> %iv, {scale}\n  \
             %a = getelementptr double, ptr %p, <4 x i64> %x\n  \
             call void @llvm.masked.scatter.v4f64.v4p0(<4 x double> %v, <4 x ptr> %a, \
             <4 x i1> splat (i1 true))\n  \
             %next = add <4 x i64> %iv, {step}\n  \
             br i1 %c, label %loop, label %done\n\
             done:\n  ret void\n}}"
        );
        let module = parse_test_module(&ctx, &ir);
        let m = Module(module.as_mut_ptr());
        m.verify().expect("valid test IR");
        lanes_disjoint(m, scatter_address(m), 8)
    }

    #[test]
    fn vector_induction_variables_keep_their_lanes_apart() {
        assert!(induction("splat (i64 4)", "splat (i64 10)"));
        assert!(
            !induction("<i64 4, i64 4, i64 3, i64 4>", "splat (i64 10)"),
            "a step that differs between lanes can bring lanes together"
        );
        assert!(!induction(
            "splat (i64 4)",
            "<i64 10, i64 10, i64 0, i64 10>"
        ));
    }

    #[test]
    fn narrow_indices_are_not_taken_apart() {
        let body = "  %a = getelementptr double, ptr %p, <4 x i32> <i32 0, i32 1, i32 2, i32 3>";
        assert!(!disjoint(body, 8));
    }
}
