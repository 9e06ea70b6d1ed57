//! `float`s captured by value by OpenMP parallel regions (`firstprivate(c)` of a `float c`),
//! widened to `double`s before differentiation. clang passes such a float in the low half of
//! a pointer-sized integer (`zext (bitcast float to i32) to i64`), which the outlined function
//! takes apart again (`bitcast (trunc i64 to i32) to float`); a derivative cannot travel in
//! half an integer, but a `double` filling it can ([`crate::openmp::captured_float`]). So the
//! caller passes `bitcast (fpext c) to i64` instead and the outlined function reads
//! `fptrunc (bitcast i64 to double)`: the same float (widening is exact), with derivative 1
//! both ways.
//!
//! Guarantee: a region is rewritten only when every call of its outlined function is a
//! `__kmpc_fork_call` passing a float's bits at that position and every use of the parameter
//! takes the float back out (or forwards the parameter whole to a function doing so, clang
//! `-g`'s `.omp_outlined_debug__`, itself only called there); anything else is left alone
//! (and refused by name when differentiated).

use crate::ir::{Builder, Opcode, Ty, TyKind, Val};
use std::collections::HashSet;

/// Widens the floats captured by value by the parallel regions the functions in `functions`
/// fork.
pub fn widen_float_captures(functions: &HashSet<Val>) {
    let mut done = HashSet::new();
    for &f in functions {
        for b in f.blocks() {
            for c in b.instructions() {
                let Some(g) = crate::openmp::outlined(c) else {
                    continue;
                };
                for k in 3..c.call_args().len() {
                    if done.insert((g, k)) {
                        widen(g, k);
                    }
                }
            }
        }
    }
}

/// The float whose bits `a` carries in its low half, when `a` is `zext (bitcast float)`.
fn float_bits(a: Val) -> Option<Val> {
    let is = |v: Val, op: Opcode| v.is_instruction() && v.opcode() == op;
    if !is(a, Opcode::LLVMZExt) || a.ty().print() != "i64" {
        return None;
    }
    let b = a.operand(0);
    if !is(b, Opcode::LLVMBitCast) {
        return None;
    }
    let v = b.operand(0);
    (v.ty().kind() == TyKind::Float && v.ty().print() == "float").then_some(v)
}

/// Widens argument `k` of every fork of `g` and parameter `k - 1` of `g`, when all agree.
fn widen(g: Val, k: usize) {
    let users = g.users();
    let all_forks = !users.is_empty()
        && users.iter().all(|&c| {
            crate::openmp::outlined(c) == Some(g)
                && c.call_args()
                    .get(k)
                    .is_some_and(|&a| float_bits(a).is_some())
        });
    let Some(&p) = g.params().get(k - 1) else {
        return;
    };
    if !all_forks || !takes_float(p, 0) {
        return;
    }
    let m = g.module();
    let ctx = m.context();
    let (f64t, i64t) = (Ty::double(ctx), Ty::int(ctx, 64));
    let mut b = Builder::new(m);
    for c in users {
        let Some(v) = c.call_args().get(k).and_then(|&a| float_bits(a)) else {
            continue;
        };
        b.position_before(c);
        let wide = b.fp_cast(v, f64t);
        let bits = b.cast(Opcode::LLVMBitCast, wide, i64t);
        c.set_operand(k as u32, bits);
    }
    rewrite(p, &mut b);
}

/// True when every use of the `i64` parameter `p` takes a float out of its low half
/// (`bitcast (trunc p to i32) to float`), or passes `p` whole to a function with a body, called
/// only there, whose parameter does the same.
fn takes_float(p: Val, depth: u32) -> bool {
    depth < 4
        && p.users().into_iter().all(|u| match u.opcode() {
            Opcode::LLVMTrunc => {
                u.ty().print() == "i32"
                    && u.users()
                        .into_iter()
                        .all(|b| b.opcode() == Opcode::LLVMBitCast && b.ty().print() == "float")
            }
            Opcode::LLVMCall => forwarded(u, p).is_some_and(|q| takes_float(q, depth + 1)),
            _ => false,
        })
}

/// The parameter of the function `call` calls directly that receives `p`, once, when that
/// function has a body and `call` is its only use.
fn forwarded(call: Val, p: Val) -> Option<Val> {
    let h = call.called_function().filter(|h| !h.is_declaration())?;
    if call.called_value() != h || h.users().len() != 1 {
        return None;
    }
    let args = call.call_args();
    let mut at = args
        .iter()
        .enumerate()
        .filter(|(_, &a)| a == p)
        .map(|(j, _)| j);
    let j = at.next()?;
    if at.next().is_some() {
        return None;
    }
    h.params().get(j).copied()
}

/// Makes the uses of `p`, which now carries a double's bits, read `fptrunc` of that double.
fn rewrite(p: Val, b: &mut Builder) {
    let Some(f) = p.parent_function() else {
        return;
    };
    let ctx = f.module().context();
    let Some(first) = f.entry_block().first_instruction() else {
        return;
    };
    b.position_before(first);
    let wide = b.cast(Opcode::LLVMBitCast, p, Ty::double(ctx));
    let narrow = b.fp_cast(wide, Ty::float(ctx));
    for u in p.users() {
        match u.opcode() {
            Opcode::LLVMTrunc => {
                for bc in u.users() {
                    bc.replace_all_uses_with(narrow);
                    bc.erase();
                }
                u.erase();
            }
            Opcode::LLVMCall => {
                if let Some(q) = forwarded(u, p) {
                    rewrite(q, b);
                }
            }
            _ => {}
        }
    }
}
