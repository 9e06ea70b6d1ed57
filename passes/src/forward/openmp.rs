//! OpenMP in forward mode: a parallel region runs its outlined function's forward derivative
//! through `__kmpc_fork_call`, each captured variable followed by its shadow, so every thread
//! computes the tangents of exactly the iterations it computes. Tangent stores go where the
//! thread's primal stores go (disjoint when the primal's are), reductions add tangents in the
//! same critical section or with the same atomic add as the primal (`rules/openmp.rs` keeps
//! libomp off its tree method), so forward mode needs no synchronisation of its own.

use super::function::ForwardFn;
use crate::diag::{Error, Result};
use crate::ir::{Ty, Val};
use crate::vocab::Activity;

impl ForwardFn<'_> {
    /// `__kmpc_fork_call(loc, argc, outlined, captured...)` becomes
    /// `__kmpc_fork_call(loc, argc', fwddiffe.outlined, captured and shadows...)`.
    pub(super) fn visit_fork(&mut self, i: Val) -> Result<()> {
        let Some(outlined) = crate::openmp::outlined(i) else {
            return Err(Error::at(
                i,
                "cannot differentiate this OpenMP parallel region: its outlined function is not a function defined in this module",
            ));
        };
        if self.width > 1 {
            return Err(Error::at(
                i,
                "batched forward mode (enzyme_width) cannot differentiate OpenMP parallel regions yet: the runtime passes the outlined function pointer-sized arguments only",
            ));
        }
        let args = i.call_args();
        // The runtime's global and bound thread ids carry no derivative.
        let mut acts = vec![Activity::Const, Activity::Const];
        let mut new_args = vec![self.map(args[0]), args[1]];
        let mut passed = Vec::new();
        for (k, &a) in args.iter().enumerate().skip(3) {
            passed.push(self.map(a));
            let active = self.is_active(a);
            if active && a.ty().is_ptr() {
                acts.push(Activity::Dup);
                passed.push(self.tangent_or_zero(a, i)?);
            } else if crate::openmp::captured_float(self.session.module, i, k, active, |a, p| {
                self.session.capture_bits(a, p)
            })?
            .is_some()
            {
                // A `double` captured by value: its tangent travels as the same integer's bits.
                acts.push(Activity::Dup);
                let t = self.tangent_or_zero(a, i)?;
                let t = if t.ty() == a.ty() {
                    t
                } else {
                    self.b.cast(crate::ir::Opcode::LLVMBitCast, t, a.ty())
                };
                passed.push(t);
            } else {
                acts.push(Activity::Const);
            }
        }
        let derived = self.session.declare_forward(outlined, &acts, 0)?;
        let entry = integer_entry(self.session.module, derived);
        let i32t = Ty::int(args[1].ty().context(), 32);
        new_args[1] = i32t.int_const(passed.len() as u64);
        new_args.push(entry);
        new_args.extend(passed);
        let fork = i.called_value();
        self.b.call(i.call_function_type(), fork, &new_args);
        Ok(())
    }

    /// `atomicrmw fadd p, v` (an OpenMP reduction's atomic method): the tangent is added to the
    /// shadow the same way. Its result (the old value) has no tangent path: refused when used.
    pub(super) fn visit_atomic_fadd(&mut self, i: Val) -> Result<()> {
        let (p, v) = (i.operand(0), i.operand(1));
        self.clone_primal(i);
        if !self.is_active(p) && !self.is_active(v) {
            return Ok(());
        }
        if i.has_uses() {
            return Err(Error::at(
                i,
                "this atomic add cannot be differentiated: its result (the old value) is used",
            ));
        }
        let sp = self.require_shadow(p, i)?;
        let dv = self.tangent_or_zero(v, i)?;
        self.b.atomic_fadd(sp, dv);
        Ok(())
    }
}

/// `derived` itself when every parameter is a pointer or an integer, else an internal
/// `<derived>.omp` taking each floating-point parameter as the bits of a pointer-sized
/// integer and calling `derived`: the runtime passes a microtask's arguments in integer
/// registers, and the forward derivative of an outlined function takes a `double` captured by
/// value's tangent as a `double` ([`crate::signature::FloatBits`]).
fn integer_entry(m: crate::ir::Module, derived: crate::ir::Val) -> crate::ir::Val {
    let fty = derived.function_type();
    let params = fty.param_types();
    if params.iter().all(|t| t.is_ptr() || t.is_int()) {
        return derived;
    }
    let name = format!("{}.omp", derived.name());
    if let Some(f) = m.function(&name) {
        return f;
    }
    let ctx = m.context();
    let i64t = Ty::int(ctx, 64);
    let slots: Vec<Ty> = params
        .iter()
        .map(|&t| if t.is_ptr() || t.is_int() { t } else { i64t })
        .collect();
    let f = m.add_function(&name, Ty::function(fty.return_type(), &slots, false));
    f.set_internal();
    let mut b = crate::ir::Builder::new(m);
    b.position_at_end(f.append_block("entry"));
    let args: Vec<Val> = f
        .params()
        .into_iter()
        .zip(&params)
        .map(|(p, &t)| {
            if p.ty() == t {
                return p;
            }
            let bits = Ty::int(ctx, (m.alloc_size(t) * 8) as u32);
            let narrow = b.sext_or_trunc(p, bits);
            b.cast(crate::ir::Opcode::LLVMBitCast, narrow, t)
        })
        .collect();
    let r = b.call_function(derived, &args);
    if fty.return_type().is_void() {
        b.ret_void();
    } else {
        b.ret(r);
    }
    f
}
