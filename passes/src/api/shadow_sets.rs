//! Sets of global shadows: which shadow of a global the derived code of each request uses.
//!
//! A program has one set per width of the requests that pass no context (`<name>_shadow`
//! at width 1, `<name>_shadow_w2_l0`, `_l1` for lanes of width 2, ...) and, with Enzyme's
//! global-shadow API, one per `__enzyme_context` call site (`<name>_shadow_c1`, lanes
//! `_c1_l0`, ...; the first set of the program takes the plain `<name>_shadow`). Every set
//! holds a shadow of the same globals ([`super::global_shadows`] chooses them), one per lane.
//! A request uses the set of its context, or that of its width; the derived functions of
//! different sets are different functions ([`crate::cache::Key::shadows`]).
//!
//! Nested requests (a derivative of a function that itself makes a request, as forward over
//! reverse): the inner request's derived code reads and writes its set's shadows, which are
//! then memory of the program that the outer request differentiates. So the outer request's
//! set also holds a shadow of each of those (`<name>_shadow_c2_shadow_c1`): the tangent of an
//! adjoint. Nesting is transitive (a third order shadows the first order's shadows and the
//! second order's shadows of them); nesting the set-building misses (a request reached only
//! through an indirect call) leaves a shadow missing, and the store there stays the engine's
//! one-line error.
//!
//! Initial contents: zero for floating-point data; a global holding pointers to globals
//! (a descriptor `{double *base; long n}` = `{data, 3}`) gets the same initializer with
//! each pointer replaced by the address of the pointee's shadow in the same set and lane, and
//! its integers kept, so the shadow structure exists before any derivative needs it
//! ([`initialised_pointers`] says when that stays true).

use super::Request;
use crate::diag::{Error, ErrorKind, Result};
use crate::ir::{Module, TyKind, Val};
use std::collections::{BTreeMap, HashMap, HashSet};

/// What a set of shadows belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// Requests without a context, of this width.
    Plain(u32),
    /// The context made by this `__enzyme_context` call.
    Context(Val),
}

/// One set of global shadows.
pub struct Set {
    /// Whose set it is.
    pub owner: Owner,
    /// Lanes: 1, or the width of batched forward mode.
    pub width: u32,
    /// True when the program sees the shadows (a context, or `__enzyme_shadow(&g, w, lane)` of
    /// this width): it owns them and they are never zeroed behind its back.
    pub owned: bool,
    /// Per lane: global name (a primal global, or another set's shadow) -> its shadow here.
    pub lanes: Vec<BTreeMap<String, Val>>,
    /// Per lane: the shadows holding pointers set by their initializer (reset by storing it).
    pub initialised: Vec<Val>,
    /// The pointer globals holding allocations ([`super::shadow_context::holds_allocation`],
    /// context sets only) with their shadow in each lane.
    pub pointers: Vec<(Val, Vec<Val>)>,
    /// The sets whose shadows this one shadows (nested requests), by index.
    pub nested: Vec<usize>,
}

impl Set {
    /// Every shadow of floating-point data in the set (all lanes, nested ones included), to
    /// zero: the shadows but the pointer ones.
    pub fn data(&self) -> Vec<Val> {
        let skip: HashSet<Val> = self
            .initialised
            .iter()
            .copied()
            .chain(self.pointers.iter().flat_map(|(_, s)| s.iter().copied()))
            .collect();
        self.lanes
            .iter()
            .flat_map(|m| m.values().copied())
            .filter(|s| !skip.contains(s))
            .collect()
    }
}

/// The sets of a program and which set each request uses.
pub struct Sets {
    /// The sets; index 0 is the first.
    pub sets: Vec<Set>,
    /// Per request (in the order given to [`plan`]): its set.
    pub of_request: Vec<usize>,
    /// The shadows the user declared (`enzyme_shadow`): in every set, lane 0 only.
    pub user: HashMap<String, Val>,
}

impl Sets {
    /// Makes `session` derive request `k` with its set's shadows.
    pub fn select(&self, session: &mut crate::cache::Session, k: usize) {
        let Some(&i) = self.of_request.get(k) else {
            return;
        };
        let set = &self.sets[i];
        let mut first = self.user.clone();
        first.extend(set.lanes[0].iter().map(|(n, s)| (n.clone(), *s)));
        let rest = set.lanes[1..]
            .iter()
            .map(|m| m.iter().map(|(n, s)| (n.clone(), *s)).collect())
            .collect();
        session.use_shadow_set(i as u32, first, rest);
    }

    /// The set of the context made by `call`.
    pub fn of_context(&self, call: Val) -> Option<usize> {
        self.sets
            .iter()
            .position(|s| s.owner == Owner::Context(call))
    }

    /// The set of requests without a context of width `width`.
    pub fn of_width(&self, width: u32) -> Option<usize> {
        self.sets
            .iter()
            .position(|s| s.owner == Owner::Plain(width))
    }
}

/// The `__enzyme_context` call that made context `ctx`, or an error at `at`.
pub fn context_of(ctx: Val, at: Val) -> Result<Val> {
    super::request::context_call(ctx).ok_or_else(|| {
        Error::user_at(
            at,
            format!(
                "the context '{}' does not come from one __enzyme_context call: pass the call's result directly (or through a local variable), so Umbra knows which shadows it stands for",
                crate::diag::short(ctx)
            ),
        )
        .with_kind(ErrorKind::Unsupported)
    })
}

/// The width of the context made by `call` (a constant from 1 to 64), or an error there.
fn context_width(call: Val) -> Result<u32> {
    match call.call_args().first().and_then(|w| w.const_int_value()) {
        Some(w @ 1..=64) => Ok(w as u32),
        Some(w) => Err(Error::user_at(
            call,
            format!("the width of __enzyme_context is {w}: it must be from 1 to 64"),
        )),
        None => Err(Error::user_at(
            call,
            "the width of __enzyme_context is not a constant: Umbra creates the shadows of each context when it compiles the program",
        )
        .with_kind(ErrorKind::Unsupported)),
    }
}

/// The sets the program needs, without shadows yet: one per context call, one per width of
/// the requests without a context and of the queries `__enzyme_shadow(&g, width, lane)`.
/// `contexts` are the `__enzyme_context` calls, `plain_queries` those queries with their width
/// ([`super::shadow_context::Calls`]).
pub fn plan(contexts: &[Val], plain_queries: &[(Val, u32)], requests: &[Request]) -> Result<Sets> {
    let mut sets: Vec<Set> = Vec::new();
    let add = |owner: Owner, width: u32, owned: bool, sets: &mut Vec<Set>| {
        if let Some(s) = sets.iter_mut().find(|s| s.owner == owner) {
            s.owned |= owned;
        } else {
            sets.push(Set {
                owner,
                width,
                owned,
                lanes: vec![BTreeMap::new(); width as usize],
                initialised: Vec::new(),
                pointers: Vec::new(),
                nested: Vec::new(),
            });
        }
    };
    let plain_width = |r: &Request| {
        if r.batch.is_some() {
            1
        } else {
            r.width
        }
    };
    // The plain width-1 set first: its shadows keep the plain names.
    if requests
        .iter()
        .any(|r| r.context.is_none() && plain_width(r) == 1)
        || plain_queries.iter().any(|&(_, w)| w == 1)
    {
        add(Owner::Plain(1), 1, false, &mut sets);
    }
    for &c in contexts {
        add(Owner::Context(c), context_width(c)?, true, &mut sets);
    }
    for &(q, w) in plain_queries {
        if !(1..=64).contains(&w) {
            return Err(Error::user_at(
                q,
                "the width in __enzyme_shadow(address, width, lane) must be a constant from 1 to 64",
            ));
        }
        add(Owner::Plain(w), w, true, &mut sets);
    }
    let mut of_request = Vec::with_capacity(requests.len());
    for r in requests {
        let owner = match r.context {
            Some(ctx) => Owner::Context(context_of(ctx, r.call)?),
            None => Owner::Plain(plain_width(r)),
        };
        if let Owner::Plain(w) = owner {
            add(owner, w, false, &mut sets);
        }
        let Some(i) = sets.iter().position(|s| s.owner == owner) else {
            return Err(Error::user_at(
                r.call,
                "the context passed after enzyme_context is not made by an __enzyme_context call of this module",
            ));
        };
        of_request.push(i);
    }
    // Split mode: the sweeps of one function share their derived pair, so their shadows
    // (`__enzyme_augmentsize` derives nothing).
    let sweep = |r: &Request| {
        r.split
            .as_ref()
            .is_some_and(|s| s.sweep != super::Sweep::Size)
    };
    // `__enzyme_augmentsize` passes no context: it measures the tape of the sweeps' pair.
    for (k, r) in requests.iter().enumerate() {
        if r.split
            .as_ref()
            .is_some_and(|s| s.sweep == super::Sweep::Size)
        {
            if let Some(j) = (0..requests.len())
                .find(|&j| sweep(&requests[j]) && requests[j].function == r.function)
            {
                of_request[k] = of_request[j];
            }
        }
    }
    for (k, r) in requests.iter().enumerate() {
        if !sweep(r) {
            continue;
        }
        let other = requests[..k]
            .iter()
            .enumerate()
            .find(|(j, q)| sweep(q) && q.function == r.function && of_request[*j] != of_request[k]);
        if other.is_some() {
            return Err(Error::user_at(
                r.call,
                format!(
                    "the split-mode sweeps of '{}' use different global shadows (another enzyme_context, or none): pass the same context to __enzyme_augmentfwd and __enzyme_reverse",
                    r.function.name()
                ),
            )
            .with_kind(ErrorKind::Unsupported));
        }
    }
    // Nested requests: the outer request's set shadows the inner one's shadows.
    let reach: Vec<HashSet<Val>> = requests
        .iter()
        .map(|r| super::request::reachable(r.function))
        .collect();
    let n = requests.len();
    let mut within = vec![vec![false; n]; n];
    for q in 0..n {
        for (r, inner) in requests.iter().enumerate() {
            within[q][r] = inner
                .call
                .parent_function()
                .is_some_and(|h| reach[q].contains(&h));
        }
    }
    // Transitively: a third order differentiates the second order's derived code, which
    // uses the first order's shadows.
    for m in 0..n {
        for q in 0..n {
            for r in 0..n {
                within[q][r] |= within[q][m] && within[m][r];
            }
        }
    }
    for q in 0..n {
        for r in 0..n {
            let (a, b) = (of_request[q], of_request[r]);
            if within[q][r] && a != b && !sets[a].nested.contains(&b) {
                sets[a].nested.push(b);
            }
        }
    }
    Ok(Sets {
        sets,
        of_request,
        user: HashMap::new(),
    })
}

/// The name suffix of set `i`'s shadows in `lane`.
fn suffix(sets: &[Set], i: usize, lane: usize) -> String {
    let set = &sets[i];
    let mut s = match set.owner {
        _ if i == 0 => String::new(),
        Owner::Context(_) => format!("_c{i}"),
        Owner::Plain(w) => format!("_w{w}"),
    };
    if set.width > 1 {
        s.push_str(&format!("_l{lane}"));
    }
    s
}

/// Creates the shadows of `data` (globals holding floating-point data), `initialised`
/// ([`initialised_pointers`]) and `pointers` (globals holding allocations: context sets only)
/// in every set and lane, and those of nested sets' shadows.
pub fn create(
    module: Module,
    sets: &mut Sets,
    data: &[Val],
    initialised: &[Val],
    pointers: &[Val],
) -> Result<()> {
    for i in 0..sets.sets.len() {
        for lane in 0..sets.sets[i].width as usize {
            let sfx = suffix(&sets.sets, i, lane);
            for &g in data.iter().chain(initialised) {
                let s = zero_global_like(module, g, &format!("{}_shadow{sfx}", g.name()));
                sets.sets[i].lanes[lane].insert(g.name(), s);
            }
            if matches!(sets.sets[i].owner, Owner::Context(_)) {
                for &g in pointers {
                    let s = zero_global_like(module, g, &format!("{}_shadow{sfx}", g.name()));
                    sets.sets[i].lanes[lane].insert(g.name(), s);
                    match sets.sets[i].pointers.iter_mut().find(|(p, _)| *p == g) {
                        Some((_, v)) => v.push(s),
                        None => sets.sets[i].pointers.push((g, vec![s])),
                    }
                }
            }
            // Pointers to globals: the same structure, pointing at this lane's shadows.
            for &g in initialised {
                let s = sets.sets[i].lanes[lane][&g.name()];
                let map = &sets.sets[i].lanes[lane];
                let init = g
                    .initializer()
                    .and_then(|v| shadow_initializer(v, map))
                    .ok_or_else(|| {
                        Error::internal(
                            g,
                            "no shadow initializer although its pointers were checked",
                        )
                    })?;
                s.set_initializer(init);
                sets.sets[i].initialised.push(s);
            }
        }
    }
    // Shadows of nested sets' shadows: of their data, then of their pointers to it, which
    // point at the data's shadows here. Inner sets first, so that their own shadows of
    // shadows exist (a third order); in a cycle, what is missing stays missing (an error at
    // the store that needs it).
    let mut done = vec![false; sets.sets.len()];
    while let Some(i) = (0..sets.sets.len())
        .find(|&i| !done[i] && sets.sets[i].nested.iter().all(|&j| done[j] || j == i))
        .or_else(|| (0..sets.sets.len()).find(|&i| !done[i]))
    {
        done[i] = true;
        let nested = sets.sets[i].nested.clone();
        let inner: Vec<Val> = nested.iter().flat_map(|&j| sets.sets[j].data()).collect();
        let inner_pointers: Vec<Val> = nested
            .iter()
            .flat_map(|&j| sets.sets[j].initialised.clone())
            .collect();
        for lane in 0..sets.sets[i].width as usize {
            let sfx = suffix(&sets.sets, i, lane);
            for &t in &inner {
                let s = zero_global_like(module, t, &format!("{}_shadow{sfx}", t.name()));
                sets.sets[i].lanes[lane].insert(t.name(), s);
            }
            for &t in &inner_pointers {
                let Some(init) = t
                    .initializer()
                    .and_then(|v| shadow_initializer(v, &sets.sets[i].lanes[lane]))
                else {
                    continue;
                };
                let s = zero_global_like(module, t, &format!("{}_shadow{sfx}", t.name()));
                s.set_initializer(init);
                sets.sets[i].lanes[lane].insert(t.name(), s);
                sets.sets[i].initialised.push(s);
            }
        }
    }
    Ok(())
}

/// Emits at `b` what resets shadow `s` to its initial contents: its initializer stored for a
/// shadow holding pointers (to other shadows), zeros otherwise.
pub fn emit_reset(b: &mut crate::ir::Builder, m: Module, s: Val) {
    let ty = s.global_value_type();
    match s.initializer() {
        Some(init) if ty.contains_ptr() => {
            b.store(init, s, s.alignment().max(1));
        }
        _ => {
            let bytes = m.store_size(ty);
            let i64t = crate::ir::Ty::int(m.context(), 64);
            b.memset_zero(s, i64t.int_const(bytes), s.alignment().max(1));
        }
    }
}

/// The shadows in other sets of set `i`'s shadows, and theirs in turn (to reset with them:
/// the derivatives of values reset to constants are zero).
pub fn shadows_of_set(sets: &Sets, i: usize) -> Vec<Val> {
    let own: HashSet<Val> = sets.sets[i]
        .lanes
        .iter()
        .flat_map(|m| m.values().copied())
        .collect();
    let mut names: HashSet<String> = own.iter().map(|s| s.name()).collect();
    let mut found: Vec<Val> = Vec::new();
    loop {
        let mut more = Vec::new();
        for (j, set) in sets.sets.iter().enumerate() {
            if j == i {
                continue;
            }
            for m in &set.lanes {
                for (n, &v) in m {
                    if names.contains(n) && !own.contains(&v) && !found.contains(&v) {
                        more.push(v);
                    }
                }
            }
        }
        if more.is_empty() {
            return found;
        }
        for v in more {
            if !found.contains(&v) {
                names.insert(v.name());
                found.push(v);
            }
        }
    }
}

/// The globals among `candidates` (mutable globals holding pointers) whose shadow can be their
/// initializer with each pointer replaced by the pointee's shadow: every pointer in the
/// initializer is null or the address of (or into) a global in `data` or another such global,
/// and the program never writes a pointer or an integer into them (its uses are loads, stores
/// of floating-point values and queries of the shadow), so the shadow's structure stays that
/// of the primal. Pointees in `eligible_data` not yet in `data` are added to it.
pub fn initialised_pointers(
    candidates: &[Val],
    data: &mut Vec<Val>,
    eligible_data: impl Fn(Val) -> bool,
) -> Vec<Val> {
    let mut chosen: Vec<Val> = candidates
        .iter()
        .copied()
        .filter(|&g| g.initializer().is_some() && only_read_pointers(g))
        .collect();
    loop {
        let mut keep = Vec::new();
        let mut changed = false;
        for &g in &chosen {
            let mut targets = Vec::new();
            let ok = g
                .initializer()
                .is_some_and(|init| pointees(init, &mut targets));
            let ok = ok
                && targets.iter().all(|&t| {
                    if chosen.contains(&t) || data.contains(&t) {
                        true
                    } else if eligible_data(t) {
                        data.push(t);
                        true
                    } else {
                        false
                    }
                });
            if ok {
                keep.push(g);
            } else {
                changed = true;
            }
        }
        chosen = keep;
        if !changed {
            return chosen;
        }
    }
}

/// Collects into `out` the globals `init`'s pointers point into; false for a pointer that is
/// neither null nor a constant address in a global.
fn pointees(init: Val, out: &mut Vec<Val>) -> bool {
    let ty = init.ty();
    if !ty.contains_ptr() || init.is_null_constant() || init.is_undef() {
        return true;
    }
    if ty.is_ptr() {
        let mut base = init;
        while base.is_constant_expr() {
            base = base.operand(0);
        }
        if base.is_global_variable() {
            out.push(base);
            return true;
        }
        return false;
    }
    match ty.kind() {
        TyKind::Struct | TyKind::Array => {
            (0..init.num_operands()).all(|k| pointees(init.operand(k), out))
        }
        _ => false,
    }
}

/// The shadow initializer of `init` in a set and lane whose shadows are `map`: floats zero,
/// integers kept, pointers to the pointees' shadows.
fn shadow_initializer(init: Val, map: &BTreeMap<String, Val>) -> Option<Val> {
    let ty = init.ty();
    if init.is_null_constant() || init.is_undef() {
        return Some(ty.zero());
    }
    if !ty.contains_float() && !ty.contains_ptr() {
        return Some(init);
    }
    if !ty.contains_ptr() {
        return Some(ty.zero());
    }
    if ty.is_ptr() {
        return shadow_at(map, init);
    }
    let parts: Option<Vec<Val>> = (0..init.num_operands())
        .map(|k| shadow_initializer(init.operand(k), map))
        .collect();
    Some(Val::const_aggregate(ty, &parts?))
}

/// True when every use of `g` (through constant and instruction `getelementptr`s) is a load,
/// a store of a floating-point value into it, or a query of its shadow.
fn only_read_pointers(g: Val) -> bool {
    let mut work = vec![g];
    let mut seen = HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in v.users() {
            if u.is_constant_expr() {
                if u.const_opcode() == crate::ir::Opcode::LLVMGetElementPtr && u.operand(0) == v {
                    work.push(u);
                    continue;
                }
                return false;
            }
            if !u.is_instruction() {
                return false;
            }
            use crate::ir::Opcode::*;
            let ok = match u.opcode() {
                LLVMLoad => true,
                LLVMGetElementPtr if u.operand(0) == v => {
                    work.push(u);
                    true
                }
                LLVMStore => {
                    u.operand(1) == v
                        && u.operand(0).ty().contains_float()
                        && !u.operand(0).ty().contains_ptr()
                }
                LLVMCall => u.called_function().is_some_and(|f| {
                    super::names::classify(&f.name())
                        == Some(super::names::ApiName::GlobalShadows(
                            super::names::ShadowFn::Shadow,
                        ))
                }),
                _ => false,
            };
            if !ok {
                return false;
            }
        }
    }
    true
}

/// A new internal zero-initialised global with `g`'s type, alignment and thread-locality,
/// named `name` (LLVM renames it if the program has a global of that name). Internal even for
/// a global other objects see: all the derivative code of a request lives in the module of
/// the request, and a weak symbol could silently be replaced by a program's own `g_shadow`.
pub fn zero_global_like(module: Module, g: Val, name: &str) -> Val {
    let ty = g.global_value_type();
    let s = module.add_global(ty, name);
    s.set_initializer(ty.zero());
    s.set_internal();
    s.set_alignment(g.alignment());
    if g.is_thread_local() {
        s.set_thread_local();
    }
    s
}

/// The shadow in `map` of constant pointer `v`: the shadow of a global, the same constant
/// `getelementptr` into the shadow for an address inside one.
pub fn shadow_at(map: &BTreeMap<String, Val>, v: Val) -> Option<Val> {
    if v.is_global_variable() {
        return map.get(&v.name()).copied();
    }
    if v.is_constant_expr() && v.const_opcode() == crate::ir::Opcode::LLVMGetElementPtr {
        let base = shadow_at(map, v.operand(0))?;
        let idx: Vec<Val> = (1..v.num_operands()).map(|k| v.operand(k)).collect();
        return Some(Val::const_gep(v.gep_source_type(), base, &idx));
    }
    None
}
