//! Adjoints of calls: math rules through their partials, the user's registered adjoints,
//! custom rule halves, and calls of derived adjoint functions.

use super::*;

impl AdjointFn<'_> {
    pub(super) fn reverse_call(&mut self, i: Val) -> Result<()> {
        if crate::openmp::ends_critical(i) {
            // Going backwards, a reduction's critical section starts here.
            self.reduction_turn_begin(i)?;
        }
        if let Some(sync) = crate::openmp::sync_kind(i) {
            self.reverse_sync(i, sync)?;
        }
        if self.plan.defers_free(i) {
            return self.defer_free(i);
        }
        match reverse_callee(i, &self.active, &self.session.rules) {
            ReverseCallee::Primal | ReverseCallee::Free => Ok(()),
            ReverseCallee::Math => self.reverse_math(i),
            ReverseCallee::Derived(g) => self.reverse_derived(i, g),
            ReverseCallee::Parallel(g) => self.reverse_fork(i, g),
            ReverseCallee::Custom(_, custom) => self.reverse_custom(i, custom),
            ReverseCallee::User(u) => self.reverse_user(i, u),
            // The augmented sweep stopped at a dispatcher's fallback with a run-time error.
            ReverseCallee::NoRule if crate::devirt::is_fallback(i) => Ok(()),
            ReverseCallee::NoRule => Err(crate::devirt::missing_rule_error(
                i,
                crate::vocab::Mode::Reverse,
                &self.session.rules,
            )),
            ReverseCallee::Unsupported(why) => {
                Err(crate::reverse::augmented::unsupported_call(i, why))
            }
        }
    }

    pub(super) fn reverse_math(&mut self, i: Val) -> Result<()> {
        let Some(d) = self.take_adjoint(i) else {
            return Ok(());
        };
        let Callee::Rule(rule) = rules::classify(i, &self.session.rules) else {
            return Ok(());
        };
        let RuleKind::Math(partials) = rule.kind else {
            return Ok(());
        };
        self.log_gradient(i, d)?;
        let src_args = i.call_args();
        let active: Vec<bool> = src_args.iter().map(|&a| self.is_active(a)).collect();
        let read = rules::partials_read(rule, i, &active);
        self.apply_partials(i, &src_args, partials, &read, d, |_| true)
    }

    /// Adds `partial · d` to the adjoint of each active operand in `ops` of `i`. Only the inputs
    /// in `read` were taped or can be rebuilt; the rest are placeholders the needed partials
    /// ignore, and the partials of inactive operands are erased unused.
    pub(super) fn apply_partials(
        &mut self,
        i: Val,
        ops: &[Val],
        partials: rules::Partials,
        read: &[bool],
        d: Val,
        d_first: impl Fn(usize) -> bool,
    ) -> Result<()> {
        let mut args = Vec::new();
        for (k, &a) in ops.iter().enumerate() {
            args.push(if read.get(k).copied().unwrap_or(false) {
                self.primal(a, i)?
            } else {
                a.ty().poison()
            });
        }
        let r = if read.get(ops.len()).copied().unwrap_or(false) {
            self.primal(i, i)?
        } else {
            i.ty().poison()
        };
        let before = linear::mark(&self.b);
        let ps = partials(&mut self.b, &args, r);
        let built = linear::built_since(&self.b, &before);
        let mut quotients = linear::Quotients::of_rule(&built);
        let pairs: Vec<(Val, Option<Val>)> = ops.iter().copied().zip(ps).collect();
        for (k, &(a, p)) in pairs.iter().enumerate() {
            let Some(p) = p else { continue };
            if !self.is_active(a) || pairs[..k].contains(&(a, Some(p))) {
                continue;
            }
            // A square `x · x` (or `fmuladd(x, x, c)`): both partials are `x`, so the
            // adjoint is `x · (d + d)`, one product; in a loop where `d` does not change (a sum
            // of squares) `d + d` is computed once before it.
            let twice = pairs[k + 1..].contains(&(a, Some(p)));
            let dk = if twice { self.b.fadd(d, d) } else { d };
            let t = linear::scale_sharing(&mut self.b, p, dk, d_first(k), &mut quotients);
            self.accumulate(a, t);
        }
        linear::erase_unused(built);
        Ok(())
    }

    /// A user-registered gradient: `grad(args with pointer shadows, [d_result], [tape])`
    /// returns the adjoints of the floating-point arguments (none, one, or a struct).
    pub(super) fn reverse_user(&mut self, i: Val, u: UserRule) -> Result<()> {
        let Some((_, grad)) = u.gradient else {
            return Err(crate::devirt::missing_rule_error(
                i,
                crate::vocab::Mode::Reverse,
                &self.session.rules,
            ));
        };
        let d = self.take_adjoint(i);
        let src_args = i.call_args();
        let mut args = Vec::new();
        for &a in &src_args {
            args.push(self.primal(a, i)?);
            if a.ty().is_ptr() {
                let s = if self.is_active(a) {
                    self.shadow(a, i)?
                } else {
                    a.ty().zero()
                };
                args.push(s);
            }
        }
        if is_float_value(i.ty()) {
            args.push(d.unwrap_or_else(|| i.ty().zero()));
        }
        if user_tape(u) {
            let Some(tape) = self.saved else {
                return Err(internal(i, "the user rule's tape was not saved"));
            };
            args.push(tape);
        }
        let res = self.b.call_function(grad, &args);
        let floats: Vec<Val> = src_args
            .into_iter()
            .filter(|a| is_float_value(a.ty()))
            .collect();
        match floats.as_slice() {
            [] => {}
            [one] => self.accumulate(*one, res),
            many => {
                for (k, &a) in many.iter().enumerate() {
                    let da = self.b.extract_value(res, k as u32);
                    self.accumulate(a, da);
                }
            }
        }
        Ok(())
    }

    /// A rule with hand-written sweeps: its adjoint half, then the scalar adjoints it returns.
    pub(super) fn reverse_custom(&mut self, i: Val, custom: &CustomReverse) -> Result<()> {
        let d_result = self.take_adjoint(i);
        let src_args = i.call_args();
        let (mut args, mut shadows, mut active) = (Vec::new(), Vec::new(), Vec::new());
        let n = src_args.len();
        for (k, &a) in src_args.iter().enumerate() {
            let act = self.is_active(a);
            let needed = custom.needs.args.includes(k, n);
            args.push(if needed {
                self.primal(a, i)?
            } else {
                a.ty().poison()
            });
            let shadow_read = needed || custom.needs.shadows_only.includes(k, n);
            shadows.push(if shadow_read && act && a.ty().is_ptr_or_ptr_vector() {
                Some(self.shadow(a, i)?)
            } else {
                None
            });
            active.push(act);
        }
        let result = if custom.needs.result && !i.ty().is_void() {
            Some(self.primal(i, i)?)
        } else {
            None
        };
        let parallel = self.session.runs_in_parallel(self.src);
        let shared = src_args
            .iter()
            .map(|&a| parallel && a.ty().is_ptr() && !crate::openmp::thread_private(a))
            .collect();
        let mut call = AdjointCall {
            b: &mut self.b,
            env: self.session,
            src: i,
            args,
            shadows,
            active,
            result,
            d_result,
            saved: self.saved,
            zeroing_dead: self.plan.zeroing_dead(i),
            shared,
        };
        let adjoints = (custom.adjoint)(&mut call)?;
        for (a, d) in src_args.into_iter().zip(adjoints) {
            if let Some(d) = d {
                self.accumulate(a, d);
            }
        }
        Ok(())
    }

    pub(super) fn reverse_derived(&mut self, i: Val, g: Val) -> Result<()> {
        let d = self.take_adjoint(i);
        let mut acts = Vec::new();
        let mut args = vec![self.tape];
        let src_args = i.call_args();
        for (k, &a) in src_args.iter().enumerate() {
            let act = arg_activity(i, k, a, self.active.arg_carries(i, k, a), |v| {
                self.is_active(v)
            });
            if crate::reverse::needs::unused_param(g, k) {
                args.push(a.ty().poison());
            } else {
                args.push(self.primal(a, i)?);
            }
            if act.has_shadow() {
                let s = self.shadow(a, i)?;
                args.push(s);
            }
            acts.push(act);
        }
        let writes = self.plan.callee_writes(i);
        let ctx = self.session.callee_context(i);
        let (_, adj) = self.session.declare_reverse_for(g, &acts, writes, ctx)?;
        let bits = self.session.float_bits_of(g, ctx);
        if returns_adjoint(g, &bits) {
            let t = crate::signature::result_derivative_ty(g, &bits);
            match d {
                Some(d) if d.ty() != t => {
                    return Err(internal(
                        i,
                        "a call's adjoint and its callee's disagree in type",
                    ))
                }
                Some(d) => args.push(d),
                None => args.push(t.zero()),
            }
        }
        let res = self.b.call_function(adj, &args);
        let mut k = 0;
        for (a, act) in src_args.into_iter().zip(acts) {
            if act == Activity::Out {
                let da = self.b.extract_value(res, k);
                self.accumulate(a, da);
                k += 1;
            }
        }
        Ok(())
    }
}
