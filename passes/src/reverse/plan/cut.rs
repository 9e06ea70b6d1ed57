//! What a block tapes, chosen as a minimum cut: of the values a block's instructions need in
//! the adjoint, those that cannot be rebuilt from arguments, constants, counters and
//! re-readable memory are kept on the tape. Keeping each of them is one choice; another is to
//! keep fewer values they are computed from (the loads of a stencil's inputs, rather than
//! every product and quotient of them) and let the adjoint compute the rest again. This module
//! picks, per run, the set of values to keep with the fewest bytes such that every needed value
//! is either kept or computed by cheap, pure instructions from kept values and values the plan
//! rebuilds anyway ([`BlockCut`]). Those values may belong to the blocks that dominate the
//! run's: in SSA form the values at hand there are the latest ones computed, and so are the
//! values each was computed from (a block defining an operand dominates its user's block, so
//! it cannot run again after the user's last run without the user's block running again before
//! the run is reached), so the run pushes, and the adjoint recomputes, exactly the values its
//! instructions read. An element loop whose body an `if` splits keeps its gathered loads once,
//! not in each half the products of them it needs.
//!
//! The choice is a minimum vertex cut in the run's dataflow graph between the values that
//! must be kept if they are needed at all (loads the adjoint cannot re-read, phis, calls that
//! are not cheap to repeat, anything computed from a value left out of the graph) and the
//! needed values, each vertex weighing its size in bytes. Ties go to keeping the needed values
//! themselves (no recomputation for nothing).
//!
//! A value of another block that runs at most once per call (the hoisted loads of a loop's
//! loop-invariant inputs) may be kept too: in the frame, once per call, not in this block's
//! slot ([`BlockCut::framed`]). It weighs its bytes divided by how often the block runs per
//! call, so the eight Jacobians of a Gauss-point loop (72 bytes per point) give way to the 24
//! coordinates they are computed from (192 bytes once).
//!
//! Guarantees: a needed value is either kept itself or rebuilt from kept values that its user
//! pops with it ([`BlockCut::kept_for`]) or that the frame holds ([`BlockCut::framed`]), so a
//! rebuilt value never reads a value that is not there; only instructions the plan may compute again ([`expandable`]: pure, safe divisions,
//! cheap intrinsics) are rebuilt; a block whose cut saves nothing is left as it was.

use super::super::needs::Need;
use crate::ir::{Block, Module, Val};
use std::collections::{HashMap, HashSet, VecDeque};

/// A vertex: a value, or the shadow of a pointer (`true`).
type Node = (Val, bool);

fn need(n: Node) -> Need {
    if n.1 {
        Need::Shadow(n.0)
    } else {
        Need::Primal(n.0)
    }
}

/// The cut of one run of instructions: needed values rebuilt from kept ones, and what each
/// one needs kept.
#[derive(Clone, Default)]
pub struct BlockCut {
    /// Values (shadows: `true`) rebuilt in the adjoint of the run's instructions: needed
    /// values and what lies between them and the kept values.
    rebuilt: HashSet<Node>,
    /// Needed value → the kept values it is computed from (tape order).
    kept: HashMap<Node, Vec<Need>>,
    /// Values of other blocks the rebuilt ones read, to be kept in the frame.
    framed: Vec<Val>,
}

impl BlockCut {
    /// What a user of needed value (or shadow) `n` pops instead of it, when it is rebuilt.
    pub fn kept_for(&self, n: Need) -> Option<&[Need]> {
        let node = match n {
            Need::Primal(v) => (v, false),
            Need::Shadow(v) => (v, true),
            Need::Saved(_) => return None,
        };
        self.kept.get(&node).map(|k| k.as_slice())
    }

    /// True when the run's adjoint rebuilds `v` (its shadow if `shadow`) from kept values.
    pub fn rebuilds(&self, v: Val, shadow: bool) -> bool {
        self.rebuilt.contains(&(v, shadow))
    }

    /// Values of other blocks the cut reads from the frame: the plan must keep them there.
    pub fn framed(&self) -> &[Val] {
        &self.framed
    }
}

const INF: u64 = u64::MAX / 4;

/// The most values one run's graph holds: past it, what the values are computed from is not
/// followed further (they are kept if needed), so a run deep in a long chain of arithmetic
/// costs a bounded search.
const MAX_NODES: usize = 4096;

/// What the plan knows about the values of block `b`, for [`block_cut`].
pub struct Facts<R, S, E, F, A>
where
    R: Fn(Val) -> bool,
    S: Fn(Val) -> bool,
    E: Fn(Val) -> bool,
    F: Fn(Val) -> Option<u64>,
    A: Fn(Val) -> bool,
{
    /// The plan rebuilds `v` in `b` without help.
    pub rebuilds: R,
    /// The plan rebuilds the shadow of `v` in `b` without help.
    pub rebuilds_shadow: S,
    /// `v` may be computed again from its operands.
    pub expandable: E,
    /// `v`, of another block, may be kept in the frame: what that weighs against one run of
    /// `b` (its bytes over the runs of `b` per call).
    pub frame_weight: F,
    /// The block of `v` (an instruction) dominates `b`: its value is at hand where `b`'s run
    /// pushes, the latest one computed, and so are those of the values it is computed from.
    pub dominates: A,
}

/// The cut of block `b` for the `needed` values and shadows of one run of its instructions
/// (instructions of `b` the plan cannot rebuild here), or `None` when keeping them as they
/// are costs no more.
pub fn block_cut<R, S, E, F, A>(
    m: Module,
    b: Block,
    needed: &[Node],
    facts: &Facts<R, S, E, F, A>,
) -> Option<BlockCut>
where
    R: Fn(Val) -> bool,
    S: Fn(Val) -> bool,
    E: Fn(Val) -> bool,
    F: Fn(Val) -> Option<u64>,
    A: Fn(Val) -> bool,
{
    if needed.is_empty() {
        return None;
    }
    // What a node is computed from (`None`: it cannot be computed again): the operands of an
    // expandable value; for the shadow of an address, its primal operands and the shadows of
    // its shadowed ones.
    let inputs = |x: Node| -> Option<Vec<Node>> {
        let (v, shadow) = x;
        if shadow {
            let shadowed = super::shadow_operands(v)?;
            Some(
                (0..v.num_operands())
                    .map(|k| (v.operand(k), shadowed.contains(&k)))
                    .collect(),
            )
        } else if (facts.expandable)(v) {
            Some(v.operands().into_iter().map(|o| (o, false)).collect())
        } else {
            None
        }
    };
    let rebuilt_anyway = |(o, shadow): Node| {
        !o.is_instruction()
            || if shadow {
                (facts.rebuilds_shadow)(o)
            } else {
                (facts.rebuilds)(o)
            }
    };
    // A value of another block the frame may hold instead (with its weight).
    let frame_weight = |(o, shadow): Node| -> Option<u64> {
        if shadow || !o.is_instruction() || o.parent_block() == b {
            return None;
        }
        (facts.frame_weight)(o)
    };
    // The graph: needed nodes and the values they are computed from, in `b` or in the blocks
    // before it whose values reach it (the same iteration's gathered loads feeding a helper
    // inlined after a branch), and the values of other blocks the frame may hold. Bounded:
    // a node whose inputs are left out is kept if needed.
    let mut index: HashMap<Node, usize> = HashMap::new();
    let mut nodes: Vec<Node> = Vec::new();
    let mut work: VecDeque<Node> = needed.iter().copied().collect();
    while let Some(x) = work.pop_front() {
        if index.contains_key(&x) || nodes.len() >= MAX_NODES {
            continue;
        }
        index.insert(x, nodes.len());
        nodes.push(x);
        if frame_weight(x).is_some() {
            continue;
        }
        for y in inputs(x).unwrap_or_default() {
            if !rebuilt_anyway(y) && (facts.dominates)(y.0) {
                work.push_back(y);
            }
        }
    }
    let n = nodes.len();
    let (s, t) = (0, 1);
    let inn = |k: usize| 2 + 2 * k;
    let out = |k: usize| 3 + 2 * k;
    let size = |x: Node| m.alloc_size(x.0.ty()).max(1);
    let mut g = Flow::new(2 + 2 * n);
    for (k, &x) in nodes.iter().enumerate() {
        if let Some(w) = frame_weight(x) {
            g.edge(inn(k), out(k), w.max(1));
            g.edge(s, inn(k), INF);
            continue;
        }
        g.edge(inn(k), out(k), size(x));
        // Kept if needed: not computable again, or computed from a value that is neither
        // rebuilt nor in the graph (past the bound).
        match inputs(x) {
            Some(ops)
                if ops
                    .iter()
                    .all(|&y| rebuilt_anyway(y) || index.contains_key(&y)) =>
            {
                for y in ops {
                    if let Some(&j) = index.get(&y) {
                        g.edge(out(j), inn(k), INF);
                    }
                }
            }
            _ => g.edge(s, inn(k), INF),
        }
    }
    let as_is: u64 = needed.iter().map(|&x| size(x)).sum();
    for x in needed {
        g.edge(out(index[x]), t, INF);
    }
    if g.max_flow(s, t) >= as_is {
        return None;
    }
    // The cut nearest the needed values: what can still reach `t` in the residual graph is
    // on its side.
    let near_t = g.reaching(t);
    let kept_set: HashSet<Node> = (0..n)
        .filter(|&k| !near_t[inn(k)] && near_t[out(k)])
        .map(|k| nodes[k])
        .collect();
    let rebuilt: HashSet<Node> = (0..n)
        .filter(|&k| near_t[inn(k)])
        .map(|k| nodes[k])
        .collect();
    let order: HashMap<Val, usize> = b
        .instructions()
        .into_iter()
        .enumerate()
        .map(|(k, i)| (i, k))
        .collect();
    let mut kept = HashMap::new();
    let mut framed: Vec<Val> = Vec::new();
    for &x in needed {
        if !rebuilt.contains(&x) {
            continue;
        }
        // The kept values `x` is computed from, in the block's order (a stable tape layout).
        let mut seen = HashSet::from([x]);
        let mut stack = vec![x];
        let mut from: Vec<Node> = Vec::new();
        while let Some(y) = stack.pop() {
            for p in inputs(y).unwrap_or_default() {
                if !seen.insert(p) {
                    continue;
                }
                if kept_set.contains(&p) && frame_weight(p).is_some() {
                    if !framed.contains(&p.0) {
                        framed.push(p.0);
                    }
                } else if kept_set.contains(&p) {
                    from.push(p);
                } else if rebuilt.contains(&p) {
                    stack.push(p);
                }
            }
        }
        from.sort_by_key(|y| order.get(&y.0).copied().unwrap_or(usize::MAX));
        kept.insert(x, from.into_iter().map(need).collect());
    }
    Some(BlockCut {
        rebuilt,
        kept,
        framed,
    })
}

/// A flow network (Edmonds–Karp: the graphs are one block's values, a few thousand edges).
struct Flow {
    /// Per vertex, indices into `to`/`cap`.
    adj: Vec<Vec<usize>>,
    to: Vec<usize>,
    cap: Vec<u64>,
}

impl Flow {
    fn new(n: usize) -> Flow {
        Flow {
            adj: vec![Vec::new(); n],
            to: Vec::new(),
            cap: Vec::new(),
        }
    }

    /// An edge `a → b` of capacity `c` (and its residual twin, at index `e ^ 1`).
    fn edge(&mut self, a: usize, b: usize, c: u64) {
        self.adj[a].push(self.to.len());
        self.to.push(b);
        self.cap.push(c);
        self.adj[b].push(self.to.len());
        self.to.push(a);
        self.cap.push(0);
    }

    fn max_flow(&mut self, s: usize, t: usize) -> u64 {
        let mut total = 0u64;
        loop {
            let mut via: Vec<Option<usize>> = vec![None; self.adj.len()];
            let mut q = VecDeque::from([s]);
            let mut seen = vec![false; self.adj.len()];
            seen[s] = true;
            while let Some(x) = q.pop_front() {
                if x == t {
                    break;
                }
                for &e in &self.adj[x] {
                    let y = self.to[e];
                    if !seen[y] && self.cap[e] > 0 {
                        seen[y] = true;
                        via[y] = Some(e);
                        q.push_back(y);
                    }
                }
            }
            if !seen[t] {
                return total;
            }
            let mut push = INF;
            let mut y = t;
            while let Some(e) = via[y] {
                push = push.min(self.cap[e]);
                y = self.to[e ^ 1];
            }
            if push >= INF {
                // An uncut path of infinite edges: nothing finite separates them.
                return INF;
            }
            let mut y = t;
            while let Some(e) = via[y] {
                self.cap[e] -= push;
                self.cap[e ^ 1] += push;
                y = self.to[e ^ 1];
            }
            total += push;
        }
    }

    /// The vertices from which `t` is reachable through edges with capacity left.
    fn reaching(&self, t: usize) -> Vec<bool> {
        let mut seen = vec![false; self.adj.len()];
        seen[t] = true;
        let mut q = VecDeque::from([t]);
        while let Some(y) = q.pop_front() {
            // Edge x → y has capacity left when its twin (stored at y) says so.
            for &e in &self.adj[y] {
                let x = self.to[e];
                if !seen[x] && self.cap[e ^ 1] > 0 {
                    seen[x] = true;
                    q.push_back(x);
                }
            }
        }
        seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{parse_test_module, Module};
    use inkwell::context::Context;

    /// The cut of `@f`'s block `body` for the needed values named, loads counting as values the
    /// plan cannot rebuild and arithmetic as expandable; `shadows` are needed address shadows.
    fn cut_of(ir: &str, needed: &[&str], shadows: &[&str]) -> Option<(Vec<String>, Vec<String>)> {
        cut_with_frame(ir, needed, shadows, None).map(|(k, r, _)| (k, r))
    }

    /// [`cut_of`], where with `runs` the loads of block `entry` are not rebuilt but may be
    /// kept in the frame, `body` running `runs` times per call (0: no frame); also the
    /// framed values.
    fn cut_with_frame(
        ir: &str,
        needed: &[&str],
        shadows: &[&str],
        runs: Option<u64>,
    ) -> Option<(Vec<String>, Vec<String>, Vec<String>)> {
        let ctx = Context::create();
        let text = format!("target datalayout = \"e-m:e-i64:64-f80:128-n8:16:32:64-S128\"\n{ir}");
        let module = parse_test_module(&ctx, &text);
        let m = Module(module.as_mut_ptr());
        m.verify().expect("valid test IR");
        let f = m.function("f").expect("@f");
        let b = f.blocks()[1];
        let named = |n: &str| {
            b.instructions()
                .into_iter()
                .find(|i| i.name() == n)
                .unwrap_or_else(|| panic!("no %{n}"))
        };
        let mut want: Vec<Node> = needed.iter().map(|n| (named(n), false)).collect();
        want.extend(shadows.iter().map(|n| (named(n), true)));
        let entry_load = |v: Val| {
            runs.is_some() && v.parent_block() != b && v.opcode() == crate::ir::Opcode::LLVMLoad
        };
        let facts = Facts {
            rebuilds: |v: Val| v.parent_block() != b && !entry_load(v),
            rebuilds_shadow: |v: Val| v.parent_block() != b,
            expandable: |v: Val| crate::analysis::opcodes::is_pure(v.opcode()),
            frame_weight: |v: Val| match runs {
                Some(n) if n > 0 && entry_load(v) => Some(m.alloc_size(v.ty()) / n),
                _ => None,
            },
            dominates: |v: Val| v.parent_block() == b || v.parent_block() == f.blocks()[0],
        };
        let cut = block_cut(m, b, &want, &facts)?;
        let mut kept: Vec<String> = want
            .iter()
            .filter_map(|&x| cut.kept_for(need(x)))
            .flatten()
            .map(|n| match *n {
                Need::Primal(v) => v.name(),
                Need::Shadow(v) => format!("shadow {}", v.name()),
                Need::Saved(v) => v.name(),
            })
            .collect();
        kept.sort();
        kept.dedup();
        let mut rebuilt: Vec<String> = want
            .iter()
            .filter(|&&(v, s)| cut.rebuilds(v, s))
            .map(|&(v, s)| {
                if s {
                    format!("shadow {}", v.name())
                } else {
                    v.name()
                }
            })
            .collect();
        rebuilt.sort();
        let mut framed: Vec<String> = cut.framed().iter().map(|v| v.name()).collect();
        framed.sort();
        Some((kept, rebuilt, framed))
    }

    /// A loop body computing three products of two loop-invariant loads made before the loop:
    /// run often enough, the two loads are kept once in the frame and the products rebuilt;
    /// run once, the products are kept where keeping the loads would cost as much.
    const INVARIANT_INPUTS: &str = r#"
define double @f(ptr %x) {
entry:
  %a = load double, ptr %x
  %pb = getelementptr double, ptr %x, i64 1
  %b = load double, ptr %pb
  br label %body
body:
  %p = fmul double %a, %b
  %q = fadd double %a, %b
  %r = fsub double %a, %b
  %t = fmul double %p, %q
  %u = fmul double %t, %r
  ret double %u
}
"#;

    #[test]
    fn loop_invariant_inputs_go_to_the_frame_when_the_block_runs_often() {
        let (kept, rebuilt, framed) =
            cut_with_frame(INVARIANT_INPUTS, &["p", "q", "r"], &[], Some(8)).expect("a cut");
        assert!(kept.is_empty(), "nothing in the block's slot: {kept:?}");
        assert_eq!(rebuilt, ["p", "q", "r"]);
        assert_eq!(framed, ["a", "b"]);
    }

    #[test]
    fn loop_invariant_inputs_stay_out_of_the_frame_when_they_cost_more() {
        // Once per call, two loads (16 bytes) against two products (16 bytes): a tie keeps
        // the needed values themselves.
        assert!(cut_with_frame(INVARIANT_INPUTS, &["p", "q"], &[], Some(1)).is_none());
        // Without the frame, another block's values that are not rebuilt are kept in this
        // block's slot instead of the three products they make.
        let (kept, rebuilt, framed) =
            cut_with_frame(INVARIANT_INPUTS, &["p", "q", "r"], &[], Some(0)).expect("a cut");
        assert_eq!(
            (kept, rebuilt),
            (
                vec!["a".into(), "b".into()],
                vec!["p".into(), "q".into(), "r".into()]
            )
        );
        assert!(framed.is_empty());
    }

    const STENCIL: &str = r#"
define double @f(ptr %x) {
entry:
  br label %body
body:
  %a = load double, ptr %x
  %pb = getelementptr double, ptr %x, i64 1
  %b = load double, ptr %pb
  %p = fmul double %a, %b
  %q = fadd double %a, %b
  %r = fsub double %a, %b
  %t = fmul double %p, %q
  %u = fmul double %t, %r
  ret double %u
}
"#;

    #[test]
    fn products_of_two_loads_keep_the_loads() {
        // The adjoints of %t and %u read %p, %q, %t and %r (32 bytes); %a and %b are 16.
        let (kept, rebuilt) = cut_of(STENCIL, &["p", "q", "t", "r"], &[]).expect("a cut");
        assert_eq!(kept, ["a", "b"]);
        assert_eq!(rebuilt, ["p", "q", "r", "t"]);
    }

    #[test]
    fn no_cut_when_it_saves_nothing() {
        // %p alone (8 bytes) costs less than the two loads it is computed from.
        assert!(cut_of(STENCIL, &["p"], &[]).is_none());
        // A tie (%p and %q against %a and %b) keeps the needed values.
        assert!(cut_of(STENCIL, &["p", "q"], &[]).is_none());
    }

    const GATHER: &str = r#"
define void @f(ptr %idx, ptr %x, ptr %y, ptr %z) {
entry:
  br label %body
body:
  %k = load i32, ptr %idx
  %j = sext i32 %k to i64
  %px = getelementptr double, ptr %x, i64 %j
  %py = getelementptr double, ptr %y, i64 %j
  %pz = getelementptr double, ptr %z, i64 %j
  ret void
}
"#;

    #[test]
    fn address_shadows_of_a_gather_keep_the_index() {
        // Three shadow addresses (24 bytes) from one 4-byte index.
        let (kept, rebuilt) = cut_of(GATHER, &[], &["px", "py", "pz"]).expect("a cut");
        assert_eq!(kept, ["k"]);
        assert_eq!(rebuilt, ["shadow px", "shadow py", "shadow pz"]);
    }
}
