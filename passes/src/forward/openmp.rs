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
        for &a in &args[3..] {
            passed.push(self.map(a));
            if self.is_active(a) {
                if !a.ty().is_ptr() {
                    return Err(Error::at(
                        i,
                        format!(
                            "cannot differentiate this OpenMP parallel region: it captures '{}' by value, which carries a derivative (only variables captured by address are supported)",
                            crate::clone::short(a)
                        ),
                    ));
                }
                acts.push(Activity::Dup);
                passed.push(self.tangent_or_zero(a, i)?);
            } else {
                acts.push(Activity::Const);
            }
        }
        let derived = self.session.declare_forward(outlined, &acts, 0)?;
        let i32t = Ty::int(args[1].ty().context(), 32);
        new_args[1] = i32t.int_const(passed.len() as u64);
        new_args.push(derived);
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
