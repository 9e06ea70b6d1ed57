//! [`ReversePlan`]: what the adjoint sweep can rebuild instead of reading from the tape, decided
//! once per derived pair so both sweeps agree.
//!
//! - *Structured loops*: a natural loop with a preheader, one latch and a canonical induction
//!   variable `i = phi [start, preheader], [i + C, latch]` is reversed by counting `i` back down
//!   to `start`, so the forward sweep records nothing per iteration; where the loop exits it
//!   pushes `start` (unless a constant or argument) and the last `i`, unless that is known:
//!   the same constant on every entry, or rebuilt from the exit test ([`ExitValue`]).
//! - *Recomputation*: arguments, constants, induction variables (inside their loop), pure
//!   instructions of recomputable operands and loads the overwrite analysis proves re-readable
//!   ([`crate::analysis::overwrite`]: nothing may change the bytes between the load and the
//!   adjoint) are rebuilt at their use in the adjoint; everything else the adjoint needs is
//!   taped. The frees that analysis defers run in the adjoint instead of the augmented sweep.
//! - *Values after a loop*: a loop that leaves exactly when a counter reaches a bound leaves
//!   every counter stepping alike on a value computed from the entry values
//!   ([`ExitValue`]); after the loop, those counters are rebuilt from it.
//! - *Branch directions*: a block whose predecessors the conditional branches before it tell
//!   apart (an `if` with or without `else`, an `else if` chain) needs nothing recorded when
//!   those branches' conditions can be rebuilt there: the adjoint evaluates them again and
//!   takes the matching edge back ([`PredChoice`]). A phi of such a block whose incoming values
//!   can all be computed safely (no memory read, no trap) is rebuilt as selects on the same
//!   conditions (the start of a remainder loop: 0, or where the unrolled loop stopped).
//! - *Callees* run their sweeps with stable memory when this function does, nothing after
//!   the call here may write or free memory and the call reaches none of this function's
//!   stack slots (dead when the adjoints run).
//!
//! A value depending on a loop's induction variable is only recomputed inside that loop, where
//! the adjoint's counter holds the right iteration, or after it as an [`ExitValue`].

mod after_loops;
mod cut;
pub(super) mod loops;

use after_loops::safe_division;
pub use after_loops::ExitValue;
pub(super) use loops::dominators;
use loops::{blocks_on_cycles, structured_loop};
pub use loops::{SecondaryIv, StructuredLoop};

use super::cfg::ReverseCfg;
use super::needs::{needs, Need};
use super::pred_choice::{pred_choice, PredChoice};
use crate::analysis::activity::ActiveSet;
use crate::analysis::opcodes::is_pure;
use crate::analysis::overwrite::{is_memory_read, CallerWrites, OverwriteContext, Overwrites};
use crate::clone::is_math_value;
use crate::ir::{Block, Opcode, TyKind, Val};
use crate::rules::user::UserRules;
use std::collections::{HashMap, HashSet};

/// Decisions shared by the augmented and adjoint sweeps of one derived pair.
#[derive(Clone)]
pub struct ReversePlan {
    loops: Vec<StructuredLoop>,
    by_header: HashMap<Block, usize>,
    /// Exit block → loops exiting into it (whose records are pushed there), in push order.
    exits: HashMap<Block, Vec<usize>>,
    /// Recomputable values → the loops whose induction variables they depend on.
    recomputable: HashMap<Val, HashSet<usize>>,
    shadow_recomputable: HashMap<Val, HashSet<usize>>,
    /// Which loads the adjoint may re-read, and which frees it must run instead.
    overwrites: Overwrites,
    /// What the caller may write between the two sweeps.
    caller_writes: CallerWrites,
    /// Secondary induction variables of structured loops, rebuilt from the counter.
    secondary: HashMap<Val, SecondaryIv>,
    /// Values kept once per call in the frame: (value, is its shadow) → position.
    frame: HashMap<(Val, bool), u64>,
    /// The frame's values in push order.
    frame_order: Vec<(Val, bool)>,
    /// The frame's size, for reports.
    frame_bytes: u64,
    /// Frame entries from blocks that run at most once per call but not on every path to a
    /// return: the augmented sweep spills them where they are computed ([`ReversePlan::spilled`]).
    frame_spilled: HashSet<(Val, bool)>,
    /// Blocks whose predecessor the adjoint tells from rebuilt branch conditions.
    pred_choices: HashMap<Block, PredChoice>,
    /// Structured loops whose induction variable ends on the same constant on every entry.
    constant_last: HashMap<usize, Val>,
    /// Header phis of structured loops (and their increments) read after the loop, rebuilt
    /// there from the loop's entry values ([`ExitValue`]).
    exit_values: HashMap<Val, ExitValue>,
    /// Phis rebuilt as selects on their block's [`PredChoice`].
    phi_selects: HashSet<Val>,
    /// Blocks of structured loops that hold inner structured loops, outside those inner loops.
    around_inner_loops: HashSet<Block>,
    /// Structured loops whose last induction value is rebuilt where they exit.
    rebuilt_last: HashSet<usize>,
    /// Each instruction's run of batched instructions ([`ReversePlan::is_barrier`]): what
    /// its tape slot holds is chosen per run ([`cut`]).
    run_of: HashMap<Val, usize>,
    /// Per run, the needed values rebuilt from fewer kept ones.
    cuts: HashMap<usize, cut::BlockCut>,
}

impl ReversePlan {
    /// Plans `f` (with activity `active`); `caller_writes` says what the caller may write
    /// between the augmented sweep and the adjoint.
    pub fn new(
        f: Val,
        cfg: &ReverseCfg,
        active: &ActiveSet,
        rules: &UserRules,
        caller_writes: &CallerWrites,
    ) -> ReversePlan {
        // Blocks whose predecessors branch conditions may tell apart: the loads of those
        // conditions are analysed with the rest, so the conditions can be rebuilt.
        let dominators = dominators(cfg);
        let choices: Vec<(Block, PredChoice)> = cfg
            .order
            .iter()
            .filter_map(|&b| pred_choice(cfg, &dominators, b).map(|c| (b, c)))
            .collect();
        let conds: Vec<Val> = choices.iter().flat_map(|(_, c)| c.conds()).collect();
        // Frees are deferred only for loads whose values the adjoint reads (before any free is
        // deferred, the wanted values are those needs name, frees aside, and the conditions).
        // A pointer load whose shadow the adjoint reads counts as needed too: its shadow is
        // read again from the shadow of its address where the load can be read again.
        let (needed, needed_shadows) = wanted(cfg, active, rules, |_| false, &conds);
        let context = OverwriteContext {
            caller: caller_writes.clone(),
        };
        let overwrites = Overwrites::analyze_for(f, context, rules, |l| {
            needed.contains(&l) || needed_shadows.contains(&l)
        });
        let loops = cfg
            .order
            .iter()
            .filter_map(|&h| structured_loop(f, cfg, h))
            .collect();
        let mut plan = ReversePlan {
            by_header: HashMap::new(),
            loops,
            exits: HashMap::new(),
            recomputable: HashMap::new(),
            shadow_recomputable: HashMap::new(),
            overwrites,
            caller_writes: caller_writes.clone(),
            secondary: HashMap::new(),
            frame: HashMap::new(),
            frame_order: Vec::new(),
            frame_bytes: 0,
            frame_spilled: HashSet::new(),
            pred_choices: HashMap::new(),
            constant_last: HashMap::new(),
            exit_values: HashMap::new(),
            phi_selects: HashSet::new(),
            rebuilt_last: HashSet::new(),
            run_of: HashMap::new(),
            cuts: HashMap::new(),
            around_inner_loops: HashSet::new(),
        };
        plan.around_inner_loops = around_inner_loops(&plan.loops);
        plan.by_header = plan
            .loops
            .iter()
            .enumerate()
            .map(|(k, l)| (l.header, k))
            .collect();
        for (k, l) in plan.loops.iter().enumerate() {
            for &b in &cfg.order {
                if !l.body.contains(&b) && cfg.preds(b).iter().any(|p| l.body.contains(p)) {
                    plan.exits.entry(b).or_default().push(k);
                }
            }
        }
        for (k, l) in plan.loops.iter().enumerate() {
            plan.recomputable.insert(l.iv, HashSet::from([k]));
            if let Some(last) = super::trip_count::constant_last_iv(l) {
                plan.constant_last.insert(k, last);
            }
        }
        // A function that never returns has nothing to hand its frame over with.
        let (wanted, wanted_shadows) = if cfg.returns.is_empty() {
            (HashSet::new(), HashSet::new())
        } else {
            wanted(cfg, active, rules, |c| plan.defers_free(c), &[])
        };
        let cyclic = blocks_on_cycles(cfg);
        let module = f.module();
        // Values the frame could hold but no adjoint reads directly (the loads a loop's
        // invariant inputs were hoisted to): kept there only when a cut below reads them
        // (value → on every path to a return).
        let mut frame_candidates: HashMap<Val, bool> = HashMap::new();
        // Operands come before uses in reverse post-order (phis aside, which are not pure).
        // Every candidate while planning (phis rebuilt as selects read them); only those whose
        // conditions can be rebuilt stay.
        plan.pred_choices = choices.into_iter().collect();
        for &b in &cfg.order {
            if let Some(k) = plan.loop_index(b) {
                plan.plan_header(k);
            }
            // Kept in the frame: values computed at most once per call, pushed all together
            // at the return. A block on every path to a return hands them over as they are;
            // one that is not (a branch taken or not: `if (n > 0)` around a function's loops)
            // spills them where they are computed ([`ReversePlan::spilled`]). Kept per use
            // instead, a loop-invariant value (a field's data pointer, its shadow) would be
            // taped once per iteration of every loop that reads it.
            let once = !cyclic.contains(&b);
            let on_every_path = cfg
                .returns
                .iter()
                .all(|r| dominators.get(r).is_some_and(|d| d.contains(&b)));
            for i in b.instructions() {
                // An invoke's value exists only on its normal edge: spilled at the start of
                // its normal destination, when the invoke is that block's only way in.
                // Off some path, a value is spilled only when a loop reads it: kept where it
                // is needed instead, it would be taped once per iteration; read only outside
                // loops, it costs the same kept there (and needs no stack slot).
                let spillable = on_every_path
                    || ((i.opcode() != Opcode::LLVMInvoke || cfg.preds(i.normal_dest()) == [b])
                        && i.users()
                            .iter()
                            .any(|u| u.is_instruction() && cyclic.contains(&u.parent_block())));
                let frameable = once && spillable && wanted.contains(&i) && framable(i);
                // A libm value computed once per call is kept once rather than computed again
                // at every use (inside a loop, once per iteration: lognormal_model's sigmoid).
                // Not a cheap intrinsic (`fmuladd`, `sqrt`): that costs what arithmetic costs,
                // and kept, it keeps its operands' bytes twice (a hexahedron's characteristic
                // length framed 30 fused multiply-adds beside the 24 coordinates they read).
                let deps = match plan.pred_choices.get(&b) {
                    Some(choice) if i.opcode() == Opcode::LLVMPHI && !plan.is_header(b) => {
                        plan.phi_select_deps(i, choice)
                    }
                    _ => plan.primal_deps(i),
                };
                let rebuild = match deps {
                    Some(_) if frameable && is_math_value(i) && !cheap_to_recompute(i) => None,
                    deps => deps,
                };
                if rebuild.is_some() && i.opcode() == Opcode::LLVMPHI {
                    plan.phi_selects.insert(i);
                }
                if let Some(deps) = rebuild {
                    plan.recomputable.entry(i).or_insert(deps);
                } else if frameable {
                    plan.add_to_frame(module, i, false, on_every_path);
                    plan.recomputable.insert(i, HashSet::new());
                } else if once && spillable && framable(i) && !plan.recomputable.contains_key(&i) {
                    frame_candidates.insert(i, on_every_path);
                }
                if let Some(deps) = plan.shadow_deps(i) {
                    plan.shadow_recomputable.insert(i, deps);
                } else if once && spillable && wanted_shadows.contains(&i) {
                    // (A phi's shadow is a phi the augmented sweep makes with the primal's.)
                    plan.add_to_frame(module, i, true, on_every_path);
                    plan.shadow_recomputable.insert(i, HashSet::new());
                }
            }
        }
        let choices = std::mem::take(&mut plan.pred_choices);
        for (b, choice) in choices {
            let rebuildable = choice
                .conds()
                .into_iter()
                .all(|c| plan.primal_recomputable(c, b));
            if rebuildable && !plan.by_header.contains_key(&b) {
                plan.pred_choices.insert(b, choice);
            }
        }
        // Last, once every other decision stands: per run of instructions that tape into one
        // slot, keep fewer values the needed ones are computed from where that saves bytes.
        // Those may be values of the blocks before the run's that dominate it.
        let dominated =
            |a: Block, b: Block| a == b || dominators.get(&b).is_some_and(|d| d.contains(&a));
        let mut runs: Vec<Vec<Val>> = Vec::new();
        for &b in &cfg.order {
            let mut run: Vec<Val> = Vec::new();
            for i in b.instructions() {
                if i.opcode() == Opcode::LLVMPHI {
                    continue;
                }
                if plan.is_barrier(i, active, rules) {
                    runs.push(std::mem::take(&mut run));
                    runs.push(vec![i]);
                } else {
                    run.push(i);
                }
            }
            runs.push(run);
        }
        for (k, run) in runs.into_iter().filter(|r| !r.is_empty()).enumerate() {
            let b = run[0].parent_block();
            let mut needed: Vec<(Val, bool)> = Vec::new();
            for &i in &run {
                plan.run_of.insert(i, k);
                for n in needs(i, active, rules, |c| plan.defers_free(c)) {
                    let (v, shadow) = match n {
                        Need::Primal(v) => (v, false),
                        Need::Shadow(v) => (v, true),
                        Need::Saved(_) => continue,
                    };
                    let taped = if shadow {
                        !plan.shadow_recomputable(v, b)
                    } else {
                        !plan.primal_recomputable(v, b)
                    };
                    if v.is_instruction()
                        && dominated(v.parent_block(), b)
                        && taped
                        && !needed.contains(&(v, shadow))
                    {
                        needed.push((v, shadow));
                    }
                }
            }
            let runs = plan.runs_per_call(b, &cyclic);
            let needed_primals: HashSet<Val> =
                needed.iter().filter(|n| !n.1).map(|n| n.0).collect();
            let facts = cut::Facts {
                rebuilds: |v| plan.primal_recomputable(v, b),
                rebuilds_shadow: |v| plan.shadow_recomputable(v, b),
                expandable: |v| {
                    is_pure(v.opcode())
                        || safe_division(v)
                        || cheap_to_recompute(v)
                        || needed_primals.contains(&v) && paired_in_adjoint(v, b, active)
                },
                frame_weight: |v| {
                    frame_candidates
                        .contains_key(&v)
                        .then(|| module.alloc_size(v.ty()).div_ceil(runs))
                },
                dominates: |v| dominated(v.parent_block(), b),
            };
            let cut = cut::block_cut(module, b, &needed, &facts);
            if let Some(cut) = cut {
                for &v in cut.framed() {
                    if let Some(on_every_path) = frame_candidates.remove(&v) {
                        plan.add_to_frame(module, v, false, on_every_path);
                        plan.recomputable.insert(v, HashSet::new());
                    }
                }
                plan.cuts.insert(k, cut);
            }
        }
        plan
    }

    /// How many times block `b` runs per call, as far as the structured loops around it
    /// tell: their constant trip counts multiplied, [`UNKNOWN_RUNS`] for a loop whose count
    /// is not a constant (or a cycle that is no structured loop).
    fn runs_per_call(&self, b: Block, cyclic: &HashSet<Block>) -> u64 {
        if !cyclic.contains(&b) {
            return 1;
        }
        let around: Vec<&StructuredLoop> =
            self.loops.iter().filter(|l| l.body.contains(&b)).collect();
        if around.is_empty() {
            return UNKNOWN_RUNS;
        }
        around.iter().fold(1u64, |n, l| {
            let runs = super::trip_count::constant_runs(l).unwrap_or(UNKNOWN_RUNS);
            n.saturating_mul(runs.max(1))
        })
    }

    /// How the adjoint tells which predecessor entered `b` from rebuilt branch conditions,
    /// when it can (the forward sweep then records nothing): each condition is rebuildable in
    /// `b`.
    pub fn pred_choice(&self, b: Block) -> Option<&PredChoice> {
        self.pred_choices.get(&b)
    }

    fn add_to_frame(&mut self, m: crate::ir::Module, v: Val, shadow: bool, on_every_path: bool) {
        if !on_every_path {
            self.frame_spilled.insert((v, shadow));
        }
        self.frame_bytes += m.alloc_size(v.ty());
        self.frame
            .insert((v, shadow), self.frame_order.len() as u64);
        self.frame_order.push((v, shadow));
    }

    /// True when frame entry `v` (its shadow if `shadow`) is computed in a block that is not on
    /// every path to a return: the augmented sweep stores it in a stack slot where it is
    /// computed and reads the slot at the return. On a path that does not compute it the frame
    /// holds an undefined value, which the adjoint never reads: its uses there are dominated
    /// by its definition, as in the primal.
    pub fn spilled(&self, v: Val, shadow: bool) -> bool {
        self.frame_spilled.contains(&(v, shadow))
    }

    /// The [`ReversePlan::spilled`] frame entries, in frame order.
    pub fn spills(&self) -> Vec<(Val, bool)> {
        self.frame_order
            .iter()
            .copied()
            .filter(|e| self.frame_spilled.contains(e))
            .collect()
    }

    /// The frame's layout in its one tape slot: (value, is its shadow, byte offset) in slot
    /// order, and the slot's size.
    pub fn frame_layout(&self, m: crate::ir::Module) -> (Vec<(Val, bool, u64)>, u64) {
        let mut at = 0;
        let mut out = Vec::with_capacity(self.frame_order.len());
        for &(v, shadow) in &self.frame_order {
            out.push((v, shadow, at));
            at += m.alloc_size(v.ty());
        }
        (out, at)
    }

    /// What may be written between the two sweeps of the callee called at `call`: what may run
    /// after the call here, and what this function's caller may write ([`CallerWrites`]);
    /// anything when the call reaches this function's stack slots (gone when the adjoints
    /// run: the callee's adjoint would re-read a dead frame).
    pub fn callee_writes(&self, call: Val) -> CallerWrites {
        if self.overwrites.reaches_stack(call) {
            return CallerWrites::Anything;
        }
        self.overwrites
            .writes_after_types(call)
            .union(&self.caller_writes)
    }

    /// What may be written between the two sweeps of the parallel region forked at `call`
    /// (outlined function `g`): see [`Overwrites::fork_writes`], which includes this function's
    /// own context.
    pub fn fork_writes(&self, call: Val, g: Val) -> CallerWrites {
        self.overwrites.fork_writes(call, g)
    }

    /// True when `call` is a `free` the adjoint runs instead of the augmented sweep, once it is
    /// done re-reading the block.
    pub fn defers_free(&self, call: Val) -> bool {
        self.overwrites.deferred_frees().contains(&call)
    }

    /// True when the adjoint of store `s` may leave the shadow bytes it wrote as they are
    /// (nothing reads them afterwards).
    pub fn zeroing_dead(&self, s: Val) -> bool {
        self.overwrites.zeroing_dead(s)
    }

    /// The `--print-types` lines about which loads are re-read or cached, and deferred frees.
    /// True when the adjoint of BLAS call `call` may read its input array `arg` in place
    /// rather than a copy ([`Overwrites::array_in_place`]).
    pub fn array_in_place(&self, call: Val, arg: usize) -> bool {
        self.overwrites.array_in_place(call, arg)
    }

    pub fn describe_overwrites(&self) -> Vec<String> {
        self.overwrites.describe()
    }

    /// Why load `v` cannot be read again in the adjoint, when the overwrite analysis says.
    pub fn overwrite_reason(&self, v: Val) -> Option<&str> {
        self.overwrites.reason(v)
    }

    /// True when `v` can be rebuilt somewhere (inside the loops it depends on), if not at
    /// every use.
    pub fn rebuilds_somewhere(&self, v: Val) -> bool {
        self.recomputable.contains_key(&v)
    }

    /// The values `i`'s adjoint reads from the tape: its [`needs`] less what the adjoint can
    /// rebuild where it is used.
    pub fn taped_needs(&self, i: Val, active: &ActiveSet, user: &UserRules) -> Vec<Need> {
        let at = i.parent_block();
        let cut = self.cut_of(i);
        let mut out: Vec<Need> = Vec::new();
        for n in needs(i, active, user, |c| self.defers_free(c)) {
            // A value the run's cut rebuilds: the kept values it is computed from instead.
            if let Some(kept) = cut.and_then(|c| c.kept_for(n)) {
                for &k in kept {
                    if !out.contains(&k) {
                        out.push(k);
                    }
                }
                continue;
            }
            let taped = match n {
                Need::Primal(v) => !self.primal_recomputable(v, at),
                Need::Shadow(v) => !self.shadow_recomputable(v, at),
                Need::Saved(_) => true,
            };
            if taped && !out.contains(&n) {
                out.push(n);
            }
        }
        out
    }

    /// True when the structured loop headed by `header` looks unrolled (its induction
    /// variable steps by more than 1 and its body reads several elements at constant offsets
    /// from one another), so its adjoint is best vectorised within an iteration.
    pub fn unrolled_loop(&self, header: Block) -> bool {
        let Some(l) = self.loop_at_header(header) else {
            return false;
        };
        let step = l.step.const_int_sext().unwrap_or(1);
        step.unsigned_abs() > 1
            && l.body
                .iter()
                .flat_map(|b| b.instructions())
                .filter(|i| i.opcode() == Opcode::LLVMLoad && !i.ty().is_vector())
                .count()
                >= 4
    }

    /// The secondary induction variable `v` of a structured loop, if it is one.
    pub fn secondary_iv(&self, v: Val) -> Option<&SecondaryIv> {
        self.secondary.get(&v)
    }

    /// The structured loops.
    pub fn loops(&self) -> &[StructuredLoop] {
        &self.loops
    }

    /// The index (into [`ReversePlan::loops`]) of the structured loop headed by `b`, if any.
    pub fn loop_index(&self, b: Block) -> Option<usize> {
        self.by_header.get(&b).copied()
    }

    /// The structured loop headed by `b`, if any.
    pub fn loop_at_header(&self, b: Block) -> Option<&StructuredLoop> {
        self.by_header.get(&b).map(|&k| &self.loops[k])
    }

    /// The constant structured loop `k`'s induction variable ends on, on every entry (the
    /// forward sweep then records nothing for it where it exits).
    pub fn constant_last_iv(&self, k: usize) -> Option<Val> {
        self.constant_last.get(&k).copied()
    }

    /// True when the forward sweep records something where structured loop `k` exits: its
    /// start when computed, its last induction value unless known (regions aside).
    pub fn records_loop_exit(&self, k: usize) -> bool {
        self.loops[k].start.is_instruction() || self.records_last_iv(k)
    }

    /// True when the forward sweep records structured loop `k`'s last induction value where
    /// it exits: the same constant on every entry and a value rebuilt from the exit test are
    /// not.
    pub fn records_last_iv(&self, k: usize) -> bool {
        !self.constant_last.contains_key(&k) && !self.rebuilt_last.contains(&k)
    }

    /// Indices of the loops exiting into `b` (their records, if any, are pushed at its top).
    pub fn exits_at(&self, b: Block) -> &[usize] {
        self.exits.get(&b).map(Vec::as_slice).unwrap_or(&[])
    }

    /// True when the forward sweep records which predecessor entered `b`.
    pub fn records_predecessor(&self, cfg: &ReverseCfg, b: Block) -> bool {
        cfg.records_predecessor(b)
            && !self.by_header.contains_key(&b)
            && !self.pred_choices.contains_key(&b)
    }

    /// True when the primal value of `v` can be rebuilt in the adjoint at a use in `at`.
    pub fn primal_recomputable(&self, v: Val, at: Block) -> bool {
        if !v.is_instruction() {
            return true;
        }
        self.recomputable
            .get(&v)
            .is_some_and(|deps| self.inside_all(deps, at))
            || self.exit_value_at(v, at).is_some()
    }

    /// True when the adjoint can rebuild `v` for the instruction `user` it reverses: anywhere
    /// in `user`'s block ([`ReversePlan::primal_recomputable`]), or from the values `user`'s
    /// run of instructions keeps instead of `v` ([`cut`]; `user` pops them).
    pub fn primal_rebuildable_for(&self, v: Val, user: Val) -> bool {
        self.cut_of(user).is_some_and(|c| c.rebuilds(v, false))
            || self.primal_recomputable(v, user.parent_block())
    }

    /// Like [`ReversePlan::primal_rebuildable_for`], for the shadow of pointer `v`.
    pub fn shadow_rebuildable_for(&self, v: Val, user: Val) -> bool {
        self.cut_of(user).is_some_and(|c| c.rebuilds(v, true))
            || self.shadow_recomputable(v, user.parent_block())
    }

    fn cut_of(&self, i: Val) -> Option<&cut::BlockCut> {
        self.run_of.get(&i).and_then(|k| self.cuts.get(k))
    }

    /// True when `i` keeps its own pushes rather than sharing its run's slot
    /// ([`super::batch`]): a terminator, or a call that may push onto the tape itself (derived
    /// callees, user rules, hand-written rules that save a value, invokes, deferred frees).
    /// Control flow a hand-written rule emits does not matter: a run's values are stored after
    /// its last member and its slot popped before that member's adjoint, both of which
    /// dominate whatever the members between emit.
    pub fn is_barrier(&self, i: Val, active: &ActiveSet, rules: &UserRules) -> bool {
        use super::classify::{reverse_callee, ReverseCallee};
        if i.parent_block().terminator() == Some(i) {
            return true;
        }
        match i.opcode() {
            Opcode::LLVMCall | Opcode::LLVMInvoke => {
                i.is_invoke()
                    || self.defers_free(i)
                    || match reverse_callee(i, active, rules) {
                        ReverseCallee::Primal | ReverseCallee::Math => false,
                        // A hand-written rule tapes through the same needs as an instruction
                        // (rules never push onto the tape themselves); only the value its
                        // augment half saves is pushed at the call. Without one, it joins the
                        // run around it: a vector reduction in an unrolled body would
                        // otherwise split the body into runs that each tape what they share.
                        ReverseCallee::Custom(_, c) => c.needs.saved,
                        _ => true,
                    }
            }
            _ => false,
        }
    }

    /// True when the shadow of `v` can be rebuilt in the adjoint at a use in `at`.
    pub fn shadow_recomputable(&self, v: Val, at: Block) -> bool {
        if !v.is_instruction() {
            return true;
        }
        self.shadow_recomputable
            .get(&v)
            .is_some_and(|deps| self.inside_all(deps, at))
    }

    fn inside_all(&self, deps: &HashSet<usize>, at: Block) -> bool {
        deps.iter().all(|&k| self.loops[k].body.contains(&at))
    }

    /// The loops `v`'s rebuild depends on, for a use in `at`: its own, or after the loop it
    /// belongs to, those of the loop's entry values ([`ReversePlan::exit_value_at`]).
    fn deps_at(&self, v: Val, at: Block) -> Option<HashSet<usize>> {
        if !v.is_instruction() {
            return Some(HashSet::new());
        }
        let own = self.recomputable.get(&v);
        if own.is_some_and(|d| self.inside_all(d, at)) {
            return own.cloned();
        }
        if let Some(e) = self.exit_value_at(v, at) {
            return Some(e.deps.clone());
        }
        own.cloned()
    }

    fn primal_deps(&self, i: Val) -> Option<HashSet<usize>> {
        use Opcode::*;
        let ops: Vec<Val> = match i.opcode() {
            op if is_pure(op) => i.operands(),
            _ if safe_division(i) => i.operands(),
            LLVMLoad if self.overwrites.rereadable(i) => vec![i.operand(0)],
            // A masked load or gather re-read: its pointers, mask and passthru.
            LLVMCall if is_memory_read(i) && self.overwrites.rereadable(i) => i.call_args(),
            // A libm call whose value only feeds the result: the adjoint computes it again
            // rather than the forward sweep computing it only to tape it (a gradient request
            // ignores the result, and then the forward sweep need not call it at all).
            LLVMCall if is_math_value(i) && feeds_only_return(i) => i.call_args(),
            // An intrinsic that costs about what an arithmetic instruction costs: cheaper to
            // compute again than to store and load back (a distance's `sqrt` and everything
            // computed from it: a docking kernel taped 40 bytes per atom pair for them).
            LLVMCall if cheap_to_recompute(i) => i.call_args(),
            // A libm value computed in a loop around inner loops: loop-invariant in those, so
            // the optimiser hoists its recomputation in their adjoint out of them, and it costs
            // what the primal pays, once per iteration of its own loop. Taped, it would make
            // every value computed from it in the inner loops taped too, per inner iteration
            // (a docking kernel's pose transform, from sines and cosines of the pose's angles:
            // 1 MB of tape per pose, and 4 bytes with this).
            LLVMCall if is_math_value(i) && self.around_inner_loops.contains(&i.parent_block()) => {
                i.call_args()
            }
            _ => return None,
        };
        let at = i.parent_block();
        let mut deps = HashSet::new();
        for o in ops {
            deps.extend(self.deps_at(o, at)?);
        }
        Some(deps)
    }

    /// The operands whose shadows rebuild the shadow of `i` ([`shadow_operands`]), and for a
    /// pointer load the adjoint can read again, its address: the shadow of a loaded pointer is
    /// the pointer at the same place in shadow memory, and shadow memory holds pointers exactly
    /// where primal memory does. A pointer's shadow bytes are written only together with the
    /// primal's (a store of a pointer stores its shadow; a copy copies the pointers' shadows),
    /// and the adjoint sweep writes shadow memory only where the primal instruction it
    /// reverses wrote (zeroing a store's destination) or read floats (adding into a load's
    /// source), never a pointer's bytes: the primal bytes unchanged until the adjoint (what
    /// [`Overwrites::rereadable`] proves) means the shadow bytes are unchanged too.
    pub(crate) fn shadow_rebuild_operands(&self, i: Val) -> Option<&'static [u32]> {
        shadow_operands(i).or_else(|| {
            (i.opcode() == Opcode::LLVMLoad
                && i.ty().is_ptr_or_ptr_vector()
                && self.overwrites.rereadable(i))
            .then_some(&[0])
        })
    }

    fn shadow_deps(&self, i: Val) -> Option<HashSet<usize>> {
        let shadowed = self.shadow_rebuild_operands(i)?;
        let mut deps = HashSet::new();
        for k in 0..i.num_operands() {
            let o = i.operand(k);
            if shadowed.contains(&k) {
                if o.is_instruction() {
                    deps.extend(self.shadow_recomputable.get(&o)?.iter().copied());
                }
            } else {
                deps.extend(self.deps_at(o, i.parent_block())?);
            }
        }
        Some(deps)
    }
}

/// The values (and shadows) the adjoint may need: what any instruction's adjoint reads, the
/// values `extra`, and what rebuilding those reads (pure operands, load addresses, GEP bases).
fn wanted(
    cfg: &ReverseCfg,
    active: &ActiveSet,
    rules: &UserRules,
    defers_free: impl Fn(Val) -> bool,
    extra: &[Val],
) -> (HashSet<Val>, HashSet<Val>) {
    let mut primal: Vec<Val> = extra.to_vec();
    let mut shadow: Vec<Val> = Vec::new();
    for &b in &cfg.order {
        for i in b.instructions() {
            for n in needs(i, active, rules, &defers_free) {
                match n {
                    Need::Primal(v) => primal.push(v),
                    Need::Shadow(v) => shadow.push(v),
                    Need::Saved(_) => {}
                }
            }
        }
    }
    let (mut wp, mut ws) = (HashSet::new(), HashSet::new());
    while let Some(v) = shadow.pop() {
        if !v.is_instruction() || !ws.insert(v) {
            continue;
        }
        // A pointer load's shadow may be read again from its address's shadow
        // ([`ReversePlan::shadow_rebuild_operands`]).
        let load = (v.opcode() == Opcode::LLVMLoad && v.ty().is_ptr_or_ptr_vector())
            .then_some(&[0u32][..]);
        if let Some(shadowed) = shadow_operands(v).or(load) {
            for k in 0..v.num_operands() {
                if shadowed.contains(&k) {
                    shadow.push(v.operand(k));
                } else {
                    primal.push(v.operand(k));
                }
            }
        }
    }
    while let Some(v) = primal.pop() {
        if !v.is_instruction() || !wp.insert(v) {
            continue;
        }
        if is_pure(v.opcode()) || safe_division(v) {
            primal.extend(v.operands());
        } else if v.opcode() == Opcode::LLVMLoad {
            primal.push(v.operand(0));
        } else if is_memory_read(v) || is_math_value(v) {
            primal.extend(v.call_args());
        }
    }
    (wp, ws)
}

/// The blocks of each structured loop that holds inner structured loops, outside all of them.
fn around_inner_loops(loops: &[StructuredLoop]) -> HashSet<Block> {
    let mut out = HashSet::new();
    for l in loops {
        let inner: Vec<&StructuredLoop> = loops
            .iter()
            .filter(|m| m.header != l.header && l.body.contains(&m.header))
            .collect();
        if inner.is_empty() {
            continue;
        }
        out.extend(
            l.body
                .iter()
                .filter(|b| inner.iter().all(|m| !m.body.contains(b))),
        );
    }
    out
}

/// The intrinsics whose value costs about one arithmetic instruction (a few for `sqrt`):
/// rebuilt in the adjoint like arithmetic rather than taped, when their operands can be.
const CHEAP_INTRINSICS: &[&str] = &[
    "llvm.sqrt",
    "llvm.fabs",
    "llvm.fma",
    "llvm.fmuladd",
    "llvm.minnum",
    "llvm.maxnum",
    "llvm.minimum",
    "llvm.maximum",
    "llvm.minimumnum",
    "llvm.maximumnum",
    "llvm.copysign",
    "llvm.floor",
    "llvm.ceil",
    "llvm.trunc",
    "llvm.rint",
    "llvm.nearbyint",
    "llvm.round",
    "llvm.roundeven",
];

/// True for a call of one of [`CHEAP_INTRINSICS`] (any overload) with a math rule, or a
/// floating-point vector reduction (`llvm.vector.reduce.fadd` and kin: a few shuffles and
/// adds, reading no memory; the sums of an unrolled body's dot products would otherwise be
/// taped per iteration).
pub(super) fn cheap_to_recompute(i: Val) -> bool {
    let reduction = i.is_call()
        && i.called_function().is_some_and(|f| {
            f.is_declaration()
                && ["fadd", "fmul", "fmax", "fmin", "fmaximum", "fminimum"]
                    .iter()
                    .any(|op| {
                        f.name()
                            .strip_prefix("llvm.vector.reduce.")
                            .and_then(|r| r.strip_prefix(op))
                            .is_some_and(|rest| rest.starts_with('.'))
                    })
        });
    reduction
        || is_math_value(i)
            && i.called_function().is_some_and(|f| {
                let name = f.name();
                CHEAP_INTRINSICS.iter().any(|c| {
                    name.strip_prefix(c)
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
                })
            })
}

/// True when `v`, a sine or cosine of block `b` with a derivative, may be computed again in
/// `b`'s adjoint at little cost: its own adjoint there computes the other function of the
/// pair on the same operand, and code generation makes the two one `sincos` call
/// ([`crate::rules::partial_is_sincos_partner`]; glibc's `sincos` costs about 1.6 times a
/// `cos`, measured 120 against 72 instructions). Asked only for values the adjoint needs
/// themselves (`cos(e)` for the adjoint of `sin(cos(e))`: keeping it costs a tape slot, and
/// the forward sweep a `cos` call when nothing else there uses it), not for values between
/// needed ones: in a recurrence `s = sin(s + x[i])` unrolled, rebuilding each step's operand
/// from the first one's would turn every step's `cos` into a `sincos` to save 8 bytes.
fn paired_in_adjoint(v: Val, b: Block, active: &ActiveSet) -> bool {
    v.is_instruction()
        && v.parent_block() == b
        && active.contains(v)
        && is_math_value(v)
        && crate::rules::partial_is_sincos_partner(v)
}

/// True when `v` reaches nothing but the function's result: through pure arithmetic, phis and
/// selects (as a chosen value), never an address, a stored value, a call argument or a branch.
fn feeds_only_return(v: Val) -> bool {
    let mut seen = HashSet::from([v]);
    let mut work = vec![v];
    while let Some(x) = work.pop() {
        for u in x.users() {
            if !u.is_instruction() {
                return false;
            }
            let through = match u.opcode() {
                Opcode::LLVMRet => false,
                Opcode::LLVMSelect if u.operand(0) != x => true,
                Opcode::LLVMPHI => true,
                Opcode::LLVMCall => is_math_value(u),
                op if is_pure(op) && !matches!(op, Opcode::LLVMICmp | Opcode::LLVMFCmp) => true,
                _ => return false,
            };
            if through && seen.insert(u) {
                work.push(u);
            }
        }
    }
    true
}

/// The operands whose shadows make up the shadow of pointer (or vector of pointers) `i`, the
/// others entering as primal values: the shadow of an address computed from pointers is the
/// same computation on their shadows (a GEP's base, a splat's `insertelement` and
/// `shufflevector`, a lane taken out of a vector of pointers).
pub(super) fn shadow_operands(i: Val) -> Option<&'static [u32]> {
    use Opcode::*;
    if !i.ty().is_ptr_or_ptr_vector() {
        return None;
    }
    match i.opcode() {
        LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast | LLVMExtractElement => Some(&[0]),
        LLVMInsertElement | LLVMShuffleVector => Some(&[0, 1]),
        _ => None,
    }
}

/// Values the frame may hold: sized first-class values. Not allocas: the augmented sweep's stack
/// is gone when the adjoint runs.
/// What a loop whose trip count is not known is taken to run per entry, when a cut weighs
/// keeping a value once per call against keeping others once per iteration.
const UNKNOWN_RUNS: u64 = 4;

fn framable(i: Val) -> bool {
    let t = i.ty();
    !t.is_void()
        && i.opcode() != Opcode::LLVMAlloca
        && matches!(
            t.kind(),
            TyKind::Float
                | TyKind::Int
                | TyKind::Ptr
                | TyKind::Vector
                | TyKind::Struct
                | TyKind::Array
        )
        && !t.is_scalable_vector()
}
