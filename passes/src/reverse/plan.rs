//! [`ReversePlan`]: what the adjoint sweep can rebuild instead of reading from the tape, decided
//! once per derived pair so both sweeps agree.
//!
//! - *Structured loops*: a natural loop with a preheader, one latch and a canonical induction
//!   variable `i = phi [start, preheader], [i + C, latch]` is reversed by counting `i` back down
//!   to `start`, so the forward sweep records nothing per iteration; it pushes the last `i` (and
//!   `start`, unless a constant or argument) once, where the loop exits.
//! - *Recomputation*: arguments, constants, induction variables (inside their loop), pure
//!   instructions of recomputable operands and, when memory cannot change between the sweeps,
//!   loads, are rebuilt at their use in the adjoint. Memory is stable when nothing in the
//!   function writes or frees memory and the caller runs the adjoint right after the augmented
//!   sweep (a request, or a caller that itself writes nothing).
//!
//! A value depending on a loop's induction variable is only recomputed inside that loop, where
//! the adjoint's counter holds the right iteration.

use super::cfg::ReverseCfg;
use super::classify::{reverse_callee, ReverseCallee};
use crate::analysis::activity::ActiveSet;
use crate::analysis::opcodes::is_pure;
use crate::ir::{Block, Opcode, Val};
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

/// Decisions shared by the augmented and adjoint sweeps of one derived pair.
pub struct ReversePlan {
    loops: Vec<StructuredLoop>,
    by_header: HashMap<Block, usize>,
    /// Exit block → loops whose last induction value is pushed there, in push order.
    exits: HashMap<Block, Vec<usize>>,
    /// Recomputable values → the loops whose induction variables they depend on.
    recomputable: HashMap<Val, HashSet<usize>>,
    shadow_recomputable: HashMap<Val, HashSet<usize>>,
    /// Whether loads may be recomputed (memory is stable between the sweeps).
    pub loads_recomputable: bool,
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
        let loads_recomputable = memory_stable && !writes_memory(cfg, active, rules);
        let loops = cfg
            .order
            .iter()
            .filter_map(|&h| structured_loop(f, cfg, h))
            .collect();
        ReversePlan::with_loops(cfg, loops, loads_recomputable)
    }

    fn with_loops(
        cfg: &ReverseCfg,
        loops: Vec<StructuredLoop>,
        loads_recomputable: bool,
    ) -> ReversePlan {
        let mut plan = ReversePlan {
            by_header: loops
                .iter()
                .enumerate()
                .map(|(k, l)| (l.header, k))
                .collect(),
            loops,
            exits: HashMap::new(),
            recomputable: HashMap::new(),
            shadow_recomputable: HashMap::new(),
            loads_recomputable,
        };
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
        // Operands come before uses in reverse post-order (phis aside, which are not pure).
        for &b in &cfg.order {
            for i in b.instructions() {
                if let Some(deps) = plan.primal_deps(i) {
                    plan.recomputable.entry(i).or_insert(deps);
                }
                if let Some(deps) = plan.shadow_deps(i) {
                    plan.shadow_recomputable.insert(i, deps);
                }
            }
        }
        plan
    }

    /// The structured loops.
    pub fn loops(&self) -> &[StructuredLoop] {
        &self.loops
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
            LLVMLoad if self.loads_recomputable && !i.is_volatile() => vec![i.operand(0)],
            _ => return None,
        };
        let mut deps = HashSet::new();
        for o in ops {
            deps.extend(self.deps_of(o)?);
        }
        Some(deps)
    }

    fn shadow_deps(&self, i: Val) -> Option<HashSet<usize>> {
        use Opcode::*;
        match i.opcode() {
            LLVMGetElementPtr => {
                let base = i.operand(0);
                let mut deps = if base.is_instruction() {
                    self.shadow_recomputable.get(&base)?.clone()
                } else {
                    HashSet::new()
                };
                for k in 1..i.num_operands() {
                    deps.extend(self.deps_of(i.operand(k))?);
                }
                Some(deps)
            }
            LLVMBitCast | LLVMAddrSpaceCast => {
                let base = i.operand(0);
                if base.is_instruction() {
                    self.shadow_recomputable.get(&base).cloned()
                } else {
                    Some(HashSet::new())
                }
            }
            _ => None,
        }
    }
}

/// True when `f` may write or free memory (so loads cannot be replayed later).
fn writes_memory(cfg: &ReverseCfg, active: &ActiveSet, rules: &UserRules) -> bool {
    cfg.order
        .iter()
        .flat_map(|b| b.instructions())
        .any(|i| match i.opcode() {
            Opcode::LLVMStore | Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg => true,
            Opcode::LLVMCall => match reverse_callee(i, active, rules) {
                ReverseCallee::Math => {
                    crate::rules::lookup_call(i).is_some_and(|r| r.effects.writes)
                }
                ReverseCallee::Custom(r, _) => r.effects.writes || r.effects.frees,
                ReverseCallee::Primal => {
                    // Inactive calls still run: only pure math and allocation are known harmless.
                    !(is_pure_call(i))
                }
                _ => true,
            },
            _ => false,
        })
}

/// Calls known not to write memory the function reads: rules whose effects say so (math, clocks,
/// runtime queries), assumptions, lifetime markers.
fn is_pure_call(i: Val) -> bool {
    let Some(f) = i.called_function() else {
        return false;
    };
    let name = f.name();
    name.starts_with("llvm.lifetime")
        || name.starts_with("llvm.assume")
        || name.starts_with("llvm.dbg")
        || name.starts_with("llvm.experimental.noalias.scope.decl")
        || crate::rules::lookup(&name).is_some_and(|r| !r.effects.writes && !r.effects.frees)
        || (f.intrinsic_id() != 0
            && !i.call_function_type().return_type().contains_ptr()
            && i.call_function_type()
                .param_types()
                .iter()
                .all(|t| !t.contains_ptr()))
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

/// `next = add iv, C` (either order): `C`.
fn constant_step(iv: Val, next: Val) -> Option<Val> {
    if !next.is_instruction() || next.opcode() != Opcode::LLVMAdd {
        return None;
    }
    let (a, b) = (next.operand(0), next.operand(1));
    let step = if a == iv {
        b
    } else if b == iv {
        a
    } else {
        return None;
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
