//! Order within the analysed function: which instructions may run after a load (its block,
//! the blocks reachable from it, its own block again on a cycle), and which paths always pass
//! through an allocation site.

use crate::ir::{Block, Val};
use std::collections::{HashMap, HashSet};

/// Where each instruction of the analysed function is, and which blocks reach which.
#[derive(Clone)]
pub(super) struct Places {
    pub(super) position: HashMap<Val, (Block, usize)>,
    /// For each block, the blocks reachable from it through at least one edge.
    pub(super) reach: HashMap<Block, HashSet<Block>>,
}

impl Places {
    /// True when `s` may run after `l` (later in its block, or in a block reachable from it,
    /// `l`'s own included when it lies on a cycle).
    pub(super) fn after(&self, l: Val, s: Val) -> bool {
        let (lb, lk) = self.position[&l];
        let (sb, sk) = self.position[&s];
        self.reach[&lb].contains(&sb) || (sb == lb && sk > lk)
    }

    /// True when every path from just after `from` to `to` executes `via` in between.
    pub(super) fn always_through(&self, from: Val, to: Val, via: Val) -> bool {
        let (fb, fk) = self.position[&from];
        let (tb, tk) = self.position[&to];
        let Some(&(vb, vk)) = self.position.get(&via) else {
            return false;
        };
        // Scanning block `b` from index `start`: Some(true) blocked by `via`, Some(false)
        // reached `to` first, None fell through to the successors.
        let scan = |b: Block, start: usize| -> Option<bool> {
            let t = (tb == b && tk >= start).then_some(tk);
            let v = (vb == b && vk >= start).then_some(vk);
            match (t, v) {
                (Some(t), Some(v)) => Some(v < t),
                (Some(_), None) => Some(false),
                (None, Some(_)) => Some(true),
                (None, None) => None,
            }
        };
        let mut stack = match scan(fb, fk + 1) {
            Some(blocked) => return blocked,
            None => fb.successors(),
        };
        let mut seen = HashSet::new();
        while let Some(b) = stack.pop() {
            if !seen.insert(b) {
                continue;
            }
            match scan(b, 0) {
                Some(true) => {}
                Some(false) => return false,
                None => stack.extend(b.successors()),
            }
        }
        true
    }
}

/// For each block, the blocks reachable from it through at least one edge.
pub(super) fn reachability(blocks: &[Block]) -> HashMap<Block, HashSet<Block>> {
    let mut out = HashMap::new();
    for &b in blocks {
        let mut seen = HashSet::new();
        let mut stack = b.successors();
        while let Some(s) = stack.pop() {
            if seen.insert(s) {
                stack.extend(s.successors());
            }
        }
        out.insert(b, seen);
    }
    out
}

/// The blocks of `g` from which a `ret` is reachable (itself included): a writer elsewhere runs
/// only on paths that leave `g` by unwinding (or never leave it), after which no adjoint of
/// anything `g`'s callers called runs unless a caller catches the exception at an `invoke`.
pub(super) fn returning_blocks(g: Val) -> HashSet<Block> {
    let blocks = g.blocks();
    let mut preds: HashMap<Block, Vec<Block>> = HashMap::new();
    for &b in &blocks {
        for s in b.successors() {
            preds.entry(s).or_default().push(b);
        }
    }
    let mut out = HashSet::new();
    let mut stack: Vec<Block> = blocks
        .iter()
        .copied()
        .filter(|b| {
            b.terminator()
                .is_some_and(|t| t.opcode() == crate::ir::Opcode::LLVMRet)
        })
        .collect();
    while let Some(b) = stack.pop() {
        if out.insert(b) {
            stack.extend(preds.get(&b).into_iter().flatten().copied());
        }
    }
    out
}
