//! The augmented sweep's calls: the bits a call passes as integers checked, the user's
//! augmented functions, custom rule halves, and calls of derived augmented functions.

use super::*;

impl AugmentedFn<'_> {
    /// Float data passed to or returned from a differentiated call as an integer travels as
    /// the float where the callee's signature says so ([`crate::signature::FloatBits`]);
    /// anywhere else it would lose its derivative: refused.
    pub(super) fn check_call_bits(&self, call: Val) -> Result<()> {
        let ints = |v: Val| v.ty().is_int() && self.is_active(v);
        if !call.call_args().into_iter().any(ints) && !ints(call) {
            // Nothing to check: do not compute the module's type analysis for it.
            return Ok(());
        }
        let bits = match call.called_function() {
            Some(g) => self
                .session
                .float_bits_of(g, self.session.callee_context(call)),
            None => Default::default(),
        };
        let (info, m) = (self.session.types(), self.session.module);
        for (k, a) in call.call_args().into_iter().enumerate() {
            if self.is_active(a) && bits.param(k).is_none() {
                types::check_no_float_bits(info, m, a, call, "passes")?;
            }
        }
        if self.is_active(call) && bits.ret.is_none() {
            types::check_no_float_bits(info, m, call, call, "receives")?;
        }
        Ok(())
    }

    pub(super) fn visit_call(&mut self, i: Val) -> Result<()> {
        crate::openmp::check_reverse(i)?;
        if self.plan.defers_free(i) {
            // The adjoint runs it, once it is done re-reading the block; unless an exception
            // unwinds first, and then the block is released with the others.
            if let Some(dealloc) = i.called_function() {
                let args: Vec<Val> = i.call_args().iter().map(|&a| self.vals.map(a)).collect();
                if let Some((&p, extras)) = args.split_first() {
                    crate::tape::owned::record(&mut self.b, p, dealloc, extras);
                }
            }
            return Ok(());
        }
        let mut callee = reverse_callee(i, &self.active, &self.session.rules);
        if crate::devirt::is_fallback(i) && crate::signature::returns_shadow(self.src) {
            // The dispatcher (this function) returns the fallback's result with its shadow,
            // which the unknown target cannot give: the run-time error below, however inactive
            // the call looks.
            callee = ReverseCallee::NoRule;
        }
        if matches!(
            crate::rules::classify(i, &self.session.rules),
            crate::rules::Callee::Defined(_) | crate::rules::Callee::User(_)
        ) {
            self.check_call_bits(i)?;
        }
        if self.session.runs_in_parallel(self.src) {
            crate::reverse::parallel::check_parallel_callee(i, callee, |v| self.is_active(v))?;
        }
        match callee {
            ReverseCallee::Primal | ReverseCallee::Math | ReverseCallee::Free => {
                self.vals.clone_primal(&mut self.b, i);
                self.augment_sync(i)?;
            }
            ReverseCallee::Custom(rule, custom) => self.call_custom(i, rule, custom)?,
            ReverseCallee::User(u) => self.call_user_augment(i, u)?,
            ReverseCallee::Derived(g) => self.call_augmented(i, g)?,
            ReverseCallee::Parallel(g) => self.fork_augmented(i, g)?,
            ReverseCallee::NoRule if crate::devirt::is_fallback(i) => {
                // A target outside a dispatcher's candidates: stop with an error at run time
                // (the adjoint is never reached, so it emits nothing for the call).
                let message = crate::devirt::fallback_message(i);
                crate::unwind::emit_fatal_call(&mut self.b, &message);
                self.vals.clone_primal(&mut self.b, i);
            }
            ReverseCallee::NoRule => {
                return Err(crate::devirt::missing_rule_error(
                    i,
                    crate::vocab::Mode::Reverse,
                    &self.session.rules,
                ))
            }
            ReverseCallee::Unsupported(why) => return Err(unsupported_call(i, why)),
        }
        Ok(())
    }

    /// A user-registered gradient: the augmented forward function runs in place of the call
    /// (each pointer argument followed by its shadow, null when inactive). When it does not
    /// return the result, the primal call runs first to provide it.
    pub(super) fn call_user_augment(&mut self, i: Val, u: UserRule) -> Result<()> {
        let Some((aug, _)) = u.gradient else {
            return Err(crate::devirt::missing_rule_error(
                i,
                crate::vocab::Mode::Reverse,
                &self.session.rules,
            ));
        };
        let Some(layout) = augment_layout(u.primal, aug) else {
            return Err(unsupported_call(i, "malformed augmented forward function"));
        };
        if self.is_active(i) && i.ty().is_ptr() && layout.shadow.is_none() {
            return Err(Error::at(
                i,
                format!(
                    "'{}' returns a pointer with derivatives, but its augmented forward function '{}' returns no shadow for it",
                    u.primal.name(),
                    aug.name()
                ),
            ));
        }
        let mut args = Vec::new();
        for a in i.call_args() {
            args.push(self.vals.map(a));
            if a.ty().is_ptr() {
                let s = if self.is_active(a) {
                    self.shadow(a, i)?
                } else {
                    a.ty().zero()
                };
                args.push(s);
            }
        }
        if layout.result.is_none() && !i.ty().is_void() {
            self.vals.clone_primal(&mut self.b, i);
        }
        let call = self.b.call_function(aug, &args);
        let mut field = |k: usize| {
            if k == WHOLE {
                call
            } else {
                self.b.extract_value(call, k as u32)
            }
        };
        let result = layout.result.map(&mut field);
        let shadow = layout.shadow.map(&mut field);
        let tape = layout.tape.map(&mut field);
        if let Some(r) = result {
            r.set_name(&i.name());
            self.vals.set_primal(i, r);
        }
        if let Some(s) = shadow {
            self.vals.set_shadow(i, Some(s));
        }
        if let Some(t) = tape {
            self.saved.insert(i, t);
        }
        Ok(())
    }

    /// A rule with hand-written sweeps: its augment half emits the call.
    pub(super) fn call_custom(
        &mut self,
        i: Val,
        rule: &'static Rule,
        custom: &CustomReverse,
    ) -> Result<()> {
        let RuleKind::Forward(forward, _) = rule.kind else {
            return Err(unsupported_call(
                i,
                "a custom reverse rule without a forward half",
            ));
        };
        let src_args = i.call_args();
        let args: Vec<Val> = src_args.iter().map(|&a| self.vals.map(a)).collect();
        let mut shadows = Vec::new();
        for &a in &src_args {
            shadows.push(if self.is_active(a) && a.ty().is_ptr_or_ptr_vector() {
                Some(self.shadow(a, i)?)
            } else {
                None
            });
        }
        let in_place = (0..src_args.len())
            .map(|k| self.plan.array_in_place(i, k))
            .collect();
        let mut call = AugmentCall {
            b: &mut self.b,
            env: self.session,
            src: i,
            args,
            shadows,
            forward,
            in_place,
        };
        let out = (custom.augment)(&mut call)?;
        if let Some(r) = out.result {
            self.vals.set_primal(i, r);
        }
        if self.is_active(i) && i.ty().is_ptr() {
            self.vals.set_shadow(i, out.shadow);
        }
        if let Some(s) = out.saved {
            self.saved.insert(i, s);
        }
        Ok(())
    }

    pub(super) fn call_augmented(&mut self, i: Val, g: Val) -> Result<()> {
        let mut acts = Vec::new();
        let mut args = vec![self.tape];
        for (k, a) in i.call_args().into_iter().enumerate() {
            let act = arg_activity(i, k, a, self.active.arg_carries(i, k, a), |v| {
                self.is_active(v)
            });
            args.push(self.vals.map(a));
            if act.has_shadow() {
                let s = self.shadow(a, i)?;
                args.push(s);
            }
            acts.push(act);
        }
        let writes = self.plan.callee_writes(i);
        let ctx = self.session.callee_context(i);
        let (aug, _) = self.session.declare_reverse_for(g, &acts, writes, ctx)?;
        let call = self.b.call_function(aug, &args);
        if returns_shadow(g) {
            let p = self.b.extract_value(call, 0);
            p.set_name(&i.name());
            let s = self.b.extract_value(call, 1);
            self.vals.set_primal(i, p);
            self.vals.set_shadow(i, Some(s));
        } else {
            call.set_name(&i.name());
            self.vals.set_primal(i, call);
        }
        Ok(())
    }
}
