//! What the plan rebuilds after a loop and at joins: [`ExitValue`]s (a loop that leaves
//! exactly when a counter reaches a bound leaves its counters on values computed from the
//! entry values, [`LoopExit`]), secondary induction variables planned at their loop's header,
//! and phis rebuilt as selects on their block's [`PredChoice`] when every arm is safe to
//! compute (no memory read, no trap: a select computes both arms).

use super::loops::{constant_step, secondary_iv};
use super::ReversePlan;
use crate::analysis::opcodes::is_pure;
use crate::ir::{Block, Opcode, Val};
use crate::reverse::pred_choice::PredChoice;
use crate::reverse::trip_count::{loop_exit, LoopExit};
use std::collections::{HashMap, HashSet};

/// What a header phi of a structured loop (or its increment) holds once the loop is left,
/// computed from entry values ([`LoopExit::last`]): `init + exit.bound - exit.init + offset`.
#[derive(Clone, Debug)]
pub struct ExitValue {
    /// The structured loop.
    pub lp: usize,
    /// The phi's entry value.
    pub init: Val,
    /// The loop's exit test.
    pub exit: LoopExit,
    /// The constant added.
    pub offset: i64,
    /// The loops whose induction variables the entry values depend on.
    pub(super) deps: HashSet<usize>,
}

impl ReversePlan {
    /// Plans structured loop `k`'s header once the values before the loop are planned: its
    /// secondary induction variables (scalar or vector: the vectoriser's `<0, 1, 2, ...>`
    /// steps), rebuilt from the loop's counter as init + iteration × step; and, when the loop
    /// leaves exactly at a bound ([`LoopExit`]), the values its counters end on.
    pub(super) fn plan_header(&mut self, k: usize) {
        let l = self.loops[k].clone();
        let exit = loop_exit(&l);
        for phi in l.header.instructions() {
            if phi.opcode() != Opcode::LLVMPHI {
                break;
            }
            if phi != l.iv {
                if let Some(s) = secondary_iv(phi, &l, k) {
                    if let Some(mut deps) = self.deps_at(s.init, l.header) {
                        deps.insert(k);
                        self.recomputable.insert(phi, deps);
                        self.secondary.insert(phi, s);
                    }
                }
            }
            let Some(e) = exit else { continue };
            let inc = phi.incoming();
            let (Some(&(init, _)), Some(&(next, _))) = (
                inc.iter().find(|(_, b)| *b == l.preheader),
                inc.iter().find(|(_, b)| *b == l.latch),
            ) else {
                continue;
            };
            let same_step = constant_step(phi, next)
                .and_then(|c| c.const_int_sext())
                .is_some_and(|c| c == e.step);
            let ty = phi.ty();
            if !same_step || !ty.is_int() || e.init.ty() != ty || e.bound.ty() != ty {
                continue;
            }
            let deps = [init, e.init, e.bound]
                .into_iter()
                .map(|v| self.deps_at(v, l.preheader))
                .collect::<Option<Vec<_>>>();
            let Some(deps) = deps else { continue };
            let deps: HashSet<usize> = deps.into_iter().flatten().collect();
            for (v, is_next) in [(phi, false), (next, true)] {
                let value = ExitValue {
                    lp: k,
                    init,
                    exit: e,
                    offset: e.last(is_next),
                    deps: deps.clone(),
                };
                self.exit_values.entry(v).or_insert(value);
            }
        }
        // Where the loop exits, its counter's last value is rebuilt rather than recorded.
        let exits: Vec<Block> = self
            .exits
            .iter()
            .filter(|(_, ks)| ks.contains(&k))
            .map(|(&b, _)| b)
            .collect();
        if !exits.is_empty() && exits.iter().all(|&b| self.exit_value_at(l.iv, b).is_some()) {
            self.rebuilt_last.insert(k);
        }
    }

    /// True when the adjoint rebuilds structured loop `k`'s last induction value where it
    /// exits (from the exit test's bound, [`ReversePlan::exit_value_at`]).
    pub fn rebuilds_last_iv(&self, k: usize) -> bool {
        self.rebuilt_last.contains(&k)
    }

    /// The value `v` holds after the structured loop it belongs to, rebuilt at a use in `at`
    /// (outside that loop) from the loop's entry values, when it can be.
    pub fn exit_value_at(&self, v: Val, at: Block) -> Option<&ExitValue> {
        self.exit_values
            .get(&v)
            .filter(|e| !self.loops[e.lp].body.contains(&at) && self.inside_all(&e.deps, at))
    }

    /// True when phi `v` is rebuilt as selects on its block's [`PredChoice`].
    pub fn is_phi_select(&self, v: Val) -> bool {
        self.phi_selects.contains(&v)
    }

    pub(super) fn is_header(&self, b: Block) -> bool {
        self.by_header.contains_key(&b)
    }

    /// The loops phi `phi` depends on when rebuilt as selects on `choice` (its block's): the
    /// conditions and every incoming value rebuildable in the block, and all but the first
    /// condition (computed on every path to the block) and the incoming values free of memory
    /// reads, since a select computes both of its arms.
    pub(super) fn phi_select_deps(&self, phi: Val, choice: &PredChoice) -> Option<HashSet<usize>> {
        let at = phi.parent_block();
        let mut deps = HashSet::new();
        let mut values: Vec<(Val, bool)> = choice
            .conds()
            .into_iter()
            .enumerate()
            .map(|(n, c)| (c, n > 0))
            .collect();
        values.extend(phi.incoming().into_iter().map(|(v, _)| (v, true)));
        let mut memo = HashMap::new();
        for (v, must_be_safe) in values {
            let d = self.deps_at(v, at)?;
            if !self.inside_all(&d, at) || (must_be_safe && !self.speculatable(v, at, &mut memo)) {
                return None;
            }
            deps.extend(d);
        }
        Some(deps)
    }

    /// True when rebuilding `v` at `at` reads no memory and cannot trap: arithmetic on
    /// constants, arguments, the frame, induction variables and values after loops.
    fn speculatable(&self, v: Val, at: Block, memo: &mut HashMap<Val, bool>) -> bool {
        if !v.is_instruction() || self.frame.contains_key(&(v, false)) {
            return true;
        }
        if let Some(&known) = memo.get(&v) {
            return known;
        }
        memo.insert(v, false);
        let ok = if let Some(e) = self.exit_value_at(v, at).cloned() {
            [e.init, e.exit.init, e.exit.bound]
                .into_iter()
                .all(|x| self.speculatable(x, at, memo))
        } else if self.loops.iter().any(|l| l.iv == v) || self.secondary.contains_key(&v) {
            true
        } else if self.phi_selects.contains(&v) {
            let choice = self.pred_choices.get(&v.parent_block());
            choice.is_some_and(|c| {
                c.conds()
                    .into_iter()
                    .all(|x| self.speculatable(x, at, memo))
            }) && v
                .incoming()
                .into_iter()
                .all(|(x, _)| self.speculatable(x, at, memo))
        } else if is_pure(v.opcode()) || safe_division(v) {
            v.operands()
                .into_iter()
                .all(|x| self.speculatable(x, at, memo))
        } else {
            false
        };
        memo.insert(v, ok);
        ok
    }
}

/// An integer division or remainder by a constant that cannot trap (not zero; for signed
/// ones, not -1 either, which overflows on the minimum): rebuilt like pure arithmetic
/// (`i % 3` deciding a branch).
pub(super) fn safe_division(i: Val) -> bool {
    use Opcode::*;
    let signed = match i.opcode() {
        LLVMUDiv | LLVMURem => false,
        LLVMSDiv | LLVMSRem => true,
        _ => return false,
    };
    let d = i.operand(1);
    if d.ty().is_vector() || d.is_constant_expr() {
        return false;
    }
    match d.const_int_sext() {
        Some(0) | None => false,
        Some(-1) => !signed,
        Some(_) => true,
    }
}
