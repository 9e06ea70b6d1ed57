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

/// The work all fixed points of one analysis may do together, in tree entries visited (each
/// round counts the entries of every tree): a bound on time that a count of rounds is not, as
/// rounds over climbing trees get ever slower. The heaviest analysis of the test suite does
/// about 36 million (Eigen at -O1 without LLVM's passes); past this, the analysis stops
/// unsettled, and what needs its answers is refused with the analysis named.
const MAX_WORK: usize = 150_000_000;

/// Rounds before widening starts ([`widen_climbing`]): types cross a few levels of calls first.
const WIDEN_FROM_ROUND: usize = 20;

/// Steps of the same size a tree's extent must take ([`widen_climbing`]) before it is widened.
const CLIMB_STEPS: usize = 8;

/// Rounds without growth after which a tree's steps start again from none.
const IDLE_ROUNDS: usize = 4;

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
    let mut work = MAX_WORK;
    loop {
        // Splitting early stops while the rounds left still allow one fixed point to run to the
        // end with widening (a climb that splitting does not end, such as a `std::deque`
        // iterator's node pointer at -O0, would otherwise be cut and split again until no
        // rounds are left).
        let split_early = early < MAX_EARLY_SPLITS && budget >= SETTLE_ROUNDS + MAX_ROUNDS;
        let (mut r, cut, used, worked) = fixed_point(
            m,
            funcs,
            seed,
            callees,
            contexts,
            requests,
            Limits {
                split_early,
                budget,
                work,
            },
        );
        budget -= used;
        work = work.saturating_sub(worked);
        if work == 0 {
            // Out of work: every answer is a lower bound (`converged` is false).
            return r;
        }
        let (cut, restless) = match cut {
            Some(restless) => (true, restless),
            None => (false, HashSet::new()),
        };
        if cut {
            early += 1;
        } else if !r.converged && split_early && budget > 0 {
            // Out of rounds while widening waited for specialisation, and nothing to specialise
            // turned up (a pointer stepped through memory it points into, such as a
            // `std::deque`'s node pointer, climbs a few bytes every few rounds): again, with
            // widening from early on.
            (callees, contexts) = (r.callees, r.contexts);
            requests = r.requests;
            early = MAX_EARLY_SPLITS;
            continue;
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

/// Widens ([`Tree::widen_level`]) the levels of trees whose extent keeps growing by the same
/// step: `growth` keeps each level's extent, its last step, how many times in a row it grew by
/// that step and for how many rounds it has not grown (a climb through a cycle of calls may
/// take a step every other round; [`IDLE_ROUNDS`] without one end it). Levels are watched one
/// by one: a level below a bigger one (a `std::deque`'s map of node pointers, above the nodes'
/// 512 bytes) climbs unseen in the whole tree's extent. Such a climb (a pointer taken to be one
/// `step` bytes further into its own memory gains a period each time, up to
/// [`super::tree::MAX_OFFSET`]) then ends at its limit at once, where it took hundreds of ever
/// slower rounds.
fn widen_climbing(info: &mut TypeResults, growth: &mut HashMap<(bool, u32, Val, usize), Growth>) {
    let trees = info.trees.iter_mut().map(|(&(c, v), t)| ((false, c, v), t));
    let returns = info
        .returns
        .iter_mut()
        .map(|(&(c, f), t)| ((true, c, f), t));
    for ((is_return, c, v), t) in trees.chain(returns) {
        for (depth, e) in t.level_extents().into_iter().enumerate() {
            let g = growth.entry((is_return, c, v, depth)).or_insert(Growth {
                extent: e,
                ..Growth::default()
            });
            match e.saturating_sub(g.extent) {
                0 => {
                    g.idle += 1;
                    if g.idle >= IDLE_ROUNDS {
                        g.steps = 0;
                    }
                }
                d => {
                    g.steps = if d == g.step { g.steps + 1 } else { 1 };
                    g.step = d;
                    g.idle = 0;
                }
            }
            g.extent = e;
            if g.steps >= CLIMB_STEPS
                && e >= super::tree::WIDEN_MIN_EXTENT
                && t.widen_level(depth, g.step)
            {
                g.steps = 0;
                g.extent = 0;
            }
        }
    }
}

/// How one level of a tree has grown ([`widen_climbing`]).
#[derive(Clone, Copy, Default)]
struct Growth {
    extent: u64,
    step: u64,
    steps: usize,
    idle: usize,
}

/// The function contexts a fixed point cut short found still climbing ([`fixed_point`]).
type Restless = Option<HashSet<(Val, u32)>>;

/// What one fixed point may do: stop early to specialise, and take at most `budget` rounds.
struct Limits {
    split_early: bool,
    budget: usize,
    /// What is left of [`MAX_WORK`].
    work: usize,
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
) -> (TypeResults, Restless, usize, usize) {
    let Limits {
        split_early,
        budget,
        work,
    } = limits;
    let mut worked = 0usize;
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
    let mut growth = HashMap::new();
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
        // The round's work: what it carried, the size of every tree (rounds over bigger
        // trees take longer, so a count of rounds alone bounds no time).
        worked += a.info.trees.values().map(Tree::size).sum::<usize>();
        if a.changed && worked >= work {
            return (a.info, None, round + 1, worked);
        }
        // Climbs that contexts of their own can end (a helper returning its parameter to
        // callers at different offsets) are split first, precisely ([`specialise`]): while
        // that may still happen, widening waits for it.
        let widen_from = if split_early {
            SETTLE_ROUNDS
        } else {
            WIDEN_FROM_ROUND
        };
        if a.changed && round >= widen_from {
            widen_climbing(&mut a.info, &mut growth);
        }
        if !a.changed {
            a.info.converged = true;
            return (a.info, None, round + 1, worked);
        }
        let restless = a.restless.take().unwrap_or_default();
        if !restless.is_empty() {
            return (a.info, Some(restless), round + 1, worked);
        }
    }
    (a.info, None, MAX_ROUNDS.min(budget), worked)
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
