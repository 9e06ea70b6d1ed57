//! [`PredChoice`]: how the adjoint tells which predecessor entered a block by evaluating the
//! branch conditions that decided it again, so the forward sweep records nothing there.
//!
//! A block's predecessors are told apart by a tree of conditional branches: the nearest common
//! dominator of a set of predecessors ends in `br i1 c`, and each predecessor of the set lies
//! on one side of it — it is that block itself (its edge straight to the block) or it is
//! dominated by a successor that only the branch enters, so every path to it takes that edge.
//! The sides are split further the same way until one predecessor is left on each.
//!
//! Why it is sound: a path entering the block from a predecessor of the set passes the
//! dominator, and from its last run there to the block it does not pass it again, so the side
//! that run took is the side the predecessor is on; the predecessors of the set are dominated
//! by it, so the condition was computed on the path (its rebuild re-reads nothing the forward
//! sweep did not read) and in the block's iteration of every loop it depends on (the plan only
//! accepts conditions rebuildable in the block, [`super::plan::ReversePlan::pred_choice`]).

use super::cfg::ReverseCfg;
use crate::ir::{Block, Opcode, Val};
use std::collections::{HashMap, HashSet};

/// Which predecessor entered a block, as a decision on rebuilt branch conditions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PredChoice {
    /// This predecessor (an index into [`ReverseCfg::preds`]).
    Pred(usize),
    /// One of `if_true`'s predecessors when `cond` (an `i1`) holds, else one of `if_false`'s.
    Branch {
        cond: Val,
        if_true: Box<PredChoice>,
        if_false: Box<PredChoice>,
    },
}

impl PredChoice {
    /// Every condition the choice evaluates.
    pub fn conds(&self) -> Vec<Val> {
        match self {
            PredChoice::Pred(_) => Vec::new(),
            PredChoice::Branch {
                cond,
                if_true,
                if_false,
            } => {
                let mut v = vec![*cond];
                v.extend(if_true.conds());
                v.extend(if_false.conds());
                v
            }
        }
    }
}

/// How the adjoint can tell `b`'s predecessors apart by branch conditions, when `b` has
/// several and the branches decide them (see the module docs). `dom`: each block's dominators.
pub fn pred_choice(
    cfg: &ReverseCfg,
    dom: &HashMap<Block, HashSet<Block>>,
    b: Block,
) -> Option<PredChoice> {
    let preds = cfg.preds(b);
    if preds.len() < 2 {
        return None;
    }
    decide(cfg, dom, b, &(0..preds.len()).collect::<Vec<_>>())
}

/// The decision among predecessors `set` (indices) of `b`.
fn decide(
    cfg: &ReverseCfg,
    dom: &HashMap<Block, HashSet<Block>>,
    b: Block,
    set: &[usize],
) -> Option<PredChoice> {
    if let [only] = set {
        return Some(PredChoice::Pred(*only));
    }
    let preds = cfg.preds(b);
    let d = nearest_common_dominator(dom, set.iter().map(|&k| preds[k]))?;
    let t = d.terminator()?;
    if t.opcode() != Opcode::LLVMBr || t.num_operands() != 3 {
        return None;
    }
    let succs = t.successors();
    let (on_true, on_false) = (succs[0], succs[1]);
    if on_true == on_false {
        return None;
    }
    // Which side of `d`'s branch every path to `p` (then to `b`) leaves `d` by.
    let side = |p: Block| -> Option<bool> {
        if p == d {
            return Some(on_true == b);
        }
        let only_from_d = |s: Block| s != b && cfg.preds(s) == [d];
        let dominated_by = |s: Block| dom.get(&p).is_some_and(|ds| ds.contains(&s));
        if only_from_d(on_true) && dominated_by(on_true) {
            Some(true)
        } else if only_from_d(on_false) && dominated_by(on_false) {
            Some(false)
        } else {
            None
        }
    };
    let (mut trues, mut falses) = (Vec::new(), Vec::new());
    for &k in set {
        if side(preds[k])? {
            trues.push(k);
        } else {
            falses.push(k);
        }
    }
    if trues.is_empty() || falses.is_empty() {
        return None;
    }
    Some(PredChoice::Branch {
        cond: t.operand(0),
        if_true: Box::new(decide(cfg, dom, b, &trues)?),
        if_false: Box::new(decide(cfg, dom, b, &falses)?),
    })
}

/// The deepest block dominating every one of `blocks` (dominators form a chain: the deepest
/// has the most dominators of its own).
fn nearest_common_dominator(
    dom: &HashMap<Block, HashSet<Block>>,
    mut blocks: impl Iterator<Item = Block>,
) -> Option<Block> {
    let first = blocks.next()?;
    let mut common: HashSet<Block> = dom.get(&first)?.clone();
    for x in blocks {
        let dx = dom.get(&x)?;
        common.retain(|c| dx.contains(c));
    }
    common
        .into_iter()
        .max_by_key(|c| dom.get(c).map_or(0, HashSet::len))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_test_module;
    use inkwell::context::Context;

    /// The choice for block `join` of `@f` (body `blocks`), with conditions and predecessors
    /// by name: `c ? (...) : (...)`.
    fn choice_of(blocks: &str) -> Option<String> {
        let ctx = Context::create();
        let ir = format!("define void @f(i1 %a, i1 %b, i1 %c, i64 %n) {{\n{blocks}\n}}");
        let module = parse_test_module(&ctx, &ir);
        let m = crate::ir::Module(module.as_mut_ptr());
        let f = m.function("f").expect("f");
        let cfg = ReverseCfg::of(f);
        let dom = super::super::plan::dominators(&cfg);
        let join = f
            .blocks()
            .into_iter()
            .find(|b| b.as_value().name() == "join")
            .expect("join");
        let preds = cfg.preds(join).to_vec();
        fn show(c: &PredChoice, preds: &[Block]) -> String {
            match c {
                PredChoice::Pred(k) => preds[*k].as_value().name(),
                PredChoice::Branch {
                    cond,
                    if_true,
                    if_false,
                } => format!(
                    "{} ? ({}) : ({})",
                    cond.name(),
                    show(if_true, preds),
                    show(if_false, preds)
                ),
            }
        }
        pred_choice(&cfg, &dom, join).map(|c| show(&c, &preds))
    }

    #[test]
    fn an_if_with_or_without_else_is_decided_by_its_condition() {
        let diamond = "entry:\n  br i1 %c, label %then, label %else\nthen:\n  br label %join\nelse:\n  br label %join\njoin:\n  ret void";
        assert_eq!(choice_of(diamond).as_deref(), Some("c ? (then) : (else)"));
        let triangle = "entry:\n  br i1 %c, label %join, label %skip\nskip:\n  br label %join\njoin:\n  ret void";
        assert_eq!(choice_of(triangle).as_deref(), Some("c ? (entry) : (skip)"));
    }

    #[test]
    fn an_else_if_chain_into_one_join_is_decided_branch_by_branch() {
        // if (a) x; else if (b) y; else { if (c) z; w }
        let chain = "entry:\n  br i1 %a, label %x, label %next\nnext:\n  br i1 %b, label %y, label %rest\nrest:\n  br i1 %c, label %z, label %w\nz:\n  br label %w\nw:\n  br label %join\nx:\n  br label %join\ny:\n  br label %join\njoin:\n  ret void";
        assert_eq!(
            choice_of(chain).as_deref(),
            Some("a ? (x) : (b ? (y) : (w))")
        );
    }

    #[test]
    fn predecessors_on_one_side_of_no_branch_are_not_decided() {
        // A switch decides the join: no conditional branch does.
        let switch = "entry:\n  switch i64 %n, label %x [ i64 1, label %y ]\nx:\n  br label %join\ny:\n  br label %join\njoin:\n  ret void";
        assert_eq!(choice_of(switch), None);
        // Both predecessors behind the true side, reached from both sides of `b` as well: the
        // second block is entered from two places, so no edge decides it.
        let merged = "entry:\n  br i1 %a, label %p, label %q\np:\n  br i1 %b, label %x, label %y\nq:\n  br label %y\nx:\n  br label %join\ny:\n  br label %join\njoin:\n  ret void";
        assert_eq!(choice_of(merged), None);
    }
}
