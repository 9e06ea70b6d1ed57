//! Type analysis: which bytes hold floats. LLVM memory and integers have no float/int/pointer
//! distinction, yet reverse mode must add adjoints exactly where floats live. This is an
//! interprocedural fixed point over the whole module (Enzyme's TypeAnalysis is the reference
//! design): every value and every pointer gets a [`Tree`] (byte offset → float format /
//! integer / pointer / anything, "unknown" being the absence of an entry), seeded from typed
//! loads and stores, struct and array GEPs, TBAA, float operations, float↔int bitcasts, known
//! rule signatures (math, allocation) and copy lengths, and carried through phis, selects,
//! casts, integer extensions, truncations and shifts by whole bytes (packed values), calls
//! (arguments and returns, specialised per call site where callers conflict), derivative
//! requests (the caller's memory types the function's pointer parameters: [`requests`]),
//! returns and memory. Byte-wise copies ([`bytes`]) make their two sides hold the same data.
//!
//! Floats win over integers ([`Kind::join`]): bytes that some access reads as a float are float
//! data even where another reads them as an integer (a `double` memcpy'd into a `uint64_t`, a
//! union), because for differentiation such an integer carries the float's derivative.

pub mod byte_cover;
pub mod bytes;
pub mod debug;
pub mod requests;
pub mod scope;
pub mod tree;

pub use requests::{check_request, RequestArg, RequestSite};
pub use tree::{FloatKind, Kind, Tree};

use crate::analysis::indices::Indices;
use crate::ir::{Module, Opcode, Ty, TyKind, Val};
use std::collections::{HashMap, HashSet};

/// Rounds of the whole-module fixed point before giving up (each round visits every
/// instruction; trees are bounded, so this is only a guard against a slow climb).
const MAX_ROUNDS: usize = 200;

/// A variable GEP index bounded to at most this many values has exact offsets
/// ([`Analysis::bounded_index`]); a wider one is taken as walking a repeating array.
const MAX_BOUNDED_INDICES: u64 = 32;

/// What the analysis found: a tree for each value seen, per type context. A context is one
/// copy of a function's analysis: context 0 for every function, and one more per call site of
/// a helper whose callers pass differently typed memory (a generic `copy(void *, const void *,
/// size_t)` called on doubles and on ints), so that each call's derivative sees its own types
/// instead of their conflict. Query it through [`TypeInfo`], a view in one context.
pub struct TypeResults {
    /// Trees by (context of the value's function, value).
    trees: HashMap<(u32, Val), Tree>,
    /// Trees of each function's returned value, by (context, function).
    returns: HashMap<(u32, Val), Tree>,
    /// The callee's context at each call site, by (caller's context, call); absent: 0.
    callees: HashMap<(u32, Val), u32>,
    /// How many contexts each specialised function has (absent: one).
    contexts: HashMap<Val, u32>,
    /// The direct calls reaching each specialised (function, context) other than context 0:
    /// (caller's context, call). Requests count as calls of the function they differentiate.
    sites: HashMap<(Val, u32), Vec<(u32, Val)>>,
    /// The derivative requests, by request call ([`requests`]).
    requests: HashMap<Val, RequestSite>,
    /// False when the fixed point was cut off: every answer is then only a lower bound.
    converged: bool,
}

impl TypeResults {
    /// The view in context `ctx`.
    pub fn view(&self, ctx: u32) -> TypeInfo<'_> {
        TypeInfo {
            r: self,
            ctx,
            converged: self.converged,
        }
    }
}

/// The analysis's answers for the values of one type context of a function.
#[derive(Clone, Copy)]
pub struct TypeInfo<'a> {
    r: &'a TypeResults,
    /// The context answered in.
    pub ctx: u32,
    /// False when the fixed point was cut off: every answer is then only a lower bound.
    pub converged: bool,
}

impl<'a> TypeInfo<'a> {
    /// The tree of `v` (constants and unseen values: from their LLVM type alone; a global
    /// variable points to memory of its declared type, which its initialiser has).
    pub fn tree(&self, m: Module, v: Val) -> Tree {
        if let Some(t) = self.r.trees.get(&(self.ctx, v)) {
            return t.clone();
        }
        if v.is_global_variable() && !is_abi_data(v) {
            return Tree::pointer_to(type_tree(m, v.global_value_type()));
        }
        type_tree(m, v.ty())
    }

    /// The request `call` seen as a call of the function it differentiates, when it is one.
    pub fn request(&self, call: Val) -> Option<&'a RequestSite> {
        self.r.requests.get(&call)
    }

    /// The tree of the memory `p` points to.
    pub fn pointee(&self, m: Module, p: Val) -> Tree {
        self.tree(m, p).pointee()
    }

    /// The kind of the first byte of `v` (`None`: unknown).
    pub fn kind(&self, m: Module, v: Val) -> Option<Kind> {
        self.tree(m, v).get(0)
    }

    /// The tree of `f`'s returned value in this context.
    fn returned(&self, f: Val) -> Option<&'a Tree> {
        self.r.returns.get(&(self.ctx, f))
    }

    /// The context the callee of `call` (a call in this context) is analysed in.
    pub fn callee_context(&self, call: Val) -> u32 {
        self.r.callees.get(&(self.ctx, call)).copied().unwrap_or(0)
    }

    /// The same results in context `ctx`.
    pub fn in_context(&self, ctx: u32) -> TypeInfo<'a> {
        self.r.view(ctx)
    }

    /// The constant every call reaching this context passes for parameter `p`, when all those
    /// calls are known: a call site's own context, or context 0 of a function no other module
    /// sees and only direct calls use.
    pub fn constant_argument(&self, p: Val) -> Option<u64> {
        if !p.is_argument() {
            return None;
        }
        let f = p.parent_function()?;
        let k = f.params().into_iter().position(|q| q == p)?;
        let sites = self.r.sites.get(&(f, self.ctx))?;
        if self.ctx == 0 {
            // Context 0 also answers for callers the analysis does not see (other modules,
            // calls through pointers): there must be none.
            let known = |u: &Val| {
                self.r
                    .sites
                    .iter()
                    .any(|(&(g, _), s)| g == f && s.iter().any(|&(_, c)| c == *u))
            };
            if !f.is_local_linkage() || !f.users().iter().all(known) {
                return None;
            }
        }
        // A request passes its values after markers: the constants it was seen to pass.
        let requests = &self.r.requests;
        let mut values = sites.iter().map(|&(_, call)| match requests.get(&call) {
            Some(site) => site.constants.iter().find(|c| c.0 == k).map(|c| c.1),
            None => call.call_args()[k].const_int_value(),
        });
        let first = values.next()??;
        values.all(|v| v == Some(first)).then_some(first)
    }

    /// How many contexts `f` is analysed in.
    pub fn contexts_of(&self, f: Val) -> u32 {
        self.r.contexts.get(&f).copied().unwrap_or(1)
    }
}

/// The floating-point type whose bits the integer `v` carries (a `double` moved as an `i64`,
/// a union read through its integer member), when the analysis found float data filling it:
/// one float of the integer's width, or a vector of equal floats packed into it (two `float`s
/// in an `i64`, as `-O2` moves a `{float, float}`).
pub fn float_bits(info: TypeInfo, m: Module, v: Val) -> Option<Ty> {
    if !v.ty().is_int() || !info.converged {
        return None;
    }
    float_bits_in(m, &info.tree(m, v), v.ty())
}

/// The floating-point type whose bits `f`'s integer return value carries ([`float_bits`] of
/// the tree its `ret`s return).
pub fn returned_float_bits(info: TypeInfo, m: Module, f: Val) -> Option<Ty> {
    let ty = f.function_type().return_type();
    if !ty.is_int() || !info.converged {
        return None;
    }
    float_bits_in(m, info.returned(f)?, ty)
}

/// [`float_bits`] of an integer of type `ty` described by `t`.
fn float_bits_in(m: Module, t: &Tree, ty: Ty) -> Option<Ty> {
    let Kind::Float(k) = t.get(0)? else {
        return None;
    };
    let bytes = ty.int_width() as u64 / 8;
    if 8 * bytes != ty.int_width() as u64 || !bytes.is_multiple_of(k.size()) {
        return None;
    }
    let n = bytes / k.size();
    // Every lane must be known to hold the same format.
    if (1..n).any(|j| t.get(j * k.size()) != Some(Kind::Float(k))) {
        return None;
    }
    // Half and bfloat too: a `_Float16` whose sign bit is cleared through an i16 carries its
    // derivative like a float does (it was dropped, silently, in reverse mode).
    let f = match k {
        FloatKind::Half => Ty::half(m.context()),
        FloatKind::BFloat => Ty::bfloat(m.context()),
        _ => float_ty(m, k),
    };
    if f.kind() != TyKind::Float {
        return None;
    }
    Some(if n == 1 { f } else { Ty::vector(f, n as u32) })
}

/// An error unless the integer `v` is known not to carry float bits the caller's derivative
/// depends on. Called where `v` crosses a call boundary as an integer that the callee's derived
/// signature does not carry as a float ([`crate::signature::FloatBits`]: only integers filled
/// by whole floats of one format are), so the derivative would silently vanish there.
pub fn check_no_float_bits(
    info: TypeInfo,
    m: Module,
    v: Val,
    at: Val,
    what: &str,
) -> crate::diag::Result<()> {
    if !v.ty().is_int() {
        return Ok(());
    }
    if !info.converged {
        return Ok(());
    }
    // Only integers the analysis found to hold floats and nothing else: a conflict (an integer
    // also used as one, as sizes computed from pointer differences are) is too common in C++
    // library code to refuse, and was integer data before this analysis existed.
    match info.kind(m, v) {
        Some(k @ Kind::Float(_)) => Err(crate::diag::Error::at(
            at,
            format!(
                "{what} floating-point data ({k}) as an integer: '{}' ({}) holds float bits but is not filled by whole floats of one format, so a derivative cannot travel through it as an integer parameter or return value; pass or return it as a floating-point value (or let the call be inlined)",
                short_name(v),
                v.ty().print()
            ),
        )),
        _ => Ok(()),
    }
}

/// `%name` of a value, or its printed form when it has no name.
fn short_name(v: Val) -> String {
    crate::diag::short(v)
}

/// The float format of a floating-point scalar type.
pub fn float_kind(t: Ty) -> Option<FloatKind> {
    if t.kind() != TyKind::Float {
        return None;
    }
    Some(match t.print().as_str() {
        "half" => FloatKind::Half,
        "bfloat" => FloatKind::BFloat,
        "float" => FloatKind::Float,
        "double" => FloatKind::Double,
        "x86_fp80" => FloatKind::X86Fp80,
        _ => FloatKind::Fp128,
    })
}

/// The LLVM type of a float format.
pub fn float_ty(m: Module, k: FloatKind) -> Ty {
    let ctx = m.context();
    match k {
        FloatKind::Float => Ty::float(ctx),
        FloatKind::Double => Ty::double(ctx),
        FloatKind::X86Fp80 => Ty::x86_fp80(ctx),
        // Formats copies never need to name are described by size only.
        _ => Ty::int(ctx, 8 * k.size() as u32),
    }
}

/// What an LLVM type says about its bytes. Integers are `Integer` (floats may still win),
/// byte arrays say nothing.
pub fn type_tree(m: Module, t: Ty) -> Tree {
    let mut out = Tree::default();
    fill(m, t, 0, &mut out);
    out
}

fn fill(m: Module, t: Ty, at: u64, out: &mut Tree) {
    if at >= tree::MAX_OFFSET {
        return;
    }
    match t.kind() {
        TyKind::Float => {
            if let Some(k) = float_kind(t) {
                out.at.insert(at, Kind::Float(k));
            }
        }
        TyKind::Int if t.int_width() == 8 => {}
        TyKind::Int => {
            out.at.insert(at, Kind::Integer);
        }
        TyKind::Ptr => {
            out.at.insert(at, Kind::Pointer);
        }
        TyKind::Struct => {
            for (k, f) in t.struct_fields().into_iter().enumerate() {
                fill(m, f, at + m.field_offset(t, k as u32), out);
            }
        }
        TyKind::Array | TyKind::Vector if !t.is_scalable_vector() => {
            let (e, n) = if t.kind() == TyKind::Array {
                (t.element(), t.array_len())
            } else {
                (t.element(), t.vector_len() as u64)
            };
            let size = m.alloc_size(e).max(1);
            for k in 0..n.min(tree::MAX_OFFSET / size + 1) {
                fill(m, e, at + k * size, out);
            }
        }
        _ => {}
    }
}

/// The kind a TBAA scalar type names, when it names one.
fn tbaa_kind(name: &str) -> Option<Kind> {
    Some(match name {
        "double" => Kind::Float(FloatKind::Double),
        "float" => Kind::Float(FloatKind::Float),
        "long double" => Kind::Float(FloatKind::X86Fp80),
        "any pointer" => Kind::Pointer,
        "int" | "long" | "long long" | "short" | "_Bool" | "bool" => Kind::Integer,
        n if n.starts_with('p') && n[1..].starts_with(|c: char| c.is_ascii_digit()) => {
            Kind::Pointer
        }
        _ => return None,
    })
}

/// Runs the analysis over the functions `funcs` of `m` (those with a body).
/// What a call to a function without a body says about types, from the rule table (given by
/// the caller, so this analysis does not depend on the rules that consult it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallSeed {
    /// `memcpy`/`memmove`: the same bytes on both sides.
    Copy,
    /// An allocator: the result is a pointer.
    Allocates,
    /// A math function: its arguments are floats of their types.
    Math,
    /// A math function writing results through pointers (`modf`, `sincos`): its first argument
    /// is a float, and its pointer arguments point to floats of that type.
    MathOut,
    /// Nothing known.
    None,
}

/// Seeds nothing from calls (for tests and callers without a rule table).
pub fn no_seed(_: Val) -> CallSeed {
    CallSeed::None
}

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

/// The highest offset `t` or any tree it points to says anything about: what climbs when an
/// analysis does not settle.
fn extent(t: &Tree) -> u64 {
    let own = t.at.last_key_value().map_or(0, |(&o, _)| o);
    own.max(t.pointee.as_deref().map_or(0, extent))
}

/// True for a type whose values end at its size: not empty, and not a struct ending in an
/// array of length 0 (a flexible array member, which runs past it).
fn bounded_type(t: Ty) -> bool {
    match t.kind() {
        TyKind::Struct => t
            .struct_fields()
            .last()
            .is_some_and(|&f| !(f.kind() == TyKind::Array && f.array_len() == 0)),
        TyKind::Array => t.array_len() > 0,
        _ => true,
    }
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

struct Analysis {
    m: Module,
    info: TypeResults,
    changed: bool,
    seed: fn(Val) -> CallSeed,
    /// The context of the function being visited.
    ctx: u32,
    /// Index reasoning per function (`None`: an irreducible CFG), built when a GEP asks.
    indices: HashMap<Val, Option<Indices>>,
    /// [`Analysis::bounded_index`] by GEP: the same in every round.
    ranges: HashMap<Val, Option<(u64, u64, u64)>>,
    /// The (function, context)s that more than one call site reaches, when the fixed point is
    /// to stop for [`specialise`] where one of their parameters or returns climbs
    /// ([`Analysis::restless`]); empty otherwise.
    shared: HashSet<(Val, u32)>,
    /// Past [`SETTLE_ROUNDS`], the (function, context)s in [`Analysis::shared`] whose
    /// parameters or return reached higher offsets this round ([`extent`]). One function
    /// context reached by one object at two offsets passes what it learns from each caller
    /// back to the other, shifted by the distance: Eigen's `derived()` returns its parameter
    /// and is called on an expression `a` and on its member at `a + 8`, so `a` comes to hold
    /// what it holds 8 bytes up, one step more every round; `MapBase` constructs its two
    /// empty members at bytes 8 and 9 through one constructor. The object's tree climbs to
    /// the offset bound and the analysis never settles (-O0). Those call sites get contexts
    /// of their own.
    restless: Option<HashSet<(Val, u32)>>,
}

impl Analysis {
    fn get(&self, v: Val) -> Tree {
        self.get_in(self.ctx, v)
    }

    fn get_in(&self, ctx: u32, v: Val) -> Tree {
        self.info.view(ctx).tree(self.m, v)
    }

    /// Adds what `t` says to `v`'s tree (constants keep their own).
    fn add(&mut self, v: Val, t: &Tree) {
        self.add_in(self.ctx, v, t)
    }

    fn add_in(&mut self, ctx: u32, v: Val, t: &Tree) {
        if !(v.is_instruction() || v.is_argument()) || t.is_unknown() {
            return;
        }
        let m = self.m;
        let cur = self
            .info
            .trees
            .entry((ctx, v))
            .or_insert_with(|| type_tree(m, v.ty()));
        // Past SETTLE_ROUNDS: a parameter of a shared context, watched for a climb.
        let watched = match (&self.restless, v.is_argument()) {
            (Some(_), true) => v
                .parent_function()
                .filter(|&f| self.shared.contains(&(f, ctx)))
                .map(|f| (f, extent(cur))),
            _ => None,
        };
        let changed = cur.merge(t);
        self.changed |= changed;
        if let (Some((f, before)), true) = (watched, changed) {
            if extent(cur) > before {
                self.restless
                    .get_or_insert_with(HashSet::new)
                    .insert((f, ctx));
            }
        }
    }

    /// Adds `t` to the memory `p` points to.
    fn add_pointee(&mut self, p: Val, t: Tree) {
        if t.is_unknown() {
            return;
        }
        self.add(p, &Tree::pointer_to(t));
    }

    /// Values and the memory they are loaded from or stored to agree on the accessed bytes.
    fn access(&mut self, i: Val, v: Val, p: Val, ty: Ty) {
        let size = self.m.store_size(ty);
        let mut vt = type_tree(self.m, ty);
        if let Some(k) = i.tbaa_access_type().and_then(|n| tbaa_kind(&n)) {
            if !ty.is_ptr() && (ty.is_int() || ty.kind() == TyKind::Float) {
                vt.at.insert(0, vt.get(0).map_or(k, |old| old.join(k)));
            }
        }
        vt.merge(&self.get(v).prefix(size));
        self.add(v, &vt);
        let from_memory = self.get(p).pointee().prefix(size);
        self.add(v, &from_memory);
        // A vector access without TBAA may be the vectorizer reading several fields at once,
        // lanes it never uses included (a pointer read as the second lane of a double pair):
        // it learns from memory but does not teach it.
        if ty.is_vector() && i.tbaa_access_type().is_none() {
            return;
        }
        let now = self.get(v);
        self.add_pointee(p, now);
    }

    /// Two values that are the same bits (casts, phis, call arguments and parameters).
    fn same(&mut self, a: Val, b: Val) {
        let (ta, tb) = (self.get(a), self.get(b));
        self.add(a, &tb);
        self.add(b, &ta);
    }

    fn visit(&mut self, i: Val) {
        use Opcode::*;
        let m = self.m;
        match i.opcode() {
            LLVMLoad => self.access(i, i, i.operand(0), i.ty()),
            LLVMStore => {
                self.access(i, i.operand(0), i.operand(1), i.operand(0).ty());
                // A byte-wise copy: both bases hold the same data (as a memcpy of unknown
                // length says), whatever the bytes themselves are read as.
                if let Some(bc) = bytes::byte_copy(i) {
                    let (d, s) = (self.get(bc.dst).pointee(), self.get(bc.src).pointee());
                    self.add_pointee(bc.dst, s);
                    self.add_pointee(bc.src, d);
                }
            }
            LLVMAlloca => {
                let t = type_tree(m, i.allocated_type());
                self.add_pointee(i, t);
            }
            LLVMGetElementPtr => self.gep(i),
            LLVMBitCast | LLVMAddrSpaceCast | LLVMFreeze => self.same(i, i.operand(0)),
            // A choice between different fields of one object (`x = left ? &n->left :
            // &n->right`, as a red-black tree's insertion walks) points at either field: what
            // is known of the choice is the union of the fields, which says nothing about each
            // of them. Passed back to them, it would shift into the object at each field's
            // offset and grow there every round instead of settling.
            LLVMPHI | LLVMSelect if field_choice(m, i) => {
                for v in choices(i) {
                    let t = self.get(v);
                    self.add(i, &t);
                }
            }
            LLVMPHI | LLVMSelect => {
                for v in choices(i) {
                    self.same(i, v);
                }
            }
            // An integer `and`/`xor` with one constant operand keeps the other's bits in
            // place (clearing or flipping a float's sign bit).
            LLVMAnd | LLVMXor if i.operand(1).const_int_value().is_some() => {
                self.same(i, i.operand(0))
            }
            // Integers packing several values (-O2 passes a {float, float} as an i64 built
            // with zext, shl and or, and unpacks it with lshr and trunc): whole bytes keep
            // their contents at the shifted offsets (little-endian).
            LLVMZExt | LLVMTrunc if i.ty().is_int() => self.shifted(i, 0, 0),
            LLVMShl | LLVMLShr if i.ty().is_int() => {
                match i.operand(1).const_int_value().filter(|c| c % 8 == 0) {
                    Some(c) if i.opcode() == LLVMShl => self.shifted(i, c / 8, 0),
                    Some(c) => self.shifted(i, 0, c / 8),
                    None => self.add(i, &type_tree(m, i.ty())),
                }
            }
            // Each operand's bytes are in the result (a disjoint `or` joins packed values).
            // Not the other way: an operand's bytes that are zero hold nothing of the result.
            LLVMOr if i.ty().is_int() => {
                self.add(i, &type_tree(m, i.ty()));
                for k in 0..2 {
                    let t = self.get(i.operand(k));
                    self.add(i, &t);
                }
            }
            LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem | LLVMFNeg | LLVMFCmp => {
                for k in 0..i.num_operands() {
                    let t = type_tree(m, i.operand(k).ty());
                    self.add(i.operand(k), &t);
                }
            }
            LLVMPtrToInt | LLVMIntToPtr => {
                self.add(i, &Tree::scalar(Kind::Pointer));
                let t = self.get(i);
                self.add(i.operand(0), &t);
            }
            LLVMRet if i.num_operands() == 1 => {
                let f = i.parent_block().parent();
                let t = self.get(i.operand(0));
                let r = self.info.returns.entry((self.ctx, f)).or_default();
                let before = extent(r);
                let changed = r.merge(&t);
                self.changed |= changed;
                let back = r.clone();
                if changed && extent(r) > before && self.shared.contains(&(f, self.ctx)) {
                    if let Some(r) = self.restless.as_mut() {
                        r.insert((f, self.ctx));
                    }
                }
                self.add(i.operand(0), &back);
            }
            // C++ with exceptions calls through `invoke` (-O0 calls everything so).
            LLVMCall | LLVMInvoke => self.call(i),
            _ => {
                let t = type_tree(m, i.ty());
                self.add(i, &t);
            }
        }
    }

    /// The integer `i` holds operand 0's bytes moved `up` bytes higher or `down` bytes lower
    /// (a zero extension, truncation or shift by whole bytes), each within its own width.
    fn shifted(&mut self, i: Val, up: u64, down: u64) {
        let m = self.m;
        let x = i.operand(0);
        let (ni, nx) = (m.store_size(i.ty()), m.store_size(x.ty()));
        let own = type_tree(m, i.ty());
        self.add(i, &own);
        let from_x = self.get(x).shift_down(down).shift_up(up).prefix(ni);
        self.add(i, &from_x);
        let from_i = self.get(i).shift_down(up).shift_up(down).prefix(nx);
        self.add(x, &from_i);
    }

    fn gep(&mut self, g: Val) {
        let m = self.m;
        let base = g.operand(0);
        let src = g.gep_source_type();
        // Struct and array source types describe the memory (as accesses would).
        if matches!(src.kind(), TyKind::Struct | TyKind::Array) {
            let t = type_tree(m, src);
            self.add_pointee(base, t);
        }
        // The offset: a constant part, plus a multiple of the element size when the first
        // index varies (an unbounded array), plus bounded multiples for variable indices into
        // arrays inside the element.
        let mut ty = src;
        let mut off = 0u64;
        let mut outer = None;
        let mut inner: Vec<(u64, u64)> = Vec::new();
        let elem = m.alloc_size(ty);
        match g.operand(1).const_int_sext() {
            // A pointer walking an array (`p = phi [x, %start], [p + c, %loop]`, as -O1
            // writes `for (; p != end; ++p)`) sees what repeats every `c` bytes; taking the
            // constant offset as exact would move what it sees `c` bytes up each round, and
            // the analysis would climb to its offset bound instead of settling.
            Some(k) if k > 0 && g.num_operands() == 2 && steps_recurrence(g) => {
                outer = Some(k as u64 * elem)
            }
            Some(k) if k >= 0 => off += k as u64 * elem,
            Some(_) => return,
            None => match self.bounded_index(g) {
                // A few elements only (`b[i].v[k]` for k < 3, which -O1 writes as
                // `gep double, ptr, k` without the member array's type): what the result sees
                // lies at those offsets, and repeats nowhere else (taken as repeating every 8
                // bytes, the doubles would spread over the neighbouring fields).
                Some((lo, step, n)) => {
                    off += lo * elem;
                    inner.push((step * elem, n));
                }
                None => {
                    // A byte offset of unknown form says nothing about what repeats (only a
                    // multiple of an element size does, as -O2 writes `p + i * 48`).
                    let s = elem * multiplier(g.operand(1));
                    if s <= 1 {
                        return;
                    }
                    outer = Some(s);
                }
            },
        }
        for k in 2..g.num_operands() {
            let idx = g.operand(k);
            match ty.kind() {
                TyKind::Struct => {
                    let Some(f) = idx.const_int_value() else {
                        return;
                    };
                    off += m.field_offset(ty, f as u32);
                    ty = ty.struct_fields()[f as usize];
                }
                TyKind::Array | TyKind::Vector => {
                    let n = if ty.kind() == TyKind::Array {
                        ty.array_len()
                    } else {
                        ty.vector_len() as u64
                    };
                    ty = ty.element();
                    let s = m.alloc_size(ty);
                    match idx.const_int_sext() {
                        Some(c) if c >= 0 => off += c as u64 * s,
                        Some(_) => return,
                        None => inner.push((s, n)),
                    }
                }
                _ => return,
            }
        }
        let rt = type_tree(m, ty);
        self.add_pointee(g, rt);
        let bt = self.get(base).pointee();
        let gt = self.get(g).pointee();
        // Every offset the result may be at within one element of the first index.
        let mut offsets = vec![off];
        for (s, n) in inner {
            if offsets.len() as u64 * n > 256 {
                return;
            }
            offsets = offsets
                .iter()
                .flat_map(|&o| (0..n).map(move |k| o + k * s))
                .collect();
        }
        let exact = offsets.len() == 1;
        let mut seen = Tree::default();
        for &o in &offsets {
            seen.merge(&gt.shift_up(o));
        }
        // A field or element address (`gep T, p, 0, ...`) says what lies inside the `T` it
        // addresses, not past it: the same constructor taking `const T&` to two fields of one
        // object (libstdc++'s `__normal_iterator` on `_M_start` and `_M_finish` at -O0) merges
        // what it sees from both, and each field's view, taken back to the object at its own
        // offset, would move everything the object holds up by the fields' distance, round
        // after round, until the offset bound (the analysis would not settle).
        if g.operand(1).const_int_value() == Some(0)
            && g.num_operands() > 2
            && seen.stride.is_none()
            && bounded_type(src)
        {
            seen = seen.prefix(elem);
        }
        match outer {
            None => {
                self.add_pointee(base, seen);
                if exact {
                    self.add_pointee(g, bt.view_from(off));
                } else if let Some((&first, rest)) = offsets.split_first() {
                    // One of a few places (a bounded index, `x + 32 * i` for i < 3): what the
                    // base holds alike at all of them (before the bound, -O1's byte offset was
                    // taken as repeating, and the result saw the base's pattern).
                    let mut common = bt.view_from(first);
                    for &o in rest {
                        common = common.common(&bt.view_from(o));
                    }
                    if !common.at.is_empty() {
                        self.add_pointee(g, common);
                    }
                }
            }
            Some(stride) => {
                // A float wider than the period cannot repeat that way (the copies would
                // overlap): the offset is a multiple of a runtime stride, not of an element size
                // (Fortran's `base + 3 * byte_stride` for an assumed-shape array's third
                // element), and says nothing about what repeats.
                if gt.at.iter().any(|(&o, &k)| match k {
                    Kind::Float(f) => o % stride + f.size() > stride,
                    _ => false,
                }) {
                    return;
                }
                // The result is somewhere in a repeating pattern: what it sees repeats in the
                // base, and a base known to repeat that way tells the result what it sees.
                let within = seen.prefix(stride).repeated(stride);
                self.add_pointee(base, within);
                if exact && bt.stride.is_some_and(|s| stride.is_multiple_of(s)) {
                    self.add_pointee(g, bt.shift_down(off % bt.stride.unwrap_or(1)));
                }
            }
        }
    }

    /// The first index of GEP `g` as (least value, step between values, number of values)
    /// when the index reasoning bounds it to at most [`MAX_BOUNDED_INDICES`] values, none
    /// negative.
    fn bounded_index(&mut self, g: Val) -> Option<(u64, u64, u64)> {
        if let Some(&r) = self.ranges.get(&g) {
            return r;
        }
        let f = g.parent_block().parent();
        let r = self
            .indices
            .entry(f)
            .or_insert_with(|| Indices::new(f))
            .as_mut()
            .and_then(|ix| ix.range_at(g.operand(1), g))
            .and_then(|(lo, hi, step)| {
                let n = if step == 0 { 1 } else { (hi - lo) / step + 1 };
                (lo >= 0 && hi <= tree::MAX_OFFSET as i128 && n <= MAX_BOUNDED_INDICES as i128)
                    .then_some((lo as u64, step as u64, n as u64))
            });
        self.ranges.insert(g, r);
        r
    }

    fn call(&mut self, c: Val) {
        let m = self.m;
        let args = c.call_args();
        if let Some(t) = (!c.ty().is_void()).then(|| type_tree(m, c.ty())) {
            self.add(c, &t);
        }
        if let Some(site) = self.info.requests.get(&c) {
            // The caller's memory, as it holds it, is what the function's pointer parameters
            // point to (one way: see [`requests`]).
            let (f, k) = (site.function, self.info.view(self.ctx).callee_context(c));
            let params = f.params();
            for a in site.args.clone() {
                let mut t = self.get(a.primal);
                if let Some(s) = a.shadow {
                    t.merge(&self.get(s));
                }
                self.add_in(k, params[a.param], &t);
            }
            return;
        }
        let Some(f) = c.called_function() else {
            return;
        };
        if !f.is_declaration() && c.parent_function().is_some_and(is_open_dispatcher) {
            // A dispatcher over guessed candidates passes its arguments to each, but only
            // the one the pointer matches receives them: the candidates' own accesses say
            // nothing about the caller's memory (a `std::function`'s storage is no
            // `double *` because some other address-taken function of the same type takes
            // one), nor the caller's about theirs (that function's `double *` would take the
            // storage's pointers, and pass the conflict on to everything it calls).
            return;
        }
        if !f.is_declaration() {
            // The callee's values in the context this call site reaches.
            let k = self.info.view(self.ctx).callee_context(c);
            for (a, p) in args.iter().zip(f.params()) {
                let (ta, tp) = (self.get(*a), self.get_in(k, p));
                self.add(*a, &tp);
                self.add_in(k, p, &ta);
            }
            if let Some(r) = self.info.returns.get(&(k, f)).cloned() {
                self.add(c, &r);
                let back = self.get(c);
                self.changed |= self.info.returns.entry((k, f)).or_default().merge(&back);
            }
            return;
        }
        let seed = (self.seed)(c);
        if seed == CallSeed::Copy && args.len() >= 3 {
            // The copied bytes are the same data on both sides.
            let len = args[2].const_int_value().unwrap_or(tree::MAX_OFFSET);
            let (d, s) = (self.get(args[0]).pointee(), self.get(args[1]).pointee());
            self.add_pointee(args[0], s.prefix(len));
            self.add_pointee(args[1], d.prefix(len));
        } else if seed == CallSeed::Allocates && c.ty().is_ptr() {
            self.add(c, &Tree::scalar(Kind::Pointer));
        } else if seed == CallSeed::Math {
            for a in args {
                let t = type_tree(m, a.ty());
                self.add(a, &t);
            }
        } else if seed == CallSeed::MathOut && !args.is_empty() {
            let t = type_tree(m, args[0].ty());
            self.add(args[0], &t);
            for &a in args[1..].iter().filter(|a| a.ty().is_ptr()) {
                self.add_pointee(a, t.clone());
            }
        }
    }
}

/// True for the C++ ABI's type information and vtables (`_ZTI`, `_ZTS`, `_ZTV`): a pointer to
/// them says nothing about the memory it is stored in. `std::function`'s manager returns its
/// functor's `type_info` through the same slot that holds the functor pointer; taking the
/// `type_info`'s layout (two pointers) for the functor's would call its doubles pointers.
fn is_abi_data(g: Val) -> bool {
    let name = g.name();
    ["_ZTI", "_ZTS", "_ZTV"].iter().any(|p| name.starts_with(p))
}

/// The function attribute of a dispatcher whose candidates are the address-taken functions of
/// the call's type, not read off the pointer's origin ([`crate::devirt`]).
pub const OPEN_DISPATCHER: &str = "umbra-dispatch-open";

fn is_open_dispatcher(f: Val) -> bool {
    f.string_fn_attr(OPEN_DISPATCHER).is_some()
}

/// The values a phi or select chooses between.
fn choices(i: Val) -> Vec<Val> {
    if i.opcode() == Opcode::LLVMSelect {
        vec![i.operand(1), i.operand(2)]
    } else {
        i.incoming().into_iter().map(|(v, _)| v).collect()
    }
}

/// True when phi or select `i` chooses between constant offsets of one base pointer, not all
/// the same ([`Analysis::visit`]).
fn field_choice(m: Module, i: Val) -> bool {
    if !i.ty().is_ptr() {
        return false;
    }
    let mut base = None;
    let mut offsets = HashSet::new();
    for v in choices(i) {
        let (b, o) = if v.is_instruction() && v.opcode() == Opcode::LLVMGetElementPtr {
            match bytes::const_offset(m, v) {
                Some(o) => (v.operand(0), o),
                None => return false,
            }
        } else {
            (v, 0)
        };
        if base.is_some_and(|x| x != b) {
            return false;
        }
        base = Some(b);
        offsets.insert(o);
    }
    offsets.len() > 1
}

/// True when getelementptr `g` is the step of a pointer recurrence: its base is a phi that `g`
/// flows back into, directly or through other phis and selects (a loop that appends to a
/// `std::vector`, whose end pointer also passes through the reallocation path).
fn steps_recurrence(g: Val) -> bool {
    let base = g.operand(0);
    let mut stack = vec![base];
    let mut seen = HashSet::new();
    while let Some(v) = stack.pop() {
        if !v.is_instruction() || !seen.insert(v) || seen.len() > 32 {
            continue;
        }
        match v.opcode() {
            Opcode::LLVMPHI => {
                for (x, _) in v.incoming() {
                    if x == g {
                        return true;
                    }
                    stack.push(x);
                }
            }
            Opcode::LLVMSelect if v != base => {
                stack.push(v.operand(1));
                stack.push(v.operand(2));
            }
            _ => {}
        }
    }
    false
}

/// The constant factor a variable index is known to be a multiple of (`mul i, 48`, `shl i,
/// 3`, through sign and zero extensions); 1 when unknown.
pub fn multiplier(v: Val) -> u64 {
    if !v.is_instruction() {
        return 1;
    }
    let c = |k: u32| v.operand(k).const_int_value();
    match v.opcode() {
        Opcode::LLVMSExt | Opcode::LLVMZExt => multiplier(v.operand(0)),
        Opcode::LLVMMul => c(1)
            .or(c(0))
            .filter(|&m| m > 0 && m <= tree::MAX_OFFSET)
            .unwrap_or(1),
        Opcode::LLVMShl => c(1).filter(|&b| b < 12).map_or(1, |b| 1 << b),
        _ => 1,
    }
}

/// The `--print-types` lines for `f`: the tree of each parameter, of the return value, and of
/// each integer the analysis found to carry float bits.
pub fn describe(info: TypeInfo, m: Module, f: Val) -> Vec<String> {
    let mut out = vec![match info.ctx {
        0 => format!("type trees of @{}:", f.name()),
        k => format!("type trees of @{} (call-site context {k}):", f.name()),
    }];
    for (k, p) in f.params().into_iter().enumerate() {
        let name = if p.name().is_empty() {
            format!("#{k}")
        } else {
            format!("%{}", p.name())
        };
        out.push(format!("  param {name}: {}", info.tree(m, p)));
    }
    if let Some(r) = info.returned(f) {
        out.push(format!("  return: {r}"));
    }
    for b in f.blocks() {
        for i in b.instructions() {
            if i.ty().is_int() && info.kind(m, i).is_some_and(Kind::may_be_float) {
                out.push(format!("  float bits: {}: {}", i.print(), info.tree(m, i)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_test_module;

    const D: Kind = Kind::Float(FloatKind::Double);

    fn with_module(ir: &str, check: impl FnOnce(Module, TypeInfo)) {
        let ctx = inkwell::context::Context::create();
        let llm = parse_test_module(&ctx, ir);
        let m = Module(llm.as_mut_ptr());
        let funcs: Vec<Val> = m
            .functions()
            .into_iter()
            .filter(|f| !f.is_declaration())
            .collect();
        let results = analyze(m, &funcs, crate::rules::type_seed, Vec::new());
        let info = results.view(0);
        assert!(info.converged);
        check(m, info);
    }

    #[test]
    fn pointer_walks_settle_on_a_period() {
        // `for (p = x; p != end; ++p)`, the step passing through a second phi as after
        // `push_back`'s reallocation path: the analysis settles (`with_module` asserts it)
        // with a period of 8 instead of climbing 8 bytes a round to its offset bound.
        with_module(
            r#"
            define double @walk(ptr %x, ptr %end, i1 %c) {
            entry:
              br label %loop
            loop:
              %p = phi ptr [ %x, %entry ], [ %next, %latch ]
              %s = phi double [ 0.0, %entry ], [ %t, %latch ]
              %v = load double, ptr %p
              %t = fadd double %s, %v
              %q = getelementptr inbounds i8, ptr %p, i64 8
              br i1 %c, label %side, label %latch
            side:
              br label %latch
            latch:
              %next = phi ptr [ %q, %loop ], [ %q, %side ]
              %done = icmp eq ptr %next, %end
              br i1 %done, label %exit, label %loop
            exit:
              ret double %t
            }
            "#,
            |m, info| {
                let walk = m.function("walk").unwrap();
                let t = info.pointee(m, walk.params()[0]);
                assert_eq!(t.stride, Some(8), "{t}");
                assert_eq!(t.get(0), Some(D), "{t}");
            },
        );
    }

    #[test]
    fn a_choice_between_fields_of_one_node_settles() {
        // A red-black tree's insertion walk (libstdc++ at -O1): `link = left ? &n->left :
        // &n->right`, then `*link` is the next node. The choice's view passed back to each
        // field moved the node's layout 8 bytes at a time every round (never settling); the
        // choice now only learns from the fields.
        with_module(
            r#"
            define double @walk(ptr %root, i1 %c) {
            entry:
              br label %loop
            loop:
              %n = phi ptr [ %root, %entry ], [ %next, %loop ]
              %l = getelementptr inbounds i8, ptr %n, i64 16
              %r = getelementptr inbounds i8, ptr %n, i64 24
              %link = select i1 %c, ptr %l, ptr %r
              %next = load ptr, ptr %link
              %done = icmp eq ptr %next, null
              br i1 %done, label %exit, label %loop
            exit:
              %colour = load i32, ptr %n
              %v.at = getelementptr inbounds i8, ptr %n, i64 40
              %v = load double, ptr %v.at
              ret double %v
            }
            "#,
            |m, info| {
                let walk = m.function("walk").unwrap();
                let t = info.pointee(m, walk.params()[0]);
                assert_eq!(t.get(40), Some(D), "{t}");
                assert!(t.at.keys().all(|&o| o < 48), "{t}");
            },
        );
    }

    #[test]
    fn field_addresses_through_one_reference_parameter_settle() {
        // libstdc++ at -O0: `begin()` and `end()` pass `&_M_start` and `&_M_finish` (offsets 0
        // and 8 of a vector) to the same `__normal_iterator(const T *&)`, whose parameter sees
        // both. Each field's view taken back to the vector at the field's own offset moved the
        // vector's pointers 8 bytes up every round (never settling); a field address speaks
        // only for the struct it addresses, whose pointers stay where they are.
        with_module(
            r#"
            %Vec = type { ptr, ptr, ptr }
            define void @iter(ptr %out, ptr %ref) {
              %v = load ptr, ptr %ref
              store ptr %v, ptr %out
              ret void
            }
            define double @f(ptr %vec) {
              %a = alloca ptr
              %s = getelementptr inbounds %Vec, ptr %vec, i32 0, i32 0
              call void @iter(ptr %a, ptr %s)
              %e = getelementptr inbounds %Vec, ptr %vec, i32 0, i32 1
              call void @iter(ptr %a, ptr %e)
              %d = load ptr, ptr %a
              %x = load double, ptr %d
              ret double %x
            }
            "#,
            |m, info| {
                let f = m.function("f").unwrap();
                let t = info.pointee(m, f.params()[0]);
                for o in [0, 8, 16] {
                    assert_eq!(t.get(o), Some(Kind::Pointer), "{t}");
                }
                assert!(t.at.keys().all(|&o| o < 24), "{t}");
            },
        );
    }

    #[test]
    fn a_parameter_returned_to_callers_at_different_offsets_settles() {
        // Eigen at -O0: `derived()` returns its parameter and is called on an expression and
        // on its member 8 bytes in. Each caller got back what the other passed, so the
        // expression held what it holds 8 bytes up, one step more every round, all pointers
        // (no conflict to split on): the analysis climbed to its offset bound and never
        // settled. Call sites of a context whose parameters still climb after many rounds get
        // contexts of their own.
        with_module(
            r#"
            define ptr @derived(ptr %p) {
              ret ptr %p
            }
            define double @f(ptr %e) {
              %a = call ptr @derived(ptr %e)
              %m = getelementptr inbounds i8, ptr %e, i64 8
              %b = call ptr @derived(ptr %m)
              %l = load ptr, ptr %a
              %r = load ptr, ptr %b
              %x = load double, ptr %l
              %y = load double, ptr %r
              %n = getelementptr inbounds i8, ptr %e, i64 16
              %k = load i64, ptr %n
              %kf = sitofp i64 %k to double
              %s = fadd double %x, %y
              %t = fadd double %s, %kf
              ret double %t
            }
            "#,
            |m, info| {
                let f = m.function("f").unwrap();
                let t = info.pointee(m, f.params()[0]);
                assert_eq!(t.get(0), Some(Kind::Pointer), "{t}");
                assert_eq!(t.get(8), Some(Kind::Pointer), "{t}");
                assert_eq!(t.get(16), Some(Kind::Integer), "{t}");
                assert!(t.at.keys().all(|&o| o < 24), "{t}");
            },
        );
    }

    #[test]
    fn empty_members_at_neighbouring_bytes_settle() {
        // Eigen's `MapBase` at -O0 constructs its two empty `variable_if_dynamic` members at
        // bytes 8 and 9 of itself through one constructor: its parameter saw the object at two
        // offsets a byte apart, conflicted, and passed the conflict back to both, a byte
        // further each round. The two call sites get contexts of their own once the climb
        // shows, and the object keeps its double.
        with_module(
            r#"
            define void @empty_ctor(ptr %this, i64 %v) {
              ret void
            }
            define double @f(ptr %o) {
              %r = getelementptr inbounds i8, ptr %o, i64 8
              call void @empty_ctor(ptr %r, i64 1)
              %c = getelementptr inbounds i8, ptr %o, i64 9
              call void @empty_ctor(ptr %c, i64 2)
              %p = load ptr, ptr %o
              %x = load double, ptr %p
              %q = getelementptr inbounds i8, ptr %o, i64 16
              %y = load double, ptr %q
              %s = fadd double %x, %y
              ret double %s
            }
            "#,
            |m, info| {
                let f = m.function("f").unwrap();
                let t = info.pointee(m, f.params()[0]);
                assert_eq!(t.get(0), Some(Kind::Pointer), "{t}");
                assert_eq!(t.get(16), Some(Kind::Float(FloatKind::Double)), "{t}");
                assert!(!t.has_conflict(), "{t}");
            },
        );
    }

    #[test]
    fn type_info_lends_no_layout_to_where_its_address_is_stored() {
        // A std::function manager stores the functor's type_info or the functor's address in
        // the same slot: the type_info's two pointers must not become the functor's layout.
        with_module(
            r#"
            @_ZTI3Fun = constant { ptr, ptr } zeroinitializer
            define void @manager(ptr %dest, ptr %functor, i1 %info) {
              br i1 %info, label %a, label %b
            a:
              store ptr @_ZTI3Fun, ptr %dest
              ret void
            b:
              store ptr %functor, ptr %dest
              ret void
            }
            "#,
            |m, info| {
                let manager = m.function("manager").unwrap();
                let functor = info.pointee(m, manager.params()[1]);
                assert!(functor.is_unknown(), "{functor}");
            },
        );
    }

    #[test]
    fn open_dispatchers_pass_no_types_to_or_from_candidates() {
        // One candidate reads doubles, the caller's memory holds a pointer: neither learns
        // from the other through a dispatcher over guessed candidates.
        with_module(
            r#"
            define double @reads_doubles(ptr %x) {
              %v = load double, ptr %x
              ret double %v
            }
            define double @dispatch(ptr %a, ptr %fp) "umbra-dispatch-open" {
              %r = call double @reads_doubles(ptr %a)
              ret double %r
            }
            define double @caller(ptr %obj, ptr %fp, ptr %q) {
              store ptr %q, ptr %obj
              %r = call double @dispatch(ptr %obj, ptr %fp)
              ret double %r
            }
            "#,
            |m, info| {
                let cand = m.function("reads_doubles").unwrap();
                let t = info.pointee(m, cand.params()[0]);
                assert_eq!(t.get(0), Some(D), "{t}");
                let caller = m.function("caller").unwrap();
                let t = info.pointee(m, caller.params()[0]);
                assert_eq!(t.get(0), Some(Kind::Pointer), "{t}");
            },
        );
    }

    #[test]
    fn pointer_parameters_learn_from_callers() {
        // The helper only memcpys: what it moves comes from the caller's accesses.
        with_module(
            r#"
            %Item = type { double, i32, [3 x double], ptr }
            declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
            define internal void @copy(ptr %d, ptr %s, i64 %n) {
              call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
              ret void
            }
            define double @use(ptr %in, i64 %i) {
              %t = alloca [3 x %Item]
              call void @copy(ptr %t, ptr %in, i64 144)
              %p = getelementptr inbounds %Item, ptr %t, i64 %i, i32 2, i64 1
              %v = load double, ptr %p
              ret double %v
            }
            "#,
            |m, info| {
                let copy = m.function("copy").unwrap();
                let s = info.pointee(m, copy.params()[1]);
                assert_eq!(s.get(0), Some(D), "{s}");
                assert_eq!(s.get(8), Some(Kind::Integer), "{s}");
                assert_eq!(s.get(48 + 24), Some(D), "{s}");
                assert_eq!(s.get(96 + 40), Some(Kind::Pointer), "{s}");
            },
        );
    }

    #[test]
    fn call_sites_passing_different_types_get_contexts_of_their_own() {
        // Merged, the helper's parameters would conflict (a double and a pointer at 0); each
        // call site gets its own context, whose trees are its caller's, and whose length
        // parameter is the constant that call passes.
        with_module(
            r#"
            %View = type { ptr, i32 }
            declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
            define internal void @copy(ptr %d, ptr %s, i64 %n) {
              call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
              ret void
            }
            define double @f(ptr %x) {
              %t = alloca [2 x double]
              call void @copy(ptr %t, ptr %x, i64 16)
              %v = alloca %View
              store ptr %t, ptr %v
              %w = alloca %View
              call void @copy(ptr %w, ptr %v, i64 12)
              %a = load double, ptr %t
              ret double %a
            }
            "#,
            |m, info| {
                let copy = m.function("copy").unwrap();
                assert_eq!(info.contexts_of(copy), 2);
                let f = m.function("f").unwrap();
                let calls: Vec<Val> = f
                    .entry_block()
                    .instructions()
                    .into_iter()
                    .filter(|i| i.is_call())
                    .collect();
                assert_eq!(info.callee_context(calls[0]), 0);
                assert_eq!(info.callee_context(calls[1]), 1);
                let d = copy.params()[0];
                let doubles = info.pointee(m, d);
                assert_eq!(doubles.get(8), Some(D), "{doubles}");
                let view = info.in_context(1).pointee(m, d);
                assert_eq!(view.get(0), Some(Kind::Pointer), "{view}");
                assert!(!view.has_conflict() && !doubles.has_conflict());
                let n = copy.params()[2];
                assert_eq!(info.in_context(1).constant_argument(n), Some(12));
                assert_eq!(info.constant_argument(n), Some(16));
                assert_eq!(
                    info.constant_argument(f.params()[0]),
                    None,
                    "f is visible outside"
                );
            },
        );
    }

    #[test]
    fn requests_are_call_sites_of_the_function_they_differentiate() {
        // The caller's bytes, filled from a global of doubles, type the helper's parameters in
        // a context of the request's own (the helper's other caller passes a struct), whose
        // length is the request's constant; the caller's trees are its own (the view flows one
        // way).
        let ctx = inkwell::context::Context::create();
        let llm = parse_test_module(
            &ctx,
            r#"
            %View = type { ptr, i32 }
            @init = private constant [2 x double] [double 1.5, double 2.5]
            declare void @__enzyme_autodiff(ptr, ...)
            declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
            define internal void @copy(ptr %d, ptr %s, i64 %n) {
              call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
              ret void
            }
            define void @use(ptr %v) {
              %w = alloca %View
              call void @copy(ptr %w, ptr %v, i64 16)
              ret void
            }
            define void @caller(ptr %dx) {
              %x = alloca [16 x i8]
              call void @llvm.memcpy.p0.p0.i64(ptr %x, ptr @init, i64 16, i1 false)
              %y = alloca [16 x i8]
              call void (ptr, ...) @__enzyme_autodiff(ptr @copy, ptr %y, ptr %x, ptr %dx, i64 16)
              ret void
            }
            "#,
        );
        let m = Module(llm.as_mut_ptr());
        let funcs: Vec<Val> = m
            .functions()
            .into_iter()
            .filter(|f| !f.is_declaration())
            .collect();
        let (copy, caller) = (m.function("copy").unwrap(), m.function("caller").unwrap());
        let body = caller.entry_block().instructions();
        let (x, y, call) = (body[0], body[2], body[3]);
        let site = RequestSite {
            call,
            function: copy,
            args: vec![
                RequestArg {
                    param: 0,
                    primal: y,
                    shadow: None,
                },
                RequestArg {
                    param: 1,
                    primal: x,
                    shadow: Some(caller.params()[0]),
                },
            ],
            constants: vec![(2, 16)],
        };
        let results = analyze(m, &funcs, crate::rules::type_seed, vec![site]);
        let info = results.view(0);
        assert!(info.converged);
        assert_eq!(info.contexts_of(copy), 2);
        let k = info.callee_context(call);
        assert_eq!(k, 1, "the struct's call site came first");
        let own = info.in_context(k);
        let [d, s, n] = copy.params()[..] else {
            unreachable!()
        };
        assert_eq!(own.pointee(m, s).get(8), Some(D), "{}", own.pointee(m, s));
        assert_eq!(own.pointee(m, d).get(0), Some(D), "copied from the source");
        assert_eq!(own.constant_argument(n), Some(16));
        assert_eq!(info.pointee(m, d).get(0), Some(Kind::Pointer));
        // The caller's unfilled bytes learn nothing from the function.
        assert!(info.pointee(m, y).is_unknown(), "{}", info.pointee(m, y));
        assert!(check_request(info, m, call, "__enzyme_autodiff").is_ok());
    }

    #[test]
    fn integers_carrying_float_bits_are_floats() {
        with_module(
            r#"
            define internal double @scaled(i64 %u) {
              %d = bitcast i64 %u to double
              %r = fmul double %d, 2.0
              ret double %r
            }
            define double @f(double %x) {
              %b = bitcast double %x to i64
              %a = and i64 %b, 9223372036854775807
              %r = call double @scaled(i64 %a)
              ret double %r
            }
            "#,
            |m, info| {
                let f = m.function("f").unwrap();
                let a = f.entry_block().instructions()[1];
                assert_eq!(info.kind(m, a), Some(D));
                let scaled = m.function("scaled").unwrap();
                assert_eq!(info.kind(m, scaled.params()[0]), Some(D));
            },
        );
    }

    #[test]
    fn byte_offsets_repeat_only_by_known_multiples() {
        // -O2 indexes an array of 16-byte {double, ptr} as `p + i * 16`; a bare byte walk
        // (`p + k`) says nothing about what repeats and must not fold everything together.
        with_module(
            r#"
            define double @f(ptr %p, i64 %i, i64 %k) {
              %o = mul i64 %i, 16
              %e = getelementptr inbounds i8, ptr %p, i64 %o
              %v = load double, ptr %e
              %f = getelementptr inbounds i8, ptr %e, i64 8
              %q = load ptr, ptr %f
              %b = getelementptr inbounds i8, ptr %p, i64 %k
              %c = load i8, ptr %b
              ret double %v
            }
            "#,
            |m, info| {
                let f = m.function("f").unwrap();
                let t = info.pointee(m, f.params()[0]);
                assert_eq!(t.stride, Some(16), "{t}");
                assert_eq!(t.get(32), Some(D), "{t}");
                assert_eq!(t.get(40), Some(Kind::Pointer), "{t}");
            },
        );
    }

    #[test]
    fn a_counted_index_into_a_member_array_stays_in_it() {
        // -O1 reads `b[i].v[k]` for k < 3 as `gep double, ptr, k` (also as byte offsets
        // `k << 3`): the loop bounds k, so the doubles are v's, not every 8 bytes of the
        // element (which would put one over `id` and `pad` at 8 and 12).
        with_module(
            r#"
            %Body = type { double, i32, float, [3 x double] }
            define double @f(ptr %b, i64 %i) {
            entry:
              %e = getelementptr inbounds %Body, ptr %b, i64 %i
              %id = getelementptr inbounds i8, ptr %e, i64 8
              %n = load i32, ptr %id
              %v = getelementptr inbounds i8, ptr %e, i64 16
              br label %loop
            loop:
              %k = phi i64 [ 0, %entry ], [ %k1, %loop ]
              %s = phi double [ 0.0, %entry ], [ %s2, %loop ]
              %p = getelementptr inbounds double, ptr %v, i64 %k
              %x = load double, ptr %p
              %o = shl nuw nsw i64 %k, 3
              %q = getelementptr inbounds i8, ptr %v, i64 %o
              %y = load double, ptr %q
              %s1 = fadd double %s, %x
              %s2 = fadd double %s1, %y
              %k1 = add nuw nsw i64 %k, 1
              %done = icmp eq i64 %k1, 3
              br i1 %done, label %exit, label %loop
            exit:
              ret double %s2
            }
            "#,
            |m, info| {
                let f = m.function("f").unwrap();
                let t = info.pointee(m, f.params()[0]);
                assert_eq!(t.stride, Some(40), "{t}");
                assert_eq!(t.get(8), Some(Kind::Integer), "{t}");
                for o in [16, 24, 32] {
                    assert_eq!(t.get(o), Some(D), "{t}");
                }
            },
        );
    }

    #[test]
    fn packed_floats_are_a_vector() {
        with_module(
            r#"
            define float @f(ptr %p) {
              %i = load i64, ptr %p
              %v = bitcast i64 %i to <2 x float>
              %a = extractelement <2 x float> %v, i32 0
              ret float %a
            }
            define i64 @g(ptr %p) {
              %i = load i64, ptr %p
              ret i64 %i
            }
            "#,
            |m, info| {
                let f = m.function("f").unwrap();
                let i = f.entry_block().instructions()[0];
                let t = float_bits(info, m, i).map(|t| t.print());
                assert_eq!(t.as_deref(), Some("<2 x float>"));
                let g = m.function("g").unwrap();
                let j = g.entry_block().instructions()[0];
                assert!(
                    float_bits(info, m, j).is_none(),
                    "nothing says it holds floats"
                );
            },
        );
    }

    #[test]
    fn packed_integers_keep_bytes_at_their_offsets() {
        // -O2 passes a {float, float} as an i64 built with zext, shl and or, and the callee
        // unpacks it with lshr and trunc: both halves are floats, and so is the whole.
        with_module(
            r#"
            define internal float @sum(i64 %u) {
              %lo = trunc i64 %u to i32
              %a = bitcast i32 %lo to float
              %sh = lshr i64 %u, 32
              %hi = trunc i64 %sh to i32
              %b = bitcast i32 %hi to float
              %r = fadd float %a, %b
              ret float %r
            }
            define float @f(float %x, float %y) {
              %xi = bitcast float %x to i32
              %yi = bitcast float %y to i32
              %yz = zext i32 %yi to i64
              %ys = shl i64 %yz, 32
              %xz = zext i32 %xi to i64
              %p = or disjoint i64 %ys, %xz
              %r = call float @sum(i64 %p)
              ret float %r
            }
            define i64 @g(i64 %n) {
              %s = shl i64 %n, 3
              %o = or i64 %s, 1
              ret i64 %o
            }
            "#,
            |m, info| {
                let f = m.function("f").unwrap();
                let p = f.entry_block().instructions()[5];
                let t = float_bits(info, m, p).map(|t| t.print());
                assert_eq!(t.as_deref(), Some("<2 x float>"), "{}", info.tree(m, p));
                let sum = m.function("sum").unwrap();
                let u = sum.params()[0];
                assert_eq!(float_bits(info, m, u).map(|t| t.print()), t);
                let g = m.function("g").unwrap();
                let o = g.entry_block().instructions()[1];
                assert_eq!(
                    info.kind(m, o),
                    Some(Kind::Integer),
                    "shifts by bits, not bytes"
                );
                assert!(returned_float_bits(info, m, g).is_none());
            },
        );
    }

    #[test]
    fn integer_returns_carrying_floats() {
        with_module(
            r#"
            define internal i64 @bits(double %x) {
              %u = bitcast double %x to i64
              ret i64 %u
            }
            define internal i64 @count(i64 %n) {
              %m = add i64 %n, 1
              ret i64 %m
            }
            define double @f(double %x) {
              %u = call i64 @bits(double %x)
              %n = call i64 @count(i64 3)
              %d = bitcast i64 %u to double
              ret double %d
            }
            "#,
            |m, info| {
                let bits = m.function("bits").unwrap();
                let t = returned_float_bits(info, m, bits).map(|t| t.print());
                assert_eq!(t.as_deref(), Some("double"));
                let count = m.function("count").unwrap();
                assert!(returned_float_bits(info, m, count).is_none());
            },
        );
    }

    #[test]
    fn unions_read_as_integers_hold_floats() {
        with_module(
            r#"
            %union.anon = type { double }
            define double @f(double %x) {
              %u = alloca %union.anon
              store double %x, ptr %u
              %i = load i64, ptr %u
              %c = and i64 %i, 9223372036854775807
              store i64 %c, ptr %u
              %r = load double, ptr %u
              ret double %r
            }
            "#,
            |m, info| {
                let f = m.function("f").unwrap();
                let i = f.entry_block().instructions()[2];
                assert_eq!(info.kind(m, i), Some(D));
            },
        );
    }
}
