//! [`ReversePlan`]: what the adjoint sweep can rebuild instead of reading from the tape, decided
//! once per derived pair so both sweeps agree.
//!
//! - *Structured loops*: a natural loop with a preheader, one latch and a canonical induction
//!   variable `i = phi [start, preheader], [i + C, latch]` is reversed by counting `i` back down
//!   to `start`, so the forward sweep records nothing per iteration; it pushes the last `i` (and
//!   `start`, unless a constant or argument) once, where the loop exits.
//! - *Recomputation*: arguments, constants, induction variables (inside their loop), pure
//!   instructions of recomputable operands and loads the overwrite analysis proves re-readable
//!   ([`crate::analysis::overwrite`]: nothing may change the bytes between the load and the
//!   adjoint) are rebuilt at their use in the adjoint; everything else the adjoint needs is
//!   taped. The frees that analysis defers run in the adjoint instead of the augmented sweep.
//! - *Callees* run their sweeps with stable memory when this function does, nothing after
//!   the call here may write or free memory and the call reaches none of this function's
//!   stack slots (dead when the adjoints run).
//!
//! A value depending on a loop's induction variable is only recomputed inside that loop, where
//! the adjoint's counter holds the right iteration.

use super::cfg::ReverseCfg;
use super::needs::{needs, Need};
use crate::analysis::activity::ActiveSet;
use crate::analysis::opcodes::is_pure;
use crate::analysis::overwrite::{is_memory_read, OverwriteContext, Overwrites};
use crate::clone::is_math_value;
use crate::ir::{Block, Opcode, TyKind, Val};
use crate::rules::user::UserRules;
use std::collections::{HashMap, HashSet};

/// A loop the adjoint reverses by counting its induction variable down.
#[derive(Clone, Debug)]
pub struct StructuredLoop {
    /// The loop header.
    pub header: Block,
    /// The single block outside the loop branching to the header.
    pub preheader: Block,
    /// The single block inside the loop branching back to the header.
    pub latch: Block,
    /// The induction variable (a phi in the header).
    pub iv: Val,
    /// Its value on entry (from the preheader).
    pub start: Val,
    /// Its increment per iteration (a constant).
    pub step: Val,
    /// Blocks of the loop.
    pub body: HashSet<Block>,
}

/// A header phi of a structured loop stepping by a constant each iteration: its value in
/// iteration `n` (counting from 0) is `init + n * step`.
#[derive(Clone, Copy, Debug)]
pub struct SecondaryIv {
    /// The structured loop (index into [`ReversePlan::loops`]).
    pub lp: usize,
    /// The value on entry (from the preheader).
    pub init: Val,
    /// The constant step (a splat for vectors).
    pub step: Val,
}

/// `phi = [init, preheader], [phi + C, latch]` with `C` a constant (integer, or integer splat).
fn secondary_iv(phi: Val, l: &StructuredLoop, lp: usize) -> Option<SecondaryIv> {
    let ty = phi.ty();
    if !(ty.is_int() || (ty.is_vector() && ty.element().is_int())) {
        return None;
    }
    let inc = phi.incoming();
    let init = inc.iter().find(|(_, b)| *b == l.preheader)?.0;
    let next = inc.iter().find(|(_, b)| *b == l.latch)?.0;
    if !next.is_instruction() || next.opcode() != Opcode::LLVMAdd {
        return None;
    }
    let (a, b) = (next.operand(0), next.operand(1));
    let step = if a == phi {
        b
    } else if b == phi {
        a
    } else {
        return None;
    };
    if !step.is_constant() || step.is_constant_expr() {
        return None;
    }
    Some(SecondaryIv { lp, init, step })
}

/// Decisions shared by the augmented and adjoint sweeps of one derived pair.
#[derive(Clone)]
pub struct ReversePlan {
    loops: Vec<StructuredLoop>,
    by_header: HashMap<Block, usize>,
    /// Exit block → loops whose last induction value is pushed there, in push order.
    exits: HashMap<Block, Vec<usize>>,
    /// Recomputable values → the loops whose induction variables they depend on.
    recomputable: HashMap<Val, HashSet<usize>>,
    shadow_recomputable: HashMap<Val, HashSet<usize>>,
    /// Which loads the adjoint may re-read, and which frees it must run instead.
    overwrites: Overwrites,
    /// Whether the caller writes nothing between the two sweeps.
    memory_stable: bool,
    /// Secondary induction variables of structured loops, rebuilt from the counter.
    secondary: HashMap<Val, SecondaryIv>,
    /// Values kept once per call in the frame: (value, is its shadow) → position.
    frame: HashMap<(Val, bool), u64>,
    /// The frame's values in push order.
    frame_order: Vec<(Val, bool)>,
    /// The frame's size, for reports.
    frame_bytes: u64,
}

impl ReversePlan {
    /// Plans `f` (with activity `active`); `memory_stable` says whether the caller runs the
    /// adjoint right after the augmented sweep with no writes in between.
    pub fn new(
        f: Val,
        cfg: &ReverseCfg,
        active: &ActiveSet,
        rules: &UserRules,
        memory_stable: bool,
    ) -> ReversePlan {
        // Frees are deferred only for loads whose values the adjoint reads (before any free is
        // deferred, the wanted values are those needs name, frees aside).
        let (needed, _) = wanted(cfg, active, rules, |_| false);
        let overwrites =
            Overwrites::analyze_for(f, OverwriteContext { memory_stable }, rules, |l| {
                needed.contains(&l)
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
            memory_stable,
            secondary: HashMap::new(),
            frame: HashMap::new(),
            frame_order: Vec::new(),
            frame_bytes: 0,
        };
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
        }
        // Secondary induction variables (scalar or vector: the vectoriser's `<0, 1, 2, ...>`
        // steps) are rebuilt from the loop's counter: init + iteration * step.
        for (k, l) in plan.loops.iter().enumerate() {
            for phi in l.header.instructions() {
                if phi.opcode() != Opcode::LLVMPHI {
                    break;
                }
                if phi == l.iv {
                    continue;
                }
                if let Some(s) = secondary_iv(phi, l, k) {
                    if let Some(mut deps) = plan.deps_of(s.init) {
                        deps.insert(k);
                        plan.recomputable.insert(phi, deps);
                        plan.secondary.insert(phi, s);
                    }
                }
            }
        }
        // A function that never returns has nothing to hand its frame over with.
        let (wanted, wanted_shadows) = if cfg.returns.is_empty() {
            (HashSet::new(), HashSet::new())
        } else {
            wanted(cfg, active, rules, |c| plan.defers_free(c))
        };
        let cyclic = blocks_on_cycles(cfg);
        let dominators = dominators(cfg);
        let module = f.module();
        // Operands come before uses in reverse post-order (phis aside, which are not pure).
        for &b in &cfg.order {
            // Kept in the frame: values computed once per call, on every path to a return,
            // so the augmented sweep can push them all at the return.
            let once = !cyclic.contains(&b)
                && cfg
                    .returns
                    .iter()
                    .all(|r| dominators.get(r).is_some_and(|d| d.contains(&b)));
            for i in b.instructions() {
                let frameable = once && wanted.contains(&i) && framable(i);
                // A libm value computed once per call is kept once rather than computed again
                // at every use (inside a loop, once per iteration: lognormal_model's sigmoid).
                let rebuild = match plan.primal_deps(i) {
                    Some(_) if frameable && is_math_value(i) => None,
                    deps => deps,
                };
                if let Some(deps) = rebuild {
                    plan.recomputable.entry(i).or_insert(deps);
                } else if frameable {
                    plan.add_to_frame(module, i, false);
                    plan.recomputable.insert(i, HashSet::new());
                }
                if let Some(deps) = plan.shadow_deps(i) {
                    plan.shadow_recomputable.insert(i, deps);
                } else if once && wanted_shadows.contains(&i) && i.opcode() != Opcode::LLVMPHI {
                    plan.add_to_frame(module, i, true);
                    plan.shadow_recomputable.insert(i, HashSet::new());
                }
            }
        }
        plan
    }

    fn add_to_frame(&mut self, m: crate::ir::Module, v: Val, shadow: bool) {
        self.frame_bytes += m.alloc_size(v.ty());
        self.frame
            .insert((v, shadow), self.frame_order.len() as u64);
        self.frame_order.push((v, shadow));
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

    /// Whether the callee called at `call` runs its two sweeps with nothing writing primal
    /// memory between them: this function's own sweeps do, nothing that may run after the
    /// call here writes or frees memory, and the call reaches none of this function's stack
    /// slots (gone when the adjoints run: the callee's adjoint would re-read a dead frame).
    pub fn callee_memory_stable(&self, call: Val) -> bool {
        self.memory_stable
            && !self.overwrites.writes_after(call)
            && !self.overwrites.reaches_stack(call)
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
    pub fn describe_overwrites(&self) -> Vec<String> {
        self.overwrites.describe()
    }

    /// The values `i`'s adjoint reads from the tape: its [`needs`] less what the adjoint can
    /// rebuild where it is used.
    pub fn taped_needs(&self, i: Val, active: &ActiveSet, user: &UserRules) -> Vec<Need> {
        let at = i.parent_block();
        needs(i, active, user, |c| self.defers_free(c))
            .into_iter()
            .filter(|n| match *n {
                Need::Primal(v) => !self.primal_recomputable(v, at),
                Need::Shadow(v) => !self.shadow_recomputable(v, at),
                Need::Saved(_) => true,
            })
            .collect()
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

    /// Indices of the loops whose last induction value is pushed at the top of `b`.
    pub fn exits_at(&self, b: Block) -> &[usize] {
        self.exits.get(&b).map(Vec::as_slice).unwrap_or(&[])
    }

    /// True when the forward sweep records which predecessor entered `b`.
    pub fn records_predecessor(&self, cfg: &ReverseCfg, b: Block) -> bool {
        cfg.records_predecessor(b) && !self.by_header.contains_key(&b)
    }

    /// True when the primal value of `v` can be rebuilt in the adjoint at a use in `at`.
    pub fn primal_recomputable(&self, v: Val, at: Block) -> bool {
        if !v.is_instruction() {
            return true;
        }
        self.recomputable
            .get(&v)
            .is_some_and(|deps| self.inside_all(deps, at))
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

    fn deps_of(&self, v: Val) -> Option<HashSet<usize>> {
        if !v.is_instruction() {
            return Some(HashSet::new());
        }
        self.recomputable.get(&v).cloned()
    }

    fn primal_deps(&self, i: Val) -> Option<HashSet<usize>> {
        use Opcode::*;
        let ops: Vec<Val> = match i.opcode() {
            op if is_pure(op) => i.operands(),
            LLVMLoad if self.overwrites.rereadable(i) => vec![i.operand(0)],
            // A masked load or gather re-read: its pointers, mask and passthru.
            LLVMCall if is_memory_read(i) && self.overwrites.rereadable(i) => i.call_args(),
            // A libm call whose value only feeds the result: the adjoint computes it again
            // rather than the forward sweep computing it only to tape it (a gradient request
            // ignores the result, and then the forward sweep need not call it at all).
            LLVMCall if is_math_value(i) && feeds_only_return(i) => i.call_args(),
            _ => return None,
        };
        let mut deps = HashSet::new();
        for o in ops {
            deps.extend(self.deps_of(o)?);
        }
        Some(deps)
    }

    fn shadow_deps(&self, i: Val) -> Option<HashSet<usize>> {
        let shadowed = shadow_operands(i)?;
        let mut deps = HashSet::new();
        for k in 0..i.num_operands() {
            let o = i.operand(k);
            if shadowed.contains(&k) {
                if o.is_instruction() {
                    deps.extend(self.shadow_recomputable.get(&o)?.iter().copied());
                }
            } else {
                deps.extend(self.deps_of(o)?);
            }
        }
        Some(deps)
    }
}

/// The values (and shadows) the adjoint may need: what any instruction's adjoint reads,
/// and what rebuilding those reads (pure operands, load addresses, GEP bases).
fn wanted(
    cfg: &ReverseCfg,
    active: &ActiveSet,
    rules: &UserRules,
    defers_free: impl Fn(Val) -> bool,
) -> (HashSet<Val>, HashSet<Val>) {
    let mut primal: Vec<Val> = Vec::new();
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
        if let Some(shadowed) = shadow_operands(v) {
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
        if is_pure(v.opcode()) {
            primal.extend(v.operands());
        } else if v.opcode() == Opcode::LLVMLoad {
            primal.push(v.operand(0));
        } else if is_memory_read(v) || is_math_value(v) {
            primal.extend(v.call_args());
        }
    }
    (wp, ws)
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

/// Each reachable block's dominators (itself included), by the iterative data-flow algorithm
/// over reverse post-order.
fn dominators(cfg: &ReverseCfg) -> HashMap<Block, HashSet<Block>> {
    let all: HashSet<Block> = cfg.order.iter().copied().collect();
    let mut dom: HashMap<Block, HashSet<Block>> = HashMap::new();
    for (k, &b) in cfg.order.iter().enumerate() {
        dom.insert(
            b,
            if k == 0 {
                HashSet::from([b])
            } else {
                all.clone()
            },
        );
    }
    let mut changed = true;
    while changed {
        changed = false;
        for &b in cfg.order.iter().skip(1) {
            let mut new: Option<HashSet<Block>> = None;
            for p in cfg.preds(b) {
                let Some(dp) = dom.get(p) else { continue };
                new = Some(match new {
                    None => dp.clone(),
                    Some(n) => n.intersection(dp).copied().collect(),
                });
            }
            let mut new = new.unwrap_or_default();
            new.insert(b);
            if dom.get(&b) != Some(&new) {
                dom.insert(b, new);
                changed = true;
            }
        }
    }
    dom
}

/// The blocks that lie on a cycle (may run more than once per call).
fn blocks_on_cycles(cfg: &ReverseCfg) -> HashSet<Block> {
    let mut succs: HashMap<Block, Vec<Block>> = HashMap::new();
    for &b in &cfg.order {
        for &p in cfg.preds(b) {
            succs.entry(p).or_default().push(b);
        }
    }
    let mut out = HashSet::new();
    for &b in &cfg.order {
        let mut stack: Vec<Block> = succs.get(&b).cloned().unwrap_or_default();
        let mut seen = HashSet::new();
        while let Some(x) = stack.pop() {
            if x == b {
                out.insert(b);
                break;
            }
            if seen.insert(x) {
                stack.extend(succs.get(&x).cloned().unwrap_or_default());
            }
        }
    }
    out
}

/// The structured loop headed by `h`, if `h` heads one.
fn structured_loop(f: Val, cfg: &ReverseCfg, h: Block) -> Option<StructuredLoop> {
    let preds = cfg.preds(h);
    if preds.len() != 2 {
        return None;
    }
    // The natural loop of each candidate back edge: blocks reaching the latch without
    // passing through the header.
    for (latch, preheader) in [(preds[0], preds[1]), (preds[1], preds[0])] {
        let body = natural_loop(cfg, h, latch);
        if body.contains(&preheader) || (h != f.entry_block() && body.contains(&f.entry_block())) {
            continue;
        }
        // Every exit must be entered from inside the loop only, so the induction variable can
        // be pushed there (loop-simplify's dedicated exits).
        let dedicated = cfg.order.iter().all(|&x| {
            body.contains(&x)
                || !cfg.preds(x).iter().any(|p| body.contains(p))
                || cfg.preds(x).iter().all(|p| body.contains(p))
        });
        if !dedicated {
            continue;
        }
        // Prefer an induction variable starting at a constant or argument: nothing to push.
        let mut found: Option<(Val, Val, Val)> = None;
        for phi in h.instructions() {
            if phi.opcode() != Opcode::LLVMPHI {
                break;
            }
            if !phi.ty().is_int() {
                continue;
            }
            let inc = phi.incoming();
            let start = inc.iter().find(|(_, b)| *b == preheader)?.0;
            let next = inc.iter().find(|(_, b)| *b == latch)?.0;
            if let Some(step) = constant_step(phi, next) {
                let better =
                    found.is_none_or(|(_, s, _)| s.is_instruction() && !start.is_instruction());
                if better {
                    found = Some((phi, start, step));
                }
            }
        }
        if let Some((iv, start, step)) = found {
            return Some(StructuredLoop {
                header: h,
                preheader,
                latch,
                iv,
                start,
                step,
                body,
            });
        }
    }
    None
}

/// `next = add iv, C` (either order): `C`; `next = sub iv, C`: `-C` (clang at `-O0` counts
/// `i -= 2` with a `sub`, `i--` with an `add` of -1).
pub(super) fn constant_step(iv: Val, next: Val) -> Option<Val> {
    if !next.is_instruction() || !iv.ty().is_int() {
        return None;
    }
    let (a, b) = (next.operand(0), next.operand(1));
    let step = match next.opcode() {
        Opcode::LLVMAdd if a == iv => b,
        Opcode::LLVMAdd if b == iv => a,
        Opcode::LLVMSub if a == iv => {
            let c = b.const_int_sext()?;
            iv.ty().int_const(c.wrapping_neg() as u64)
        }
        _ => return None,
    };
    let c = step.const_int_value()?;
    (c != 0).then_some(step)
}

fn natural_loop(cfg: &ReverseCfg, header: Block, latch: Block) -> HashSet<Block> {
    let mut body = HashSet::from([header, latch]);
    let mut stack = vec![latch];
    while let Some(b) = stack.pop() {
        if b == header {
            continue;
        }
        for &p in cfg.preds(b) {
            if body.insert(p) {
                stack.push(p);
            }
        }
    }
    body
}
