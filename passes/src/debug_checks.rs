//! `--debug-checks` (plugin: `debug-checks`): run-time checks in derived code that stop at the
//! first derivative gone wrong, naming the instruction it came from.
//!
//! - Forward mode: after each instruction with a floating-point tangent (a scalar or a vector,
//!   any of whose lanes counts), the tangent must be
//!   finite where the primal value is ([`tangent`]); after each pointer with a shadow, the
//!   shadow must not be null where the primal is not ([`shadow`]).
//! - Reverse mode: each addition into an adjoint must leave it finite where it was finite
//!   before ([`adjoint`]): the instruction whose adjoint made the contribution is the one
//!   named. (The adjoint sweep holds the primal values only where the tape or a rebuild
//!   provides them, so reverse mode judges by the adjoint before the addition instead.) Shadow
//!   pointers of the forward sweep are checked like forward mode's.
//!
//! A violation prints one line, `umbra: non-finite adjoint of 'sqrt' at model.c:42:17 in
//! 'energy' (reverse mode)` (the instruction's text when it has no debug location), and
//! aborts; with `UMBRA_DEBUG=warn` in the environment it prints every violation and goes on.
//! The checks are calls of small internal helpers named with
//! [`crate::rules::inactive::CHECK_PREFIX`], so derived code stays differentiable (they run in
//! the primal only). Without the option nothing here is called: the code is unchanged.

use crate::diag::Location;
use crate::ir::{Builder, IntPred, Module, RealPred, Ty, Val};
use crate::rules::inactive::CHECK_PREFIX;

/// Which derivative a check is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A forward-mode tangent.
    Tangent,
    /// A reverse-mode adjoint.
    Adjoint,
}

/// What source instruction `i` is called in messages: the callee for a call (`sqrt`, also
/// for `llvm.sqrt.f64`), else its opcode (`fdiv`, `load`, ...).
fn what(i: Val) -> String {
    if i.is_call() {
        if let Some(f) = i.called_function() {
            let name = f.name();
            if let Some(rest) = name.strip_prefix("llvm.") {
                return rest.split('.').next().unwrap_or(rest).to_string();
            }
            return name;
        }
        return "indirect call".to_string();
    }
    let text = i.print();
    let after = text
        .split_once(" = ")
        .map_or(text.trim(), |(_, r)| r.trim());
    after
        .split_whitespace()
        .next()
        .unwrap_or("instruction")
        .to_string()
}

/// The one-line message for instruction `i` of the function being differentiated.
fn message(i: Val, problem: &str, mode: &str) -> String {
    let loc = Location::of_instruction(i);
    let at = match (&loc.source, &loc.instruction) {
        (Some(src), _) => src.clone(),
        (None, Some(inst)) => format!("'{}'", inst.trim()),
        (None, None) => "an unknown place".to_string(),
    };
    let function = loc.function.unwrap_or_default();
    format!(
        "{problem} of '{}' at {at} in '{function}' ({mode})",
        what(i)
    )
}

/// The text constant of a message and its length as an `intptr`.
fn text(m: Module, message: &str) -> (Val, Val) {
    let (g, len) = crate::unwind::fatal_text(m, message);
    (g, m.intptr_ty().int_const(len))
}

/// Forward mode: after source instruction `i` whose primal copy is `primal` and tangent
/// `t` (scalars or vectors of floats): `t` must be finite where `primal` is.
pub fn tangent(b: &mut Builder, i: Val, primal: Val, t: Val) {
    if !is_checkable_float(primal) || primal.ty() != t.ty() {
        return;
    }
    let m = b.module();
    let (g, len) = text(m, &message(i, "non-finite tangent", "forward mode"));
    let helper = finite_helper(m, primal.ty());
    b.call_function(helper, &[primal, t, g, len]);
}

/// Reverse mode: `before` is the adjoint of a value before the adjoint of source instruction
/// `i` added to it, `after` the sum.
pub fn adjoint(b: &mut Builder, i: Val, before: Val, after: Val) {
    if !is_checkable_float(before) || before.ty() != after.ty() {
        return;
    }
    let m = b.module();
    let (g, len) = text(m, &message(i, "non-finite adjoint", "reverse mode"));
    let helper = finite_helper(m, before.ty());
    b.call_function(helper, &[before, after, g, len]);
}

/// After source instruction `i` whose primal copy is pointer `primal` and shadow `s`: the
/// shadow must not be null where the primal is not.
pub fn shadow(b: &mut Builder, i: Val, primal: Val, s: Val, kind: Kind) {
    if !primal.ty().is_ptr() || !s.ty().is_ptr() || primal.ty().is_vector() {
        return;
    }
    let mode = match kind {
        Kind::Tangent => "forward mode",
        Kind::Adjoint => "reverse mode",
    };
    let m = b.module();
    let (g, len) = text(m, &message(i, "null shadow pointer", mode));
    let helper = null_helper(m);
    b.call_function(helper, &[primal, s, g, len]);
}

/// Floating-point scalars and fixed vectors of them (vectorised code: any lane counts).
fn is_checkable_float(v: Val) -> bool {
    let t = v.ty();
    t.is_fp_or_fp_vector() && !t.is_scalable_vector()
}

/// `void umbra.check.finite.<ty>(ty a, ty b, ptr text, intptr len)`: reports when `a` is
/// finite and `b` is not.
fn finite_helper(m: Module, ty: Ty) -> Val {
    let name = format!("{CHECK_PREFIX}finite.{}", ty.print());
    if let Some(f) = m.function(&name) {
        return f;
    }
    let ctx = m.context();
    let (ptr, intptr) = (Ty::ptr(ctx), m.intptr_ty());
    let f = m.add_function(
        &name,
        Ty::function(Ty::void(ctx), &[ty, ty, ptr, intptr], false),
    );
    f.set_internal();
    let p = f.params();
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let report = f.append_block("report");
    let done = f.append_block("done");
    b.position_at_end(entry);
    let inf = ty.float_const(f64::INFINITY);
    let fa = b.intrinsic("llvm.fabs", &[ty], &[p[0]]);
    let fb = b.intrinsic("llvm.fabs", &[ty], &[p[1]]);
    let (Some(fa), Some(fb)) = (fa, fb) else {
        // No `fabs` for this type: no check (LLVM has it for every scalar float type).
        b.br(done);
        b.position_at_end(report);
        b.br(done);
        b.position_at_end(done);
        b.ret_void();
        return f;
    };
    let a_finite = b.fcmp(RealPred::LLVMRealOLT, fa, inf);
    let b_finite = b.fcmp(RealPred::LLVMRealOLT, fb, inf);
    let b_bad = b.icmp(IntPred::LLVMIntEQ, b_finite, b_finite.ty().zero());
    let bad = b.binop(crate::ir::Opcode::LLVMAnd, a_finite, b_bad);
    // A vector: any lane.
    let bad = if ty.is_vector() {
        b.intrinsic("llvm.vector.reduce.or", &[bad.ty()], &[bad])
            .unwrap_or(bad)
    } else {
        bad
    };
    b.cond_br(bad, report, done);
    b.position_at_end(report);
    emit_report(&mut b, p[2], p[3]);
    b.br(done);
    b.position_at_end(done);
    b.ret_void();
    f
}

/// `void umbra.check.shadow(ptr primal, ptr shadow, ptr text, intptr len)`: reports when the
/// primal is not null and the shadow is.
fn null_helper(m: Module) -> Val {
    let name = format!("{CHECK_PREFIX}shadow");
    if let Some(f) = m.function(&name) {
        return f;
    }
    let ctx = m.context();
    let (ptr, intptr) = (Ty::ptr(ctx), m.intptr_ty());
    let f = m.add_function(
        &name,
        Ty::function(Ty::void(ctx), &[ptr, ptr, ptr, intptr], false),
    );
    f.set_internal();
    let p = f.params();
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let report = f.append_block("report");
    let done = f.append_block("done");
    b.position_at_end(entry);
    let null = ptr.zero();
    let primal_set = b.icmp(IntPred::LLVMIntNE, p[0], null);
    let shadow_null = b.icmp(IntPred::LLVMIntEQ, p[1], null);
    let bad = b.binop(crate::ir::Opcode::LLVMAnd, primal_set, shadow_null);
    b.cond_br(bad, report, done);
    b.position_at_end(report);
    emit_report(&mut b, p[2], p[3]);
    b.br(done);
    b.position_at_end(done);
    b.ret_void();
    f
}

/// Writes the message; aborts unless `UMBRA_DEBUG` is `warn`.
fn emit_report(b: &mut Builder, text: Val, len: Val) {
    let m = b.module();
    let ctx = m.context();
    let (i32t, ptr, intptr) = (Ty::int(ctx, 32), Ty::ptr(ctx), m.intptr_ty());
    let write = m.get_or_add_function("write", Ty::function(intptr, &[i32t, ptr, intptr], false));
    b.call_function(write, &[i32t.int_const(2), text, len]);
    let getenv = m.get_or_add_function("getenv", Ty::function(ptr, &[ptr], false));
    let strcmp = m.get_or_add_function("strcmp", Ty::function(i32t, &[ptr, ptr], false));
    let (name, _) = cstring(m, "UMBRA_DEBUG");
    let (warn, _) = cstring(m, "warn");
    let f = b.current_block().parent();
    let value = b.call_function(getenv, &[name]);
    let set = b.icmp(IntPred::LLVMIntNE, value, ptr.zero());
    let compare = f.append_block("compare");
    let stop = f.append_block("stop");
    let go_on = f.append_block("go_on");
    b.cond_br(set, compare, stop);
    b.position_at_end(compare);
    let c = b.call_function(strcmp, &[value, warn]);
    let is_warn = b.icmp(IntPred::LLVMIntEQ, c, i32t.zero());
    b.cond_br(is_warn, go_on, stop);
    b.position_at_end(stop);
    let abort = m.get_or_add_function("abort", Ty::function(Ty::void(ctx), &[], false));
    b.call_function(abort, &[]);
    b.unreachable();
    b.position_at_end(go_on);
}

/// A private NUL-terminated string constant.
fn cstring(m: Module, s: &str) -> (Val, u64) {
    // Null-terminated by LLVM.
    let arr = Val::const_string_in(m.context(), s);
    let g = m.add_global(arr.ty(), "umbra.debug.str");
    g.set_initializer(arr);
    g.set_global_constant(true);
    g.set_internal();
    (g, s.len() as u64)
}
