//! The control-flow facts index reasoning needs: dominators, the natural loops (one per header,
//! every back edge of that header merged) and whether the CFG is reducible (every cycle is such
//! a loop). Only the blocks reachable from the entry are considered.

use crate::analysis::cfg::reverse_post_order;
use crate::ir::{Block, Val};
use std::collections::{HashMap, HashSet};

/// A natural loop.
#[derive(Debug)]
pub struct NaturalLoop {
    pub header: Block,
    /// The blocks branching back to the header.
    pub latches: Vec<Block>,
    /// The one block outside the loop branching to the header, if there is exactly one.
    pub preheader: Option<Block>,
    pub body: HashSet<Block>,
    /// Blocks of the loop with a successor outside it.
    pub exiting: Vec<Block>,
}

pub struct Loops {
    order: HashMap<Block, usize>,
    preds: HashMap<Block, Vec<Block>>,
    idom: HashMap<Block, Block>,
    pub loops: Vec<NaturalLoop>,
    /// Block → indices of the loops containing it, outermost first.
    nest: HashMap<Block, Vec<usize>>,
    /// Every cycle of the CFG is a natural loop.
    pub reducible: bool,
}

impl Loops {
    pub fn new(f: Val) -> Loops {
        let rpo = reverse_post_order(f);
        let order: HashMap<Block, usize> = rpo.iter().enumerate().map(|(k, &b)| (b, k)).collect();
        let mut preds: HashMap<Block, Vec<Block>> = HashMap::new();
        for &b in &rpo {
            for s in b.successors() {
                preds.entry(s).or_default().push(b);
            }
        }
        let idom = dominators(&rpo, &order, &preds);
        let mut l = Loops {
            order,
            preds: preds.clone(),
            idom,
            loops: Vec::new(),
            nest: HashMap::new(),
            reducible: true,
        };
        let mut latches: HashMap<Block, Vec<Block>> = HashMap::new();
        for &b in &rpo {
            for s in b.successors() {
                if l.order[&s] <= l.order[&b] {
                    if l.dominates(s, b) {
                        latches.entry(s).or_default().push(b);
                    } else {
                        l.reducible = false;
                    }
                }
            }
        }
        for &h in &rpo {
            let Some(ls) = latches.get(&h) else { continue };
            let mut body = HashSet::from([h]);
            let mut stack: Vec<Block> = ls.clone();
            while let Some(b) = stack.pop() {
                if body.insert(b) {
                    stack.extend(preds.get(&b).into_iter().flatten().copied());
                }
            }
            let outside: Vec<Block> = preds[&h]
                .iter()
                .copied()
                .filter(|p| !body.contains(p))
                .collect();
            let exiting = rpo
                .iter()
                .copied()
                .filter(|b| body.contains(b) && b.successors().iter().any(|s| !body.contains(s)))
                .collect();
            l.loops.push(NaturalLoop {
                header: h,
                latches: ls.clone(),
                preheader: (outside.len() == 1).then(|| outside[0]),
                body,
                exiting,
            });
        }
        // Headers come in reverse post-order, so an outer loop precedes its inner loops.
        for &b in &rpo {
            let nest = (0..l.loops.len())
                .filter(|&k| l.loops[k].body.contains(&b))
                .collect();
            l.nest.insert(b, nest);
        }
        l
    }

    /// True when `a` dominates `b` (both reachable).
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        let mut x = b;
        loop {
            if x == a {
                return true;
            }
            match self.idom.get(&x) {
                Some(&d) if d != x => x = d,
                _ => return false,
            }
        }
    }

    pub fn idom(&self, b: Block) -> Option<Block> {
        self.idom.get(&b).copied().filter(|&d| d != b)
    }

    pub fn reachable(&self, b: Block) -> bool {
        self.order.contains_key(&b)
    }

    /// The predecessors of `b` (reachable ones).
    pub fn preds(&self, b: Block) -> &[Block] {
        self.preds.get(&b).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The loops containing `b`, outermost first.
    pub fn nest(&self, b: Block) -> &[usize] {
        self.nest.get(&b).map(Vec::as_slice).unwrap_or(&[])
    }
}

/// Immediate dominators (Cooper, Harvey, Kennedy); the entry is its own.
fn dominators(
    rpo: &[Block],
    order: &HashMap<Block, usize>,
    preds: &HashMap<Block, Vec<Block>>,
) -> HashMap<Block, Block> {
    let mut idom: HashMap<Block, Block> = HashMap::new();
    let Some(&entry) = rpo.first() else {
        return idom;
    };
    idom.insert(entry, entry);
    let intersect = |idom: &HashMap<Block, Block>, mut a: Block, mut b: Block| {
        while a != b {
            while order[&a] > order[&b] {
                a = idom[&a];
            }
            while order[&b] > order[&a] {
                b = idom[&b];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &rpo[1..] {
            let mut new: Option<Block> = None;
            for &p in preds.get(&b).into_iter().flatten() {
                if !idom.contains_key(&p) {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(n) => intersect(&idom, p, n),
                });
            }
            if let Some(n) = new {
                if idom.get(&b) != Some(&n) {
                    idom.insert(b, n);
                    changed = true;
                }
            }
        }
    }
    idom
}
