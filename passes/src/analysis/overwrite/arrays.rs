//! Input arrays of calls whose rule has array effects ([`crate::rules::Effects::arrays`]: the
//! BLAS) that the adjoint may read in place: the arrays whose bytes are the same when the
//! adjoint of the function runs as when the call ran, so the augmented sweep need not copy
//! them (Enzyme's uncacheable arguments, for BLAS).
//!
//! # What it proves
//! The proof of a load's [`super::Overwrites::rereadable`], made on whole objects (such a call
//! reads an extent this analysis does not know): the array's underlying objects pass the
//! checks on a load's objects (no stack slot, no garbage-collected block; heap blocks that
//! escape, arguments, globals and pointers of unknown origin only when the caller writes
//! nothing between the sweeps), and no writer that may run after the call may write any of
//! those objects. The call itself counts as such a writer (it writes its output after reading
//! its inputs, and on a cycle it runs again); it writes its output array and nothing else, as
//! its effects say (only calls of declarations have rules; a routine the module defines is
//! differentiated through its body). Frees are writers unless deferred, as for loads.
//!
//! Unsure means "copy": an array read in place that the program changed in between is a
//! silently wrong gradient.

use super::{Kind, Oracle, OverwriteContext, Target};
use crate::ir::Val;

/// Verdicts for every input array of every call among `calls` whose rule has array effects:
/// (call, argument position) → `Ok` (read in place) or why not. `writes` are the function's
/// writers with their targets (deferrable frees excluded); `after(c, s)`: `s` may run after
/// `c`.
pub(super) fn verdicts(
    o: &mut Oracle,
    ctx: &OverwriteContext,
    calls: impl Iterator<Item = Val>,
    writes: &[(Val, Target)],
    after: &dyn Fn(Val, Val) -> bool,
) -> Vec<((Val, usize), Result<(), String>)> {
    let mut out = Vec::new();
    for call in calls {
        let Some(arrays) = o.rule_for(call).and_then(|r| r.effects.array_args(call)) else {
            continue;
        };
        let args = call.call_args();
        let own = own_writes(arrays.output.and_then(|k| args.get(k).copied()));
        for k in arrays.inputs {
            let Some(&p) = args.get(k) else { continue };
            let v = verdict(o, ctx, call, p, &own, writes, after);
            out.push(((call, k), v));
        }
    }
    out
}

/// What call `call` itself writes: its output array (the contract of
/// [`crate::rules::Effects::arrays`]).
fn own_writes(output: Option<Val>) -> Vec<Target> {
    output.map(Target::Anywhere).into_iter().collect()
}

fn verdict(
    o: &mut Oracle,
    ctx: &OverwriteContext,
    call: Val,
    p: Val,
    own: &[Target],
    writes: &[(Val, Target)],
    after: &dyn Fn(Val, Val) -> bool,
) -> Result<(), String> {
    o.objects_verdict(call, p, ctx)?;
    for t in own {
        if o.may_write_objects_of(p, t) {
            return Err("the call itself may write it".into());
        }
    }
    for (s, t) in writes {
        if *s != call && after(call, *s) && o.may_write_objects_of(p, t) {
            return Err(format!("may be overwritten by {}", s.print()));
        }
    }
    Ok(())
}

impl Oracle<'_> {
    /// True when a write to target `t` may change any byte of any object `p` may point into.
    pub(super) fn may_write_objects_of(&mut self, p: Val, t: &Target) -> bool {
        let objs = self.objects(p);
        let w = match *t {
            Target::Everything => {
                for x in objs {
                    let hit = match self.kind(x) {
                        Kind::Nothing | Kind::Global { constant: true } => false,
                        k if Self::is_fresh(k) || k == Kind::ParentSlot => self.escapes(x),
                        _ => true,
                    };
                    if hit {
                        return true;
                    }
                }
                return false;
            }
            Target::Anywhere(w) | Target::At { ptr: w, .. } => w,
        };
        let wobjs = self.objects(w);
        for &a in &objs {
            for &b in &wobjs {
                if self.objects_may_alias(a, b) {
                    return true;
                }
            }
        }
        false
    }
}
