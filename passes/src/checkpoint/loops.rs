//! Natural loops of one function, for the loop outliner ([`super::outline`]): dominators
//! (Cooper, Harvey and Kennedy's iteration over the reverse post-order), back edges, the blocks
//! of the loop a header heads, and the shape checks the outliner needs (a preheader, one latch,
//! one exiting block and one exit block).
//!
//! Guarantees: only blocks reachable from the entry are considered; a loop is the union of the
//! natural loops of every back edge into its header, so a header with two latches is reported
//! as such (and refused), never split.

use std::collections::{HashMap, HashSet, VecDeque};

use crate::analysis::cfg::reverse_post_order;
use crate::ir::{Block, Opcode, Val};

/// The reachable control-flow graph of a function with its dominator tree.
pub struct Cfg {
    order: Vec<Block>,
    index: HashMap<Block, usize>,
    preds: HashMap<Block, Vec<Block>>,
    idom: Vec<usize>,
}

/// A natural loop.
pub struct Loop {
    pub header: Block,
    pub blocks: HashSet<Block>,
    /// Blocks in the loop branching back to the header.
    pub latches: Vec<Block>,
}

impl Cfg {
    pub fn new(f: Val) -> Cfg {
        let order = reverse_post_order(f);
        let index: HashMap<Block, usize> = order.iter().enumerate().map(|(k, b)| (*b, k)).collect();
        let mut preds: HashMap<Block, Vec<Block>> = HashMap::new();
        for b in &order {
            for s in b.successors() {
                if index.contains_key(&s) {
                    let list = preds.entry(s).or_default();
                    if !list.contains(b) {
                        list.push(*b);
                    }
                }
            }
        }
        const NONE: usize = usize::MAX;
        let mut idom = vec![NONE; order.len()];
        if !order.is_empty() {
            idom[0] = 0;
        }
        let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
            while a != b {
                while a > b {
                    a = idom[a];
                }
                while b > a {
                    b = idom[b];
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for k in 1..order.len() {
                let mut new = NONE;
                for p in preds.get(&order[k]).map(Vec::as_slice).unwrap_or(&[]) {
                    let pk = index[p];
                    if idom[pk] == NONE {
                        continue;
                    }
                    new = if new == NONE {
                        pk
                    } else {
                        intersect(&idom, new, pk)
                    };
                }
                if new != NONE && idom[k] != new {
                    idom[k] = new;
                    changed = true;
                }
            }
        }
        Cfg {
            order,
            index,
            preds,
            idom,
        }
    }

    /// The reachable blocks in reverse post-order.
    pub fn order(&self) -> &[Block] {
        &self.order
    }

    /// The reachable predecessors of `b`.
    pub fn preds(&self, b: Block) -> Vec<Block> {
        self.preds.get(&b).cloned().unwrap_or_default()
    }

    /// Whether `a` dominates `b` (both reachable; a block dominates itself).
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        let (Some(&a), Some(&b)) = (self.index.get(&a), self.index.get(&b)) else {
            return false;
        };
        let mut b = b;
        loop {
            if a == b {
                return true;
            }
            if b == 0 {
                return false;
            }
            b = self.idom[b];
        }
    }

    /// The loop `h` heads, if some edge goes back to it.
    pub fn loop_of(&self, h: Block) -> Option<Loop> {
        let latches: Vec<Block> = self
            .preds(h)
            .into_iter()
            .filter(|p| self.dominates(h, *p))
            .collect();
        if latches.is_empty() {
            return None;
        }
        let mut blocks: HashSet<Block> = HashSet::from([h]);
        let mut work: Vec<Block> = latches.clone();
        while let Some(b) = work.pop() {
            if blocks.insert(b) {
                work.extend(self.preds(b));
            }
        }
        Some(Loop {
            header: h,
            blocks,
            latches,
        })
    }

    /// The innermost loop holding block `b`.
    pub fn innermost_around(&self, b: Block) -> Option<Loop> {
        self.order
            .iter()
            .filter_map(|h| self.loop_of(*h))
            .filter(|l| l.blocks.contains(&b))
            .min_by_key(|l| l.blocks.len())
    }

    /// The loop that comes next after block `b`: the loop headers not around `b` that `b`
    /// dominates, nearest first in a breadth-first walk of the successors. `Err` with the
    /// headers found at the same distance when more than one is (which loop is meant is then
    /// not clear).
    pub fn next_loop(&self, b: Block) -> std::result::Result<Option<Loop>, usize> {
        let mut seen: HashSet<Block> = HashSet::from([b]);
        let mut level: VecDeque<Block> = b.successors().into_iter().collect();
        while !level.is_empty() {
            let mut found = Vec::new();
            let mut next = VecDeque::new();
            for x in level {
                if !seen.insert(x) {
                    continue;
                }
                match self.loop_of(x) {
                    Some(l) if !l.blocks.contains(&b) && self.dominates(b, x) => found.push(l),
                    _ => next.extend(x.successors()),
                }
            }
            if found.is_empty() {
                level = next;
                continue;
            }
            // Of loops at the same distance (the marked loop and the next one after it, when
            // the marked loop is guarded and may be skipped), the one no other leads to.
            let n = found.len();
            let first: Vec<Loop> = found
                .iter()
                .enumerate()
                .filter(|(k, l)| {
                    !found
                        .iter()
                        .enumerate()
                        .any(|(m, other)| m != *k && self.reaches(other.header, l.header))
                })
                .map(|(k, _)| k)
                .collect::<Vec<usize>>()
                .into_iter()
                .rev()
                .map(|k| found.swap_remove(k))
                .collect();
            return match first.len() {
                1 => Ok(first.into_iter().next()),
                _ => Err(n),
            };
        }
        Ok(None)
    }
}

impl Cfg {
    /// Whether a path leads from `a` to `b` (a block reaches itself only through a cycle).
    fn reaches(&self, a: Block, b: Block) -> bool {
        let mut seen: HashSet<Block> = HashSet::new();
        let mut work: Vec<Block> = a.successors();
        while let Some(x) = work.pop() {
            if x == b {
                return true;
            }
            if seen.insert(x) {
                work.extend(x.successors());
            }
        }
        false
    }
}

impl Loop {
    /// Takes into the loop the blocks outside it that end the program (they end in
    /// `unreachable`: an `abort`, a sanitizer's report) and that only the loop enters: they are
    /// no exits, and they move with the loop.
    pub fn absorb_dead_ends(&mut self, cfg: &Cfg) {
        let mut dead: Vec<Block> = Vec::new();
        for b in &self.blocks {
            for s in b.successors() {
                let ends = s
                    .terminator()
                    .is_some_and(|t| t.opcode() == Opcode::LLVMUnreachable);
                if !self.blocks.contains(&s)
                    && ends
                    && cfg.preds(s).iter().all(|p| self.blocks.contains(p))
                {
                    dead.push(s);
                }
            }
        }
        self.blocks.extend(dead);
    }

    /// The blocks of the loop in the function's reverse post-order (definitions before uses,
    /// phis aside).
    pub fn ordered(&self, cfg: &Cfg) -> Vec<Block> {
        cfg.order()
            .iter()
            .copied()
            .filter(|b| self.blocks.contains(b))
            .collect()
    }

    /// Whether value `v` is an instruction of the loop.
    pub fn defines(&self, v: Val) -> bool {
        v.is_instruction() && self.blocks.contains(&v.parent_block())
    }

    /// The blocks of the loop with a successor outside it.
    pub fn exiting(&self) -> Vec<Block> {
        let mut out: Vec<Block> = Vec::new();
        for b in &self.blocks {
            if b.successors().iter().any(|s| !self.blocks.contains(s)) {
                out.push(*b);
            }
        }
        out.sort_by_key(|b| b.as_value());
        out
    }

    /// A terminator or instruction of the loop that leaves it other than by a branch (a return,
    /// an exception), or that cannot move to another function.
    pub fn unmovable(&self) -> Option<(Val, &'static str)> {
        for b in &self.blocks {
            for i in b.instructions() {
                let why = match i.opcode() {
                    Opcode::LLVMRet => "returns from the function inside the loop",
                    Opcode::LLVMInvoke
                    | Opcode::LLVMResume
                    | Opcode::LLVMLandingPad
                    | Opcode::LLVMCatchSwitch
                    | Opcode::LLVMCatchPad
                    | Opcode::LLVMCleanupPad
                    | Opcode::LLVMCatchRet
                    | Opcode::LLVMCleanupRet => {
                        "may leave the loop by an exception (an invoke or a landing pad)"
                    }
                    Opcode::LLVMCallBr | Opcode::LLVMIndirectBr => {
                        "branches by address (indirectbr or asm goto)"
                    }
                    Opcode::LLVMVAArg => "reads the function's variable arguments",
                    Opcode::LLVMCall => match i.called_function().map(|f| f.name()) {
                        Some(n)
                            if n.starts_with("llvm.va_")
                                || n.starts_with("llvm.returnaddress")
                                || n.starts_with("llvm.frameaddress")
                                || n.starts_with("llvm.localescape")
                                || n.starts_with("llvm.stacksave")
                                || n.starts_with("llvm.stackrestore") =>
                        {
                            "calls an intrinsic about the function's own frame or arguments"
                        }
                        _ => continue,
                    },
                    _ => continue,
                };
                return Some((i, why));
            }
        }
        None
    }
}
