//! The control-flow facts both reverse sweeps must agree on: the reachable blocks, each block's
//! predecessors in a fixed order (the index the forward sweep pushes and the adjoint switches
//! on), and the returning blocks.
//!
//! The control flow reversed is the normal path: the unwind edges of `invoke`s are left out, so
//! landing pads and the blocks reachable only through them are primal-only. If an exception
//! unwinds through the forward sweep, no adjoint runs ([`crate::unwind`]).

use crate::analysis::cfg::reverse_post_order;
use crate::ir::{Block, Opcode, Val};
use std::collections::{HashMap, HashSet};

/// Reachable control flow of one function, in a deterministic order.
pub struct ReverseCfg {
    /// Reachable blocks in reverse post-order.
    pub order: Vec<Block>,
    preds: HashMap<Block, Vec<Block>>,
    /// Reachable blocks ending in `ret`, in `order`.
    pub returns: Vec<Block>,
}

impl ReverseCfg {
    /// Computes the facts for `f`.
    pub fn of(f: Val) -> ReverseCfg {
        let normal = normal_path(f);
        let order: Vec<Block> = reverse_post_order(f)
            .into_iter()
            .filter(|b| normal.contains(b))
            .collect();
        let mut preds: HashMap<Block, Vec<Block>> = HashMap::new();
        for &b in &order {
            let mut succs = normal_successors(b);
            succs.dedup();
            let mut seen = Vec::new();
            for s in succs {
                if !seen.contains(&s) {
                    seen.push(s);
                    preds.entry(s).or_default().push(b);
                }
            }
        }
        let returns = order
            .iter()
            .copied()
            .filter(|b| {
                b.terminator()
                    .is_some_and(|t| t.opcode() == Opcode::LLVMRet)
            })
            .collect();
        ReverseCfg {
            order,
            preds,
            returns,
        }
    }

    /// True when `b` is on the normal path (reversed by the adjoint), false for blocks only
    /// exceptions reach.
    pub fn contains(&self, b: Block) -> bool {
        self.order.contains(&b)
    }

    /// The reachable predecessors of `b`, each once, in a fixed order.
    pub fn preds(&self, b: Block) -> &[Block] {
        self.preds.get(&b).map(Vec::as_slice).unwrap_or(&[])
    }

    /// True when the forward sweep must record which predecessor entered `b`.
    pub fn records_predecessor(&self, b: Block) -> bool {
        self.preds(b).len() >= 2
    }

    /// True when the forward sweep must record which return was taken.
    pub fn records_return(&self) -> bool {
        self.returns.len() >= 2
    }
}

/// The successors of `b` without the unwind destination of an `invoke`.
fn normal_successors(b: Block) -> Vec<Block> {
    match b.terminator() {
        Some(t) if t.is_invoke() => vec![t.normal_dest()],
        _ => b.successors(),
    }
}

/// The blocks reachable from `f`'s entry without unwinding.
fn normal_path(f: Val) -> HashSet<Block> {
    let entry = f.entry_block();
    let mut seen = HashSet::from([entry]);
    let mut stack = vec![entry];
    while let Some(b) = stack.pop() {
        for s in normal_successors(b) {
            if seen.insert(s) {
                stack.push(s);
            }
        }
    }
    seen
}
