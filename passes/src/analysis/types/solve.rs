//! The fixed point: [`analyze`] runs rounds of the transfer functions ([`super::transfer`])
//! over every context of every function in scope until nothing changes, and between fixed
//! points gives call sites whose callers conflict (or whose shared context keeps climbing)
//! contexts of their own ([`specialise`]).

use super::queries::TypeResults;
use super::scope;
use super::seeds::{CallSeed, RequestSite};
use super::transfer::Analysis;
use super::tree::Tree;
use crate::ir::{Module, Opcode, Val};
use std::collections::{HashMap, HashSet};

/// Rounds of the whole-module fixed point before giving up (each round visits every
/// instruction; trees are bounded, so this is only a guard against a slow climb).
const MAX_ROUNDS: usize = 200;

/// Rounds of specialisation: each may give the call sites of helpers whose parameters
/// conflict their own contexts (a helper calling a helper needs one round per level).
const MAX_SPLIT_ROUNDS: usize = 4;

/// Fixed points cut short to specialise where they climb ([`Analysis::restless`]), before the
/// last [`MAX_SPLIT_ROUNDS`] that run to the end.
const MAX_EARLY_SPLITS: usize = 12;

/// Rounds after which a fixed point in which a shared parameter or return still reaches higher
/// offsets is taken to be climbing ([`Analysis::restless`]). Settling takes a few rounds per
/// level of calls a type crosses (libstdc++ at -O0 takes up to about a hundred, mostly filling
/// in what is already within reach).
const SETTLE_ROUNDS: usize = 150;

/// Rounds all fixed points of one analysis may take together: a bound on the time a module
/// that keeps climbing costs before the analysis gives up (Eigen's fixed-size products at -O0
/// settle in about 650).
const MAX_TOTAL_ROUNDS: usize = 1000;

/// The type analysis of `funcs` in `m`, with calls seeded by `seed`, specialised per call
/// site where a helper's callers pass differently typed memory. The derivative `requests`
/// (whose calls must be in `funcs`) are calls of the functions they differentiate. Only the
/// functions calls connect to the requests (or to an address taken) are visited ([`scope`]):
/// no answer elsewhere can change one there.
pub fn analyze(
    m: Module,
    funcs: &[Val],
    seed: fn(Val) -> CallSeed,
    requests: Vec<RequestSite>,
) -> TypeResults {
    let funcs = &scope::in_scope(funcs, &requests);
    let mut callees = HashMap::new();
    let mut contexts = HashMap::new();
    let mut requests: HashMap<Val, RequestSite> = requests
        .into_iter()
        .filter(|s| funcs.contains(&s.function))
        .map(|s| (s.call, s))
        .collect();
    let (mut rounds, mut early, mut budget) = (0, 0, MAX_TOTAL_ROUNDS);
    loop {
        let split_early = early < MAX_EARLY_SPLITS;
        let (mut r, cut, used) = fixed_point(
            m,
            funcs,
            seed,
            callees,
            contexts,
            requests,
            Limits {
                split_early,
                budget,
            },
        );
        budget -= used;
        let (cut, restless) = match cut {
            Some(restless) => (true, restless),
            None => (false, HashSet::new()),
        };
        if cut {
            early += 1;
        } else {
            rounds += 1;
            if !r.converged || rounds > MAX_SPLIT_ROUNDS {
                return r;
            }
        }
        match specialise(&r, funcs, &restless) {
            Some((c, n)) => {
                (callees, contexts) = (c, n);
                requests = std::mem::take(&mut r.requests);
            }
            // Not after a cut (its climbing contexts are split), but should it be: run to the end.
            None if cut => {
                (callees, contexts) = (r.callees, r.contexts);
                requests = r.requests;
                early = MAX_EARLY_SPLITS;
            }
            None => {
                r.sites = incoming_calls(&r, funcs).into_iter().collect();
                return r;
            }
        }
    }
}

/// What one fixed point may do: stop early to specialise, and take at most `budget` rounds.
struct Limits {
    split_early: bool,
    budget: usize,
}

/// The fixed point over every context of every function, with the call sites' contexts given.
/// With `split_early`, it stops past [`SETTLE_ROUNDS`] at the end of the first round in which
/// a parameter or return of a function context that several call sites reach climbs to higher
/// offsets: `Some` of those contexts then, for [`specialise`] to split with the conflicting
/// ones.
fn fixed_point(
    m: Module,
    funcs: &[Val],
    seed: fn(Val) -> CallSeed,
    callees: HashMap<(u32, Val), u32>,
    contexts: HashMap<Val, u32>,
    requests: HashMap<Val, RequestSite>,
    limits: Limits,
) -> (TypeResults, Option<HashSet<(Val, u32)>>, usize) {
    let Limits {
        split_early,
        budget,
    } = limits;
    let mut a = Analysis {
        m,
        info: TypeResults {
            trees: HashMap::new(),
            returns: HashMap::new(),
            callees,
            contexts,
            sites: HashMap::new(),
            requests,
            converged: false,
            hints: HashSet::new(),
        },
        changed: false,
        seed,
        ctx: 0,
        indices: HashMap::new(),
        ranges: HashMap::new(),
        shared: HashSet::new(),
        restless: None,
    };
    if split_early {
        a.shared = incoming_calls(&a.info, funcs)
            .into_iter()
            .filter(|(_, sites)| sites.len() > 1)
            .map(|(key, _)| key)
            .collect();
    }
    for round in 0..MAX_ROUNDS.min(budget) {
        a.changed = false;
        if round >= SETTLE_ROUNDS && !a.shared.is_empty() {
            a.restless = Some(HashSet::new());
        }
        for &f in funcs {
            for ctx in 0..a.info.contexts.get(&f).copied().unwrap_or(1) {
                a.ctx = ctx;
                for b in f.blocks() {
                    for i in b.instructions() {
                        a.visit(i);
                    }
                }
            }
        }
        if !a.changed {
            a.info.converged = true;
            return (a.info, None, round + 1);
        }
        let restless = a.restless.take().unwrap_or_default();
        if !restless.is_empty() {
            return (a.info, Some(restless), round + 1);
        }
    }
    (a.info, None, MAX_ROUNDS.min(budget))
}

/// The call sites to give contexts of their own: every direct call of a function context
/// whose parameters conflict and that more than one call site reaches. `None` when there is
/// none (the analysis is final); otherwise the new call-site contexts and context counts.
#[allow(clippy::type_complexity)]
fn specialise(
    r: &TypeResults,
    funcs: &[Val],
    restless: &HashSet<(Val, u32)>,
) -> Option<(HashMap<(u32, Val), u32>, HashMap<Val, u32>)> {
    let incoming = incoming_calls(r, funcs);
    let (mut callees, mut contexts) = (r.callees.clone(), r.contexts.clone());
    let mut split = false;
    for ((g, k), sites) in incoming {
        let conflicts = g
            .params()
            .into_iter()
            .any(|p| r.trees.get(&(k, p)).is_some_and(Tree::has_conflict))
            || restless.contains(&(g, k));
        if sites.len() < 2 || !conflicts {
            continue;
        }
        split = true;
        // The first call site keeps the context; each other gets a new one, which inherits
        // the contexts of the callee's own calls.
        for &site in &sites[1..] {
            let n = contexts.entry(g).or_insert(1);
            let new = *n;
            *n += 1;
            callees.insert(site, new);
            let inherited: Vec<(Val, u32)> = r
                .callees
                .iter()
                .filter(|((c, call), _)| *c == k && call.parent_block().parent() == g)
                .map(|((_, call), &to)| (*call, to))
                .collect();
            for (call, to) in inherited {
                callees.insert((new, call), to);
            }
        }
    }
    split.then_some((callees, contexts))
}

/// The direct calls reaching each (defined callee, context), in a deterministic order:
/// (caller's context, call).
#[allow(clippy::type_complexity)]
fn incoming_calls(r: &TypeResults, funcs: &[Val]) -> Vec<((Val, u32), Vec<(u32, Val)>)> {
    let mut incoming: Vec<((Val, u32), Vec<(u32, Val)>)> = Vec::new();
    for &f in funcs {
        for ctx in 0..r.contexts.get(&f).copied().unwrap_or(1) {
            for b in f.blocks() {
                for i in b.instructions() {
                    if !matches!(i.opcode(), Opcode::LLVMCall | Opcode::LLVMInvoke) {
                        continue;
                    }
                    let g = match r.requests.get(&i) {
                        Some(site) => site.function,
                        None => match i.called_function().filter(|g| funcs.contains(g)) {
                            Some(g) => g,
                            None => continue,
                        },
                    };
                    let k = r.callees.get(&(ctx, i)).copied().unwrap_or(0);
                    match incoming.iter_mut().find(|(key, _)| *key == (g, k)) {
                        Some((_, sites)) => sites.push((ctx, i)),
                        None => incoming.push(((g, k), vec![(ctx, i)])),
                    }
                }
            }
        }
    }
    incoming
}
