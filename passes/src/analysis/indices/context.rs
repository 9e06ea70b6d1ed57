//! Facts about atoms that hold at a point of the function ([`Facts`]): linear constraints over
//! the atoms of [`super::forms`], some of them conditional on premises the other facts must
//! imply.
//!
//! - *Branch facts*: a block whose single predecessor ends in a conditional branch on an
//!   integer comparison (or an `and`/`or` of comparisons) runs only when the comparison came
//!   out that way; every such edge on the dominator chain of a point holds there (for atoms of
//!   loops left since, at their last iteration).
//! - *Loop facts*, for every iteration of a natural loop `L` (`t = Counter(L) ≥ 0`): for an
//!   exit test `X pred B` at a block on every path to the latch, with `B` invariant in `L` and
//!   `X = X₀ + s·t`, the test passed in iteration `t - 1`, so `X - s` passes it in iteration
//!   `t`, and in iteration 0 too when the other facts imply `X₀ - s` passes it (the guard of a
//!   rotated loop). For an exit on `X == B` (or on `X != B` failing) at the loop's only exit,
//!   tested in every iteration, with `B - X` a multiple of `s` whatever the atoms are, `X`
//!   steps onto `B` without skipping it: `X ≤ B` (`X ≥ B` when `s < 0`) in every iteration,
//!   and `X + s ≤ B` on the edge that stays in the loop. (A loop whose
//!   counter starts past `B` would never end, or wrap, which is poison under `nsw` and assumed
//!   not to happen within 2^52 iterations otherwise: see [`super::forms`].)
//! - *Atom facts*: `0 ≤ x - 2^k · Floor(x, k) ≤ 2^k - 1`.

use super::forms::{Alt, Atom, Forms};
use super::loops::Loops;
use super::solver::{Lin, System};
use crate::ir::{inverse_pred, swapped_pred, Block, IntPred, Opcode, Val};
use std::collections::{BTreeSet, HashMap};

/// What a conditional fact needs from the other facts: each of `nonneg` is `≥ 0`, each
/// `(d, s)` of `multiple` is a multiple of `s`.
#[derive(Clone, Debug, Default)]
pub struct Premises {
    pub nonneg: Vec<Lin>,
    pub multiple: Vec<(Lin, i128)>,
}

impl From<Vec<Lin>> for Premises {
    fn from(nonneg: Vec<Lin>) -> Premises {
        Premises {
            nonneg,
            multiple: Vec::new(),
        }
    }
}

/// Constraints, some holding only when their premises follow from the rest.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    pub sys: System,
    pub cond: Vec<(Premises, System)>,
}

/// A variable no atom uses: the quotient of a divisibility test.
const QUOTIENT: usize = usize::MAX / 4;

/// True when `sys` implies that `d` is a multiple of `s` (no solution leaves a remainder).
fn implies_multiple(sys: &System, d: &Lin, s: i128) -> bool {
    let s = s.abs();
    if s > 64 {
        return false;
    }
    (1..s).all(|r| {
        let mut t = sys.clone();
        let Some(e) = d
            .add_scaled(&Lin::var(QUOTIENT), -s)
            .and_then(|e| e.plus(-r))
        else {
            return false;
        };
        t.zero.push(e);
        super::solver::infeasible(&t)
    })
}

impl Facts {
    pub fn merge(&mut self, o: &Facts) {
        self.sys.extend(&o.sys);
        self.cond.extend(o.cond.iter().cloned());
    }

    fn add(&mut self, premises: impl Into<Premises>, s: System) {
        let premises = premises.into();
        if premises.nonneg.is_empty() && premises.multiple.is_empty() {
            self.sys.extend(&s);
        } else {
            self.cond.push((premises, s));
        }
    }

    /// The unconditional facts plus every conditional one whose premises they imply.
    pub fn resolve(&self) -> System {
        let mut sys = self.sys.clone();
        let mut left: Vec<&(Premises, System)> = self.cond.iter().collect();
        for _ in 0..3 {
            let before = left.len();
            left.retain(|(p, s)| {
                let holds = p.nonneg.iter().all(|e| sys.implies_nonneg(e))
                    && p.multiple
                        .iter()
                        .all(|(d, k)| implies_multiple(&sys, d, *k));
                if holds {
                    sys.extend(s);
                }
                !holds
            });
            if left.len() == before {
                break;
            }
        }
        sys
    }
}

/// Memoised facts of one function.
#[derive(Default)]
pub struct Contexts {
    blocks: HashMap<Block, Facts>,
    loops: HashMap<usize, Facts>,
}

/// A comparison `a pred b` in the direction taken.
fn comparison(c: Val, truth: bool) -> Option<(IntPred, Val, Val, bool)> {
    if !c.is_instruction() || c.opcode() != Opcode::LLVMICmp {
        return None;
    }
    let (a, b) = (c.operand(0), c.operand(1));
    if !a.ty().is_int() {
        return None;
    }
    let p = c.int_predicate();
    Some((
        if truth { p } else { inverse_pred(p) },
        a,
        b,
        c.icmp_same_sign(),
    ))
}

/// `a pred b` as constraints and the premises they need (unsigned comparisons: signed when
/// the operands have the same sign, or when the smaller side is non-negative). `None` for
/// `!=`.
fn relation(p: IntPred, a: &Lin, b: &Lin, same_sign: bool) -> Option<(Vec<Lin>, System)> {
    use IntPred::*;
    let mut s = System::default();
    let mut premises = Vec::new();
    let one = Lin::constant(1);
    let signed = match p {
        LLVMIntULT | LLVMIntULE if !same_sign => {
            premises.push(b.clone());
            if p == LLVMIntULT {
                LLVMIntSLT
            } else {
                LLVMIntSLE
            }
        }
        LLVMIntUGT | LLVMIntUGE if !same_sign => {
            premises.push(a.clone());
            if p == LLVMIntUGT {
                LLVMIntSGT
            } else {
                LLVMIntSGE
            }
        }
        LLVMIntULT => LLVMIntSLT,
        LLVMIntULE => LLVMIntSLE,
        LLVMIntUGT => LLVMIntSGT,
        LLVMIntUGE => LLVMIntSGE,
        q => q,
    };
    match signed {
        LLVMIntEQ => s.eq(a, b),
        LLVMIntSLT => s.le(&a.add(&one)?, b),
        LLVMIntSLE => s.le(a, b),
        LLVMIntSGT => s.ge(a, &b.add(&one)?),
        LLVMIntSGE => s.ge(a, b),
        _ => return None,
    }
    Some((premises, s))
}

/// The single alternative of a form, with its obligations.
fn single(alts: Vec<Alt>) -> Option<(Lin, Vec<Lin>)> {
    match <[Alt; 1]>::try_from(alts) {
        Ok([a]) => Some((a.lin, a.obligations)),
        Err(_) => None,
    }
}

impl Contexts {
    /// Facts holding whenever condition `c` is `truth`.
    fn condition(&mut self, forms: &mut Forms, loops: &Loops, c: Val, truth: bool) -> Facts {
        let mut f = Facts::default();
        if c.is_instruction() {
            let parts = match (c.opcode(), truth) {
                (Opcode::LLVMAnd, true) | (Opcode::LLVMOr, false) if c.ty().is_int() => {
                    Some((c.operand(0), c.operand(1)))
                }
                // select a, b, false (and) / select a, true, b (or)
                (Opcode::LLVMSelect, true)
                    if c.operand(2).const_int_value() == Some(0) && c.ty().is_int() =>
                {
                    Some((c.operand(0), c.operand(1)))
                }
                (Opcode::LLVMSelect, false)
                    if c.operand(1).const_int_value() == Some(1) && c.ty().is_int() =>
                {
                    Some((c.operand(0), c.operand(2)))
                }
                _ => None,
            };
            if let Some((x, y)) = parts {
                f.merge(&self.condition(forms, loops, x, truth));
                f.merge(&self.condition(forms, loops, y, truth));
                return f;
            }
            if c.opcode() == Opcode::LLVMXor && c.operand(1).const_int_value() == Some(1) {
                return self.condition(forms, loops, c.operand(0), !truth);
            }
        }
        let Some((p, a, b, same)) = comparison(c, truth) else {
            return f;
        };
        let (Some((la, oa)), Some((lb, ob))) =
            (single(forms.int(loops, a)), single(forms.int(loops, b)))
        else {
            return f;
        };
        if let Some((mut premises, s)) = relation(p, &la, &lb, same) {
            premises.extend(oa);
            premises.extend(ob);
            f.add(premises, s);
        }
        f
    }

    /// Facts holding right after edge `from → to` is taken.
    pub fn edge(&mut self, forms: &mut Forms, loops: &Loops, from: Block, to: Block) -> Facts {
        let mut f = Facts::default();
        let Some(t) = from.terminator() else {
            return f;
        };
        if t.opcode() != Opcode::LLVMBr || t.num_operands() != 3 {
            return f;
        }
        let succ = t.successors();
        if succ[0] == succ[1] {
            return f;
        }
        let truth = succ[0] == to;
        let c = t.operand(0);
        f.merge(&self.condition(forms, loops, c, truth));
        // The edge staying in a loop whose only exit counts to its bound: strictly before it.
        for &l in loops.nest(from) {
            let lp = &loops.loops[l];
            if lp.exiting == [from] && lp.body.contains(&to) {
                if let Some((x, b, s, premises)) = self.counted(forms, loops, l) {
                    let mut sys = System::default();
                    // X ≠ B, X on the way to B, B - X a multiple of s.
                    let Some(next) = x.plus(s) else { continue };
                    if s > 0 {
                        sys.le(&next, &b);
                    } else {
                        sys.ge(&next, &b);
                    }
                    f.add(premises, sys);
                }
            }
        }
        f
    }

    /// The exit test of loop `l` when it is `X == B` at its only exit, `X = X₀ ± t`, `B`
    /// invariant: (X, B, step, premises).
    fn counted(
        &mut self,
        forms: &mut Forms,
        loops: &Loops,
        l: usize,
    ) -> Option<(Lin, Lin, i128, Premises)> {
        let lp = &loops.loops[l];
        let &[e] = lp.exiting.as_slice() else {
            return None;
        };
        // Tested in every iteration, so the counter cannot step over its bound untested.
        if !lp.latches.iter().all(|&la| loops.dominates(e, la)) {
            return None;
        }
        let (p, x, b, _, s, premises) = self.exit_test(forms, loops, l, e)?;
        if p != IntPred::LLVMIntNE {
            return None;
        }
        // X steps by s onto B exactly: B - X is a multiple of s (whatever the atoms are, or
        // as the other facts imply).
        let d = b.sub(&x)?;
        let onto = d.constant % s == 0 && d.terms.values().all(|c| c % s == 0);
        let mut premises = Premises::from(premises);
        if !onto {
            premises.multiple.push((d, s));
        }
        Some((x, b, s, premises))
    }

    /// The test at exiting block `e` of loop `l` as `X pred B` for going on, with `B`
    /// invariant in `l` and `X = X₀ + s·t` (`X₀` invariant): (pred, X, B, samesign, s,
    /// obligations).
    #[allow(clippy::type_complexity)]
    fn exit_test(
        &mut self,
        forms: &mut Forms,
        loops: &Loops,
        l: usize,
        e: Block,
    ) -> Option<(IntPred, Lin, Lin, bool, i128, Vec<Lin>)> {
        let lp = &loops.loops[l];
        let t = e.terminator()?;
        if t.opcode() != Opcode::LLVMBr || t.num_operands() != 3 {
            return None;
        }
        let succ = t.successors();
        let on = match (lp.body.contains(&succ[0]), lp.body.contains(&succ[1])) {
            (true, false) => true,
            (false, true) => false,
            _ => return None,
        };
        let (p, a, b, same) = comparison(t.operand(0), on)?;
        let (la, mut oa) = single(forms.int(loops, a))?;
        let (lb, ob) = single(forms.int(loops, b))?;
        oa.extend(ob);
        let counter = forms.atom(Atom::Counter(l));
        let invariant = |forms: &Forms, x: &Lin| {
            x.terms.keys().all(|&k| {
                k != counter
                    && forms
                        .def_block(loops, k)
                        .is_none_or(|d| !lp.body.contains(&d))
            })
        };
        let rest = |x: &Lin| {
            let mut r = x.clone();
            r.terms.remove(&counter);
            r
        };
        let (sa, sb) = (la.coefficient(counter), lb.coefficient(counter));
        if sa != 0 && sb == 0 && invariant(forms, &rest(&la)) && invariant(forms, &lb) {
            Some((p, la, lb, same, sa, oa))
        } else if sb != 0 && sa == 0 && invariant(forms, &rest(&lb)) && invariant(forms, &la) {
            Some((swapped_pred(p), lb, la, same, sb, oa))
        } else {
            None
        }
    }

    /// Facts of every iteration of loop `l` (see the module doc).
    pub fn loop_facts(&mut self, forms: &mut Forms, loops: &Loops, l: usize) -> Facts {
        if let Some(f) = self.loops.get(&l) {
            return f.clone();
        }
        let mut f = Facts::default();
        let t = Lin::var(forms.atom(Atom::Counter(l)));
        f.sys.ge(&t, &Lin::default());
        let counter = forms.atom(Atom::Counter(l));
        let lp = &loops.loops[l];
        if let Some((x, b, s, premises)) = self.counted(forms, loops, l) {
            let mut sys = System::default();
            if s > 0 {
                sys.le(&x, &b);
            } else {
                sys.ge(&x, &b);
            }
            f.add(premises, sys);
        }
        let exiting = lp.exiting.clone();
        for e in exiting {
            if !lp.latches.iter().all(|&la| loops.dominates(e, la)) {
                continue;
            }
            let Some((p, x, b, same, s, mut premises)) = self.exit_test(forms, loops, l, e) else {
                continue;
            };
            // X - s passed the test (in iteration t - 1, or as the guard of iteration 0).
            let Some(prev) = x.plus(-s) else { continue };
            let mut first = prev.clone();
            first.terms.remove(&counter);
            let (Some((p0, s0)), Some((p1, s1))) =
                (relation(p, &first, &b, same), relation(p, &prev, &b, same))
            else {
                continue;
            };
            // The guard: every constraint of iteration 0's test as a premise.
            premises.extend(p0);
            premises.extend(s0.nonneg);
            if !s0.zero.is_empty() {
                continue;
            }
            premises.extend(p1);
            f.add(premises, s1);
        }
        self.loops.insert(l, f.clone());
        f
    }

    /// Facts holding at block `b`: branch facts along its dominator chain and loop facts of
    /// every loop containing a block of that chain.
    pub fn block(&mut self, forms: &mut Forms, loops: &Loops, b: Block) -> Facts {
        if let Some(f) = self.blocks.get(&b) {
            return f.clone();
        }
        let mut f = Facts::default();
        let mut nest = BTreeSet::new();
        let mut c = b;
        nest.extend(loops.nest(c).iter().copied());
        while let Some(d) = loops.idom(c) {
            if loops.preds(c) == [d] {
                f.merge(&self.edge(forms, loops, d, c));
            }
            nest.extend(loops.nest(d).iter().copied());
            c = d;
        }
        for l in nest {
            f.merge(&self.loop_facts(forms, loops, l));
        }
        self.blocks.insert(b, f.clone());
        f
    }

    /// Facts of the atoms in `f` and in `lins` (and of the atoms those facts mention): loop
    /// facts of counters, bounds of `Floor` atoms.
    pub fn atom_facts(&mut self, forms: &mut Forms, loops: &Loops, f: &mut Facts, lins: &[&Lin]) {
        let mut done = BTreeSet::new();
        loop {
            let mut atoms = BTreeSet::new();
            let mut collect = |l: &Lin| atoms.extend(l.terms.keys().copied());
            for l in lins {
                collect(l);
            }
            for l in f.sys.nonneg.iter().chain(&f.sys.zero) {
                collect(l);
            }
            for (p, s) in &f.cond {
                p.nonneg
                    .iter()
                    .chain(p.multiple.iter().map(|(d, _)| d))
                    .chain(&s.nonneg)
                    .chain(&s.zero)
                    .for_each(&mut collect);
            }
            let new: Vec<usize> = atoms.into_iter().filter(|a| done.insert(*a)).collect();
            if new.is_empty() {
                return;
            }
            for a in new {
                match forms.atoms[a] {
                    Atom::Counter(l) => f.merge(&self.loop_facts(forms, loops, l)),
                    Atom::Floor(x, k) => {
                        if let Some((lx, ox)) = single(forms.int(loops, x)) {
                            let Some(rest) = lx.add_scaled(&Lin::var(a), -(1i128 << k)) else {
                                continue;
                            };
                            let mut s = System::default();
                            s.ge(&rest, &Lin::default());
                            s.le(&rest, &Lin::constant((1i128 << k) - 1));
                            f.add(ox, s);
                        }
                    }
                    Atom::Value(_) | Atom::Lane(_) => {}
                }
            }
        }
    }
}
