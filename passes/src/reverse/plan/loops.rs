//! The loops and dominance [`super::ReversePlan`] plans with: [`StructuredLoop`]s (natural
//! loops with a preheader, one latch and an induction variable stepping by a constant), their
//! secondary induction variables, each block's dominators and the blocks on cycles. Facts of
//! the control flow only; what is rebuilt from them is the plan's.

use crate::ir::{Block, Opcode, Val};
use crate::reverse::cfg::ReverseCfg;
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
pub(super) fn secondary_iv(phi: Val, l: &StructuredLoop, lp: usize) -> Option<SecondaryIv> {
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

/// Each reachable block's dominators (itself included), by the iterative data-flow algorithm
/// over reverse post-order.
pub(in crate::reverse) fn dominators(cfg: &ReverseCfg) -> HashMap<Block, HashSet<Block>> {
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
pub(super) fn blocks_on_cycles(cfg: &ReverseCfg) -> HashSet<Block> {
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
pub(super) fn structured_loop(f: Val, cfg: &ReverseCfg, h: Block) -> Option<StructuredLoop> {
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
pub(in crate::reverse) fn constant_step(iv: Val, next: Val) -> Option<Val> {
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
