//! Calls: functions with a body are differentiated recursively (through the session's cache),
//! declarations go through the rule table, and a call that passes derivatives to a function
//! with neither is an error naming the callee and the ways out.

use super::arith::apply_partials;
use super::function::ForwardFn;
use crate::diag::{Error, Result};
use crate::ir::Val;
use crate::rules::user::{is_float_value, UserRule};
use crate::rules::{self, Callee, ForwardCall, RuleKind};
use crate::vocab::Activity;
use crate::vocab::Mode;

impl ForwardFn<'_> {
    /// True when fallback call `i` returns a pointer whose shadow the dispatcher (this
    /// function) returns: its `ret` needs a shadow the unknown target cannot give.
    fn returns_fallback_shadow(&self, i: Val) -> bool {
        let bits = self.session.float_bits_of(self.src, self.session.context());
        // A pointer: its missing tangent is an error at the `ret` (an aggregate's is zero).
        i.ty().is_ptr() && crate::signature::returns_tangent(self.src, &bits)
    }

    pub(super) fn visit_call(&mut self, i: Val) -> Result<()> {
        if crate::openmp::is_fork(i) {
            return self.visit_fork(i);
        }
        let args = i.call_args();
        let passes_derivative = self.active.call_receives(i);
        let needed = passes_derivative || self.is_active(i);
        let callee = rules::classify_for(i, &self.session.rules, Mode::Forward);
        let ints = |v: Val| v.ty().is_int() && self.is_active(v);
        if matches!(callee, Callee::Defined(_) | Callee::User(_))
            && (args.iter().copied().any(ints) || ints(i))
        {
            // Float bits passed or returned as an integer travel as the float where the callee's
            // signature says so (FloatBits); anywhere else they have no tangent path: refused.
            let bits = match callee {
                Callee::Defined(f) => self
                    .session
                    .float_bits_of(f, self.session.callee_context(i)),
                _ => Default::default(),
            };
            let (info, m) = (self.session.types(), self.session.module);
            for (k, &a) in args.iter().enumerate() {
                if self.is_active(a) && bits.param(k).is_none() {
                    crate::analysis::types::check_no_float_bits(info, m, a, i, "passes")?;
                }
            }
            if self.is_active(i) && bits.ret.is_none() {
                crate::analysis::types::check_no_float_bits(info, m, i, i, "receives")?;
            }
        }
        match callee {
            Callee::User(u) if needed => self.call_user_forward(i, u),
            Callee::User(_) => {
                self.clone_primal(i);
                Ok(())
            }
            Callee::Inactive => {
                self.clone_primal(i);
                Ok(())
            }
            Callee::Defined(f) if needed => self.call_derived(i, f),
            Callee::Defined(_) => {
                self.clone_primal(i);
                Ok(())
            }
            Callee::Rule(rule) => {
                let call = self.clone_primal(i);
                if needed {
                    self.apply_rule(i, call, rule)?;
                }
                Ok(())
            }
            Callee::Unknown
                if crate::devirt::is_fallback(i) && (needed || self.returns_fallback_shadow(i)) =>
            {
                // A target outside a dispatcher's candidates: stop with an error at run time
                // (also when the dispatcher returns the shadow of the pointer it returns: the
                // shadow of the unknown target's result is unknown).
                let message = crate::devirt::fallback_message(i);
                crate::unwind::emit_fatal_call(&mut self.b, &message);
                self.clone_primal(i);
                Ok(())
            }
            Callee::Unknown if passes_derivative => Err(missing_rule(i, &self.session.rules)),
            Callee::Unknown => {
                self.clone_primal(i);
                Ok(())
            }
        }
    }

    /// Calls the forward derivative of `f`, passing a shadow for every active argument.
    fn call_derived(&mut self, i: Val, f: Val) -> Result<()> {
        let ctx = self.session.callee_context(i);
        let bits = self.session.float_bits_of(f, ctx);
        let mut acts = Vec::new();
        let mut args = Vec::new();
        for (k, a) in i.call_args().into_iter().enumerate() {
            args.push(self.map(a));
            if self.is_active(a) || crate::analysis::activity::null_needs_shadow(i, k, a) {
                // Memory of an `enzyme_dupnoneed` parameter stays so in the callee.
                acts.push(if self.primal_not_needed(a) {
                    Activity::DupNoNeed
                } else {
                    Activity::Dup
                });
                let mut t = self.tangent_or_zero(a, i)?;
                if let Some(fty) = bits.param(k) {
                    t = self.cast_lanes(t, fty);
                }
                args.push(t);
            } else {
                acts.push(Activity::Const);
            }
        }
        let derived = self
            .session
            .declare_forward_wide(f, &acts, self.width, ctx)?;
        let call = self.b.call_function(derived, &args);
        if super::returns_tangent(f, &bits) {
            let p = self.b.extract_value(call, 0);
            p.set_name(&i.name());
            let mut t = self.b.extract_value(call, 1);
            if bits.ret.is_some() {
                t = self.cast_lanes(t, i.ty());
            }
            self.set_primal(i, p);
            self.set_tangent(i, Some(t));
        } else {
            call.set_name(&i.name());
            self.set_primal(i, call);
        }
        Ok(())
    }

    /// Calls the user's registered derivative: each argument followed by its tangent (pointers:
    /// shadow, or null when inactive; floats: tangent or zero). A derivative returning only the
    /// tangent runs after the primal call, which provides the result; one returning
    /// `{result, tangent}` (or `void`, for a `void` function) replaces the primal call.
    fn call_user_forward(&mut self, i: Val, u: UserRule) -> Result<()> {
        let Some(fwd) = u.forward else {
            return Err(missing_rule(i, &self.session.rules));
        };
        let mut args = Vec::new();
        for a in i.call_args() {
            args.push(self.map(a));
            let t = a.ty();
            if t.is_ptr() {
                let s = if self.is_active(a) {
                    self.tangent_or_zero(a, i)?
                } else {
                    t.zero()
                };
                args.push(s);
            } else if is_float_value(t) {
                args.push(self.tangent_or_zero(a, i)?);
            }
        }
        let ret = i.ty();
        let tangent_only = fwd.function_type().return_type() == ret;
        if self.width > 1 && (!tangent_only || ret.is_void()) {
            // Calling it once per lane would run the primal once per lane.
            return Err(Error::at(
                i,
                format!(
                    "batched forward mode (enzyme_width) cannot call the registered derivative '{}', which replaces the primal call; register one returning only the tangent",
                    fwd.name()
                ),
            ));
        }
        if tangent_only && !ret.is_void() {
            self.clone_primal(i);
        }
        if self.width > 1 {
            // One call per lane, each with that lane's tangents (primal arguments shared).
            let shadowed = self.lane_positions(i);
            let mut lanes = Vec::new();
            for l in 0..self.width {
                let mut la = args.clone();
                for &k in &shadowed {
                    la[k] = self.lane(args[k], l);
                }
                lanes.push(self.b.call_function(fwd, &la));
            }
            let t = self.gather(lanes);
            self.set_tangent(i, Some(t));
            return Ok(());
        }
        let call = self.b.call_function(fwd, &args);
        if ret.is_void() {
            return Ok(());
        }
        if tangent_only {
            self.set_tangent(i, Some(call));
        } else {
            let p = self.b.extract_value(call, 0);
            p.set_name(&i.name());
            let t = self.b.extract_value(call, 1);
            self.set_primal(i, p);
            self.set_tangent(i, Some(t));
        }
        Ok(())
    }

    /// The positions of the tangent arguments in a registered derivative's argument list (each
    /// pointer or floating-point argument is followed by its tangent).
    fn lane_positions(&self, i: Val) -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = 0;
        for a in i.call_args() {
            at += 1;
            let t = a.ty();
            if t.is_ptr() || is_float_value(t) {
                out.push(at);
                at += 1;
            }
        }
        out
    }

    /// Applies a primitive rule after the primal call `call`.
    fn apply_rule(&mut self, i: Val, call: Val, rule: &'static rules::Rule) -> Result<()> {
        let src_args = i.call_args();
        let args: Vec<Val> = src_args.iter().map(|&a| self.map(a)).collect();
        let tangents: Vec<Option<Val>> = src_args.iter().map(|&a| self.tangent(a)).collect();
        let t = match rule.kind {
            RuleKind::Math(partials) => apply_partials(
                &mut self.b,
                partials,
                &args,
                call,
                &tangents,
                self.width,
                |_| false,
            ),
            RuleKind::Forward(rule_fn, _) if self.width == 1 => {
                let mut ctx = ForwardCall {
                    b: &mut self.b,
                    env: self.session,
                    src: i,
                    call,
                    args,
                    tangents,
                };
                rule_fn(&mut ctx)?
            }
            RuleKind::Forward(rule_fn, _) => {
                // Batched: the rule runs once per lane with that lane's tangents. Every lane is
                // extracted before the primal call, since rules that must read memory before
                // the call overwrites it (BLAS `scal`, `gemv`, ...) emit code there; and each
                // lane continues at the end of the block, after the lanes before it.
                let mut lanes = Vec::with_capacity(self.width as usize);
                let cont = self.b.current_block();
                self.b.position_before(call);
                let per_lane: Vec<Vec<Option<Val>>> = (0..self.width)
                    .map(|l| {
                        tangents
                            .iter()
                            .map(|t| t.map(|t| self.lane(t, l)))
                            .collect()
                    })
                    .collect();
                self.b.position_at_end(cont);
                for lane_tangents in per_lane {
                    let mut ctx = ForwardCall {
                        b: &mut self.b,
                        env: self.session,
                        src: i,
                        call,
                        args: args.clone(),
                        tangents: lane_tangents,
                    };
                    lanes.push(rule_fn(&mut ctx)?);
                    let end = self.b.current_block();
                    self.b.position_at_end(end);
                }
                match lanes.iter().filter(|t| t.is_some()).count() {
                    0 => None,
                    n if n == lanes.len() => {
                        let lanes = lanes.into_iter().flatten().collect();
                        Some(self.gather(lanes))
                    }
                    _ => {
                        return Err(Error::at(
                            i,
                            "batched forward mode: the rule for this call gave a tangent for some lanes only",
                        ))
                    }
                }
            }
            RuleKind::Inactive => None,
        };
        self.set_tangent(i, t);
        Ok(())
    }
}

/// The error for a call that passes derivatives to a function Umbra cannot see into.
fn missing_rule(i: Val, rules: &crate::rules::user::UserRules) -> Error {
    crate::devirt::missing_rule_error(i, Mode::Forward, rules)
}
