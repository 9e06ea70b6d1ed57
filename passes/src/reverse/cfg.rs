//! The control-flow facts both reverse sweeps must agree on: the reachable blocks, each block's
//! predecessors in a fixed order (the index the forward sweep pushes and the adjoint switches
//! on), and the returning blocks.

use crate::analysis::cfg::reverse_post_order;
use crate::ir::{Block, Opcode, Val};
use std::collections::HashMap;

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
        let order = reverse_post_order(f);
        let mut preds: HashMap<Block, Vec<Block>> = HashMap::new();
        for &b in &order {
            let mut succs = b.successors();
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
