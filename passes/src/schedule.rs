//! Instruction order of long straight-line blocks in the functions Umbra changed, after their
//! re-optimisation (issue 27: large_single_block's gradient cost 2.3 times its primal).
//!
//! A reverse sweep runs after its forward sweep. In one long block that is two dependence
//! chains one after the other: the forward chain, then adjoint chains of which some need only
//! the seed and inputs (`dy = dy * x1` down 400 products). An out-of-order core only overlaps
//! what fits in its window (a couple of hundred instructions), so it runs the two chains one
//! after the other: twice the primal's time where the dependences allow about one. Two steps
//! fix that, both legal reorderings only:
//! - [`balance_sums`]: a chain of `reassoc` additions (the reverse sweep marks its adjoint
//!   accumulations so: the order in which contributions reach an adjoint is Umbra's choice, not
//!   the program's) becomes a pairwise tree, whose depth is logarithmic, so the sum no longer
//!   waits for the contributions in the order they were emitted. Pairwise summation also
//!   rounds no worse than a sequential sum.
//! - [`interleave`]: a latency-aware list scheduler orders the block by each instruction's
//!   longest path to the block's end, so independent chains alternate. It only moves
//!   instructions along their dependences: SSA operands, and the order of every instruction
//!   that may write memory, have other effects or trap (calls other than pure intrinsics,
//!   stores, atomics, divisions) against each other and against loads. A model of an
//!   out-of-order core (a window of [`WINDOW`] instructions) estimates the block's time in its
//!   old and its new order; the new order is kept only when it is clearly faster and keeps not
//!   many more values alive at once, so blocks the hardware already overlaps keep the order
//!   the optimiser gave them.
//!
//! Guarantee: values, memory effects and their order are unchanged; floating-point results
//! change only where the instructions carry `reassoc` (which licenses regrouping).

use crate::ir::fast_math::{CONTRACT, REASSOC};
use crate::ir::{Block, Builder, Module, Opcode, Val};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// Instructions an out-of-order core is assumed to look ahead over.
const WINDOW: usize = 96;
/// Instructions it is assumed to start per cycle.
const WIDTH: usize = 4;
/// Blocks shorter than this fit the window well enough to be left alone.
const MIN_BLOCK: usize = 2 * WINDOW;
/// Blocks longer than this are left alone (the schedule's cost, and no such block was seen).
const MAX_BLOCK: usize = 50_000;
/// The new order is kept when its estimated time is below this share of the old one's.
const KEEP_BELOW: f64 = 0.85;
/// Values the new order may keep alive beyond the old one's most (when above [`REGISTERS`]).
const MORE_LIVE: usize = 8;
/// Values that fit the registers of x86-64 (16 vector registers) without spilling.
const REGISTERS: usize = 16;
/// Sums of at least this many terms are rebuilt as trees.
const MIN_TERMS: usize = 8;

/// Balances the `reassoc` sums and reorders the long blocks of `functions`.
pub fn reorder_long_blocks(module: Module, functions: &[Val]) {
    let mut b = Builder::new(module);
    for &f in functions {
        for block in f.blocks() {
            if block.instructions().len() < MIN_BLOCK {
                continue;
            }
            balance_sums(&mut b, block);
            interleave(&mut b, block);
        }
    }
}

/// True for an `fadd` whose fast-math flags allow regrouping.
fn reassoc_add(i: Val) -> bool {
    i.is_instruction() && i.opcode() == Opcode::LLVMFAdd && i.fast_math_flags() & REASSOC != 0
}

/// An inner node of a sum rooted further on: a `reassoc` addition in `block` whose one user is
/// another such addition of the same type there.
fn inner_term(i: Val, block: Block) -> bool {
    if !reassoc_add(i) || i.parent_block() != block {
        return false;
    }
    let users = i.users();
    users.len() == 1
        && reassoc_add(users[0])
        && users[0].parent_block() == block
        && users[0].ty() == i.ty()
        && users[0].operands().iter().filter(|&&o| o == i).count() == 1
}

/// Rebuilds every sum of [`MIN_TERMS`] or more `reassoc` additions in `block` whose depth is
/// more than twice the logarithm of its terms as a pairwise tree, terms in their old order.
pub fn balance_sums(b: &mut Builder, block: Block) {
    let roots: Vec<Val> = block
        .instructions()
        .into_iter()
        .filter(|&i| reassoc_add(i) && !inner_term(i, block))
        .collect();
    for root in roots {
        let mut terms = Vec::new();
        let mut inner = Vec::new();
        let depth = collect_terms(root, block, &mut terms, &mut inner);
        let n = terms.len();
        if n < MIN_TERMS || depth <= 2 * (usize::BITS - (n - 1).leading_zeros()) as usize {
            continue;
        }
        // The flags every addition of the sum has, so none gains a licence it did not have,
        // less `contract`: with it the back end fused the terms' products into the additions
        // and, with `reassoc`, rotated the tree back into one chain of FMAs
        // (large_single_block: 1.3 -> 2.0 times the primal; without `reassoc` its scheduler
        // then undid the interleaving: 2.3).
        let flags = inner
            .iter()
            .fold(root.fast_math_flags(), |f, i| f & i.fast_math_flags())
            & !CONTRACT;
        b.position_before(root);
        b.set_fast_math(flags);
        let mut stack: Vec<(Val, u32)> = Vec::new();
        for t in terms {
            let mut top = (t, 0);
            while let Some(&(v, level)) = stack.last() {
                if level != top.1 {
                    break;
                }
                stack.pop();
                top = (b.fadd(v, top.0), level + 1);
            }
            stack.push(top);
        }
        let mut sum = stack.pop().map(|(v, _)| v);
        while let (Some(s), Some((v, _))) = (sum, stack.pop()) {
            sum = Some(b.fadd(v, s));
        }
        b.clear_fast_math();
        let Some(sum) = sum else { continue };
        let name = root.name();
        root.replace_all_uses_with(sum);
        root.erase();
        sum.set_name(&name);
        // Users before operands: each inner node's one user is gone by the time it goes.
        for i in inner {
            i.erase();
        }
    }
}

/// The terms of the sum rooted at `i` in their order (operand 0's before operand 1's), the
/// inner additions (users before operands), and the sum's depth in additions.
fn collect_terms(i: Val, block: Block, terms: &mut Vec<Val>, inner: &mut Vec<Val>) -> usize {
    let mut depth = 0;
    for o in i.operands() {
        if inner_term(o, block) {
            inner.push(o);
            depth = depth.max(collect_terms(o, block, terms, inner));
        } else {
            terms.push(o);
        }
    }
    depth + 1
}

/// How an instruction may move.
#[derive(Clone, Copy, PartialEq)]
enum Motion {
    /// Only its operands order it.
    Free,
    /// A plain load: after the last [`Motion::Ordered`] instruction before it, before the next.
    Load,
    /// Keeps its order against every load and every other ordered instruction.
    Ordered,
}

/// Intrinsics without memory effects or traps, free to move.
const PURE_INTRINSICS: &[&str] = &[
    "llvm.fmuladd.",
    "llvm.fma.",
    "llvm.sqrt.",
    "llvm.fabs.",
    "llvm.copysign.",
    "llvm.minnum.",
    "llvm.maxnum.",
    "llvm.minimum.",
    "llvm.maximum.",
    "llvm.floor.",
    "llvm.ceil.",
    "llvm.trunc.",
    "llvm.round.",
    "llvm.rint.",
    "llvm.nearbyint.",
    "llvm.exp.",
    "llvm.exp2.",
    "llvm.log.",
    "llvm.log2.",
    "llvm.log10.",
    "llvm.sin.",
    "llvm.cos.",
    "llvm.pow.",
    "llvm.powi.",
    "llvm.vector.reduce.",
    "llvm.smax.",
    "llvm.smin.",
    "llvm.umax.",
    "llvm.umin.",
];

fn motion(i: Val) -> Motion {
    use Opcode::*;
    match i.opcode() {
        LLVMLoad if !i.is_volatile() && !i.is_atomic_access() => Motion::Load,
        LLVMCall => {
            let pure = i.called_function().is_some_and(|f| {
                let name = f.name();
                PURE_INTRINSICS.iter().any(|p| name.starts_with(p))
            });
            if pure {
                Motion::Free
            } else {
                Motion::Ordered
            }
        }
        LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem | LLVMFNeg | LLVMAdd | LLVMSub
        | LLVMMul | LLVMShl | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor | LLVMICmp
        | LLVMFCmp | LLVMSelect | LLVMGetElementPtr | LLVMTrunc | LLVMZExt | LLVMSExt
        | LLVMFPToUI | LLVMFPToSI | LLVMUIToFP | LLVMSIToFP | LLVMFPTrunc | LLVMFPExt
        | LLVMPtrToInt | LLVMIntToPtr | LLVMBitCast | LLVMExtractElement | LLVMInsertElement
        | LLVMShuffleVector | LLVMExtractValue | LLVMInsertValue | LLVMFreeze => Motion::Free,
        _ => Motion::Ordered,
    }
}

/// Cycles until an instruction's result is available, roughly as on current x86 cores.
fn latency(i: Val) -> u32 {
    use Opcode::*;
    match i.opcode() {
        LLVMFAdd | LLVMFSub | LLVMFMul => 4,
        LLVMFDiv | LLVMFRem => 14,
        LLVMLoad => 5,
        LLVMMul => 3,
        LLVMSDiv | LLVMUDiv | LLVMSRem | LLVMURem => 20,
        LLVMExtractElement | LLVMInsertElement | LLVMShuffleVector => 2,
        LLVMCall => match i.called_function().map(|f| f.name()) {
            Some(n) if n.starts_with("llvm.fmuladd.") || n.starts_with("llvm.fma.") => 4,
            Some(n) if n.starts_with("llvm.sqrt.") => 16,
            Some(n) if n.starts_with("llvm.fabs.") || n.starts_with("llvm.copysign.") => 1,
            _ => 20,
        },
        _ => 1,
    }
}

/// The dependence graph of a block's movable part.
struct Graph {
    insts: Vec<Val>,
    index: HashMap<Val, usize>,
    preds: Vec<Vec<usize>>,
    latency: Vec<u32>,
}

impl Graph {
    fn new(insts: Vec<Val>) -> Graph {
        let index: HashMap<Val, usize> = insts.iter().enumerate().map(|(k, &i)| (i, k)).collect();
        let mut preds = vec![Vec::new(); insts.len()];
        let mut last_ordered: Option<usize> = None;
        let mut loads_since: Vec<usize> = Vec::new();
        for (k, &i) in insts.iter().enumerate() {
            for o in i.operands() {
                if let Some(&p) = index.get(&o) {
                    preds[k].push(p);
                }
            }
            match motion(i) {
                Motion::Free => {}
                Motion::Load => {
                    preds[k].extend(last_ordered);
                    loads_since.push(k);
                }
                Motion::Ordered => {
                    preds[k].extend(last_ordered);
                    preds[k].append(&mut loads_since);
                    last_ordered = Some(k);
                }
            }
            preds[k].sort_unstable();
            preds[k].dedup();
        }
        let latency = insts.iter().map(|&i| latency(i)).collect();
        Graph {
            insts,
            index,
            preds,
            latency,
        }
    }

    /// Each instruction's longest latency-weighted path to the block's end.
    fn heights(&self) -> Vec<u32> {
        let mut h: Vec<u32> = self.latency.clone();
        for k in (0..self.insts.len()).rev() {
            for &p in &self.preds[k] {
                h[p] = h[p].max(self.latency[p] + h[k]);
            }
        }
        h
    }

    /// A cycle-driven list schedule: each cycle starts up to [`WIDTH`] instructions whose
    /// operands are ready, those with the longest path to the end first, ties in old order.
    fn list_schedule(&self) -> Vec<usize> {
        let n = self.insts.len();
        let heights = self.heights();
        let mut succs = vec![Vec::new(); n];
        let mut waiting: Vec<usize> = self.preds.iter().map(Vec::len).collect();
        for (k, preds) in self.preds.iter().enumerate() {
            for &p in preds {
                succs[p].push(k);
            }
        }
        let mut earliest = vec![0u64; n];
        let mut pending: BinaryHeap<(Reverse<u64>, Reverse<usize>)> = (0..n)
            .filter(|&k| waiting[k] == 0)
            .map(|k| (Reverse(0), Reverse(k)))
            .collect();
        let mut available: BinaryHeap<(u32, Reverse<usize>)> = BinaryHeap::new();
        let mut order = Vec::with_capacity(n);
        let mut now = 0u64;
        while order.len() < n {
            while let Some(&(Reverse(t), Reverse(k))) = pending.peek() {
                if t > now {
                    break;
                }
                pending.pop();
                available.push((heights[k], Reverse(k)));
            }
            if available.is_empty() {
                match pending.peek() {
                    Some(&(Reverse(t), _)) => now = t,
                    None => break,
                }
                continue;
            }
            for _ in 0..WIDTH {
                let Some((_, Reverse(k))) = available.pop() else {
                    break;
                };
                order.push(k);
                let done = now + u64::from(self.latency[k]);
                for &s in &succs[k] {
                    earliest[s] = earliest[s].max(done);
                    waiting[s] -= 1;
                    if waiting[s] == 0 {
                        pending.push((Reverse(earliest[s]), Reverse(s)));
                    }
                }
            }
            now += 1;
        }
        order
    }

    /// The most values alive at once in `order`: defined, and used later in the block or
    /// anywhere outside it.
    fn pressure(&self, order: &[usize]) -> usize {
        let n = self.insts.len();
        let mut pos = vec![0; n];
        for (p, &k) in order.iter().enumerate() {
            pos[k] = p;
        }
        // The position of each value's last use (n: used outside the block).
        let mut last: Vec<Option<usize>> = vec![None; n];
        for (k, &i) in self.insts.iter().enumerate() {
            if i.ty().is_void() {
                continue;
            }
            let block = i.parent_block();
            for u in i.users() {
                let at = match self.index.get(&u) {
                    Some(&j) if u.parent_block() == block => pos[j],
                    _ => n,
                };
                last[k] = Some(last[k].map_or(at, |l: usize| l.max(at)));
            }
        }
        let mut delta = vec![0i64; n + 2];
        for k in 0..n {
            if let Some(l) = last[k] {
                delta[pos[k]] += 1;
                delta[l + 1] -= 1;
            }
        }
        let (mut live, mut most) = (0i64, 0i64);
        for d in delta {
            live += d;
            most = most.max(live);
        }
        most as usize
    }

    /// Estimated cycles of `order` on an out-of-order core: an instruction starts when its
    /// operands are ready, the front end has reached it ([`WIDTH`] a cycle) and the one
    /// [`WINDOW`] places before it has finished.
    fn estimate(&self, order: &[usize]) -> u64 {
        let mut finish = vec![0u64; self.insts.len()];
        let mut end = 0;
        for (pos, &k) in order.iter().enumerate() {
            let mut start = (pos / WIDTH) as u64;
            for &p in &self.preds[k] {
                start = start.max(finish[p]);
            }
            if pos >= WINDOW {
                start = start.max(finish[order[pos - WINDOW]]);
            }
            finish[k] = start + u64::from(self.latency[k]);
            end = end.max(finish[k]);
        }
        end
    }
}

/// Reorders `block`'s instructions after its phis and exception pads by a latency-aware list
/// schedule, when the window model estimates the new order clearly faster.
pub fn interleave(b: &mut Builder, block: Block) -> bool {
    let all = block.instructions();
    let Some((&terminator, body)) = all.split_last() else {
        return false;
    };
    let fixed = body
        .iter()
        .take_while(|i| {
            matches!(
                i.opcode(),
                Opcode::LLVMPHI
                    | Opcode::LLVMLandingPad
                    | Opcode::LLVMCatchPad
                    | Opcode::LLVMCleanupPad
            )
        })
        .count();
    let body = &body[fixed..];
    // A `musttail` call must stay right before the `ret`: nothing may be scheduled after it.
    if body.len() < MIN_BLOCK || body.len() > MAX_BLOCK || body.iter().any(|i| i.is_musttail()) {
        return false;
    }
    let graph = Graph::new(body.to_vec());
    let old: Vec<usize> = (0..body.len()).collect();
    let new = graph.list_schedule();
    if new.len() != body.len() {
        return false;
    }
    let (before, after) = (graph.estimate(&old), graph.estimate(&new));
    if (after as f64) >= KEEP_BELOW * before as f64 {
        return false;
    }
    // The model counts no spills: an order that keeps many more values alive than the old one
    // may lose in spill code what it gains in overlap, so it is not taken on the model's word.
    let (was, now) = (graph.pressure(&old), graph.pressure(&new));
    if now > was + MORE_LIVE && now > REGISTERS {
        return false;
    }
    b.position_before(terminator);
    for k in new {
        let i = graph.insts[k];
        // Inserting through a builder renames the instruction: keep its name for readers.
        let name = i.name();
        i.remove_from_parent();
        b.insert(i);
        i.set_name(&name);
    }
    true
}

#[cfg(test)]
mod tests;
