//! Overwrite analysis (Enzyme's "uncacheable loads"): which loads of a function the adjoint may
//! *re-read* (load the same address again) instead of taping the loaded value.
//!
//! # What it proves
//! For a load `L` in `f`, [`Overwrites::rereadable`] is true only when the bytes `L` read are
//! the same when the adjoint of `f` runs, assuming
//! - the adjoint writes only shadow memory (never primal memory), and a call's augmented
//!   forward function writes no more primal memory than the callee's body;
//! - the calls listed in [`Overwrites::deferred_frees`] do not run in the augmented sweep but
//!   in the adjoint, after every re-read (see there);
//! - if [`OverwriteContext::memory_stable`], the caller writes nothing between the augmented
//!   sweep and the adjoint.
//!
//! It holds when `L` is neither volatile nor atomic, none of its underlying objects is an
//! `alloca` (the stack of the augmented function is gone when the adjoint runs) or a
//! garbage-collected allocation, and no instruction that may run after `L` in `f` (later in its
//! block, in a block reachable from it, in `L`'s own block again when that lies on a cycle) may
//! write or free memory that may alias `L`'s bytes. Without `memory_stable`, every object `L` may
//! read must moreover be a heap allocation made in `f` that never escapes `f`, or a `constant`
//! global, since the caller could write anything else before the adjoint.
//!
//! # Evidence
//! - *Underlying objects* through GEPs, casts, `freeze`, phis, selects and constant
//!   expressions ([`underlying_objects`]): allocas, fresh allocations (calls of a rule whose
//!   effects allocate and neither write nor free, returning a pointer), globals, arguments; any
//!   other origin (a loaded pointer, `inttoptr`, another call's result) is *unknown*.
//! - *May-alias* of two objects: distinct allocas, allocation sites and globals never alias; a
//!   fresh allocation aliases only itself and, if it escapes `f` (stored as a value, returned,
//!   cast to an integer, passed to a call that may capture it), unknown pointers; two distinct
//!   arguments alias unless one is `noalias`; a `noalias` argument aliases no global; `constant`
//!   globals are never written. Same object with constant byte offsets and sizes that do not
//!   overlap: no alias. Store and load with TBAA access types neither of which is an ancestor of
//!   the other in one TBAA tree: no alias.
//! - *Indices across loop nests* ([`super::indices`]): a store whose every execution after the
//!   load writes bytes the load's execution did not read (affine addresses in the counters of
//!   the loops around them, their bounds and branch conditions, row-major delinearisation)
//!   does not clobber it.
//! - *Allocation sites in loops*: a write to a block of the load's own allocation site is
//!   harmless when both address the site's latest block without a phi in between and every
//!   path from the load to the write runs the allocation again (the write hits a newer block;
//!   the older one is not freed before the adjoint, or the free clobbers the load).
//! - *Writers*: stores, atomics, `va_arg`, and calls. A call writes what its callee's rule
//!   effects, LLVM memory attributes (`memory(...)` on the call or callee, `readonly`/`readnone`
//!   on a parameter) and, for a callee with a body, a recursive summary of that body (which
//!   parameters it may write or free through, whether it writes anything else, which it may
//!   capture) allow, whichever is tightest. `memcpy`/`memmove`/`memset` write their destination
//!   range. Unknown calls write anything reachable (everything but non-escaping fresh
//!   allocations).
//! - *Frees*: a `free`-like call (a rule that only frees) of memory that is certainly a fresh
//!   allocation of `f` is *deferred* rather than counted as a writer, when some re-readable load
//!   needs it; every other free is a writer of the objects it frees.
//!
//! Unsure means "not re-readable": a wrong "re-read" is a silently wrong gradient.

use super::cfg::reverse_post_order;
use super::indices::Indices;
pub use super::objects::underlying_objects;
use crate::ir::{Block, Module, Opcode, Ty, TyKind, Val};
use crate::rules::user::UserRules;
use crate::rules::{self, Area, Rule};
use std::collections::{HashMap, HashSet};

/// Context of the derived function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OverwriteContext {
    /// The caller runs the adjoint right after the augmented sweep, writing nothing between.
    pub memory_stable: bool,
}

/// The answers for one function: which loads the adjoint may re-read.
#[derive(Clone)]
pub struct Overwrites {
    f: Val,
    ctx: OverwriteContext,
    /// Every analysed load → `Ok` (re-readable) or why not.
    loads: HashMap<Val, Result<(), String>>,
    /// The re-readable loads some store could only be told apart from by index reasoning.
    by_index: HashSet<Val>,
    deferred: Vec<Val>,
    /// Every instruction that may write or free primal memory (deferred frees excluded).
    writers: Vec<Val>,
    /// Stores whose shadow zeroing in the adjoint is dead ([`super::dead_shadow`]).
    dead_zeroing: HashSet<Val>,
    /// The calls that may reach a stack slot of `f` (see [`Overwrites::reaches_stack`]).
    stack_calls: HashSet<Val>,
    places: Places,
}

impl Overwrites {
    /// Analyses `f` (its reachable blocks); `rules` are the module's user rules (a callee
    /// `function_like` a built-in rule has that rule's effects; calls with a user gradient
    /// write anything).
    pub fn analyze(f: Val, ctx: OverwriteContext, rules: &UserRules) -> Overwrites {
        Overwrites::analyze_for(f, ctx, rules, |_| true)
    }

    /// Like [`Overwrites::analyze`], deferring only the frees that a re-readable load whose
    /// value the adjoint needs (`needed`) depends on: a block whose contents the adjoint never
    /// reads is freed where the primal frees it, so the optimiser can drop work the gradient
    /// does not use. Loads not `needed` may still be reported re-readable only when no free
    /// clobbers them either.
    pub fn analyze_for(
        f: Val,
        ctx: OverwriteContext,
        rules: &UserRules,
        needed: impl Fn(Val) -> bool,
    ) -> Overwrites {
        let mut o = Oracle::new(f.module(), rules);
        let blocks = reverse_post_order(f);
        let reach = reachability(&blocks);
        // Every writer of `f` with its place, and the free-like calls that could be deferred.
        let mut writes: Vec<(Val, Target)> = Vec::new();
        let mut candidates: Vec<(Val, Val)> = Vec::new();
        for &b in &blocks {
            for i in b.instructions() {
                let (targets, free) = o.instruction_writes(i);
                for t in targets {
                    writes.push((i, t));
                }
                if let Some(p) = free {
                    // The adjoint releases a deferred block by calling the same deallocator
                    // with the pointer alone.
                    if o.deferrable(p) && i.num_call_args() == 1 {
                        candidates.push((i, p));
                    } else {
                        writes.push((i, Target::Anywhere(p)));
                    }
                }
            }
        }
        let places = Places {
            position: blocks
                .iter()
                .flat_map(|&b| {
                    b.instructions()
                        .into_iter()
                        .enumerate()
                        .map(move |(k, i)| (i, (b, k)))
                })
                .collect(),
            reach,
        };
        let allocas: Vec<Val> = blocks
            .iter()
            .flat_map(|b| b.instructions())
            .filter(|i| i.opcode() == Opcode::LLVMAlloca)
            .collect();
        o.stack_escaped = allocas.iter().any(|&a| o.escapes(a));
        let after = |l: Val, s: Val| places.after(l, s);
        let mut loads = HashMap::new();
        let mut indices: Option<Option<Indices>> = None;
        let mut by_index = HashSet::new();
        for &b in &blocks {
            for l in b.instructions() {
                if !is_memory_read(l) {
                    continue;
                }
                let mut indexed = false;
                let verdict = o.intrinsic_verdict(l, ctx).and_then(|()| {
                    let clobbers = |(s, t): &&(Val, Target)| {
                        if !after(l, *s) || !o.may_clobber(l, *s, t, &places) {
                            return false;
                        }
                        // Aliasing alone cannot tell; the indices may.
                        let missed = index_miss(&mut indices, f, l, *s, t);
                        indexed |= missed;
                        !missed
                    };
                    match writes.iter().find(clobbers) {
                        Some((s, _)) => Err(format!("may be overwritten by {}", s.print())),
                        None => Ok(()),
                    }
                });
                if indexed && verdict.is_ok() {
                    by_index.insert(l);
                }
                loads.insert(l, verdict);
            }
        }
        // Defer exactly the frees some re-readable load needs deferred; the others stay
        // writers, which by construction clobber no re-readable load.
        let mut deferred = Vec::new();
        for (call, p) in candidates {
            let mut clobbers =
                |l: Val| after(l, call) && o.may_clobber(l, call, &Target::Anywhere(p), &places);
            let wanted = loads
                .iter()
                .any(|(&l, v)| v.is_ok() && needed(l) && clobbers(l));
            if wanted {
                deferred.push(call);
            } else {
                // Not deferred: it is a writer like any other, so the loads it may clobber are
                // not re-readable (none of them is needed).
                for (&l, v) in loads.iter_mut() {
                    if v.is_ok() && clobbers(l) {
                        *v = Err(format!("its block is freed by {}", call.print()));
                    }
                }
            }
        }
        // Shadow stores nothing reads again: blocks of `f` that do not escape it.
        let dead_zeroing = super::dead_shadow::dead_zeroing(
            f.module(),
            &blocks,
            |x| o.kind(x) == Kind::Heap && !o.escapes(x),
            |a, s| places.after(a, s),
            |a, pa, na, s, ps, ns| match indices.get_or_insert_with(|| Indices::new(f)) {
                Some(ix) => ix.later_writes_miss(a, pa, na, s, ps, ns),
                None => false,
            },
        );
        let mut writers: Vec<Val> = writes
            .iter()
            .map(|(s, _)| *s)
            .chain(candidates_left(&deferred, &places, &blocks))
            .collect();
        writers.dedup();
        // A call reaches a stack slot of `f` through an argument whose underlying objects
        // include an alloca, or through memory once any alloca's address escapes.
        let any_escapes = o.stack_escaped;
        let mut stack_calls = HashSet::new();
        if !allocas.is_empty() {
            for &b in &blocks {
                for i in b.instructions() {
                    if !matches!(i.opcode(), Opcode::LLVMCall | Opcode::LLVMInvoke) {
                        continue;
                    }
                    let reaches = any_escapes
                        || i.call_args().into_iter().any(|a| {
                            a.ty().contains_ptr()
                                && o.objects(a).into_iter().any(|x| o.kind(x) == Kind::Alloca)
                        });
                    if reaches {
                        stack_calls.insert(i);
                    }
                }
            }
        }
        Overwrites {
            f,
            ctx,
            loads,
            by_index,
            deferred,
            writers,
            stack_calls,
            places,
            dead_zeroing,
        }
    }

    /// True when the adjoint of store `s` need not zero the shadow bytes it wrote: nothing
    /// reads them afterwards ([`super::dead_shadow`]).
    pub fn zeroing_dead(&self, s: Val) -> bool {
        self.dead_zeroing.contains(&s)
    }

    /// True when an instruction that may run after `i` (an instruction of `f`) may write or
    /// free primal memory: a callee called at `i` then cannot count on stable memory between
    /// its two sweeps.
    pub fn writes_after(&self, i: Val) -> bool {
        if !self.places.position.contains_key(&i) {
            return true;
        }
        self.writers.iter().any(|&s| self.places.after(i, s))
    }

    /// True when call `call` (an instruction of `f`) may reach a stack slot of `f` (an alloca
    /// among its arguments' underlying objects, or any alloca whose address escapes): the
    /// callee's adjoint runs inside `f`'s, after `f`'s augmented sweep has returned and its
    /// stack is gone, so it cannot count on stable memory between its two sweeps either.
    pub fn reaches_stack(&self, call: Val) -> bool {
        self.stack_calls.contains(&call)
    }

    /// True when the adjoint may load `load`'s address again and get the same bytes (given
    /// that the [`Overwrites::deferred_frees`] are deferred).
    pub fn rereadable(&self, load: Val) -> bool {
        self.loads.get(&load).is_some_and(Result::is_ok)
    }

    /// Why `load` is not re-readable (`None` when it is, or is not a load of the function).
    pub fn reason(&self, load: Val) -> Option<&str> {
        match self.loads.get(&load) {
            Some(Err(why)) => Some(why),
            _ => None,
        }
    }

    /// The `free`-like calls (rules that only free, of memory certainly allocated in `f` by an
    /// allocation rule) that the reverse mode must not run in the augmented sweep: it must
    /// release the block in the adjoint instead, after the last re-read of it (at the latest
    /// when the adjoint passes the allocation, with the allocator's matching deallocator). The
    /// [`Overwrites::rereadable`] answers assume exactly these are deferred.
    pub fn deferred_frees(&self) -> &[Val] {
        &self.deferred
    }

    /// A report for lit tests: each load of `f` in reverse post-order, `re-read` or
    /// `cached: <reason>`, then each deferred free.
    pub fn describe(&self) -> Vec<String> {
        let mode = if self.ctx.memory_stable {
            "memory stable"
        } else {
            "caller may write"
        };
        let mut out = vec![format!("overwrites of @{} ({mode}):", self.f.name())];
        for b in reverse_post_order(self.f) {
            for i in b.instructions() {
                match self.loads.get(&i) {
                    Some(Ok(())) if self.by_index.contains(&i) => out.push(format!(
                        "  {}: re-read (later stores miss it by index)",
                        i.print()
                    )),
                    Some(Ok(())) => out.push(format!("  {}: re-read", i.print())),
                    Some(Err(why)) => out.push(format!("  {}: cached: {why}", i.print())),
                    None => {}
                }
            }
        }
        for &d in &self.deferred {
            out.push(format!("  deferred free: {}", d.print()));
        }
        out
    }
}

/// The free-like calls of `blocks` that are not deferred (they free memory like any writer).
fn candidates_left<'a>(
    deferred: &'a [Val],
    places: &'a Places,
    blocks: &'a [Block],
) -> impl Iterator<Item = Val> + 'a {
    blocks
        .iter()
        .flat_map(|b| b.instructions())
        .filter(move |i| places.position.contains_key(i) && !deferred.contains(i))
        .filter(|i| {
            i.is_call()
                && i.called_function()
                    .and_then(|f| rules::lookup(&f.name()))
                    .is_some_and(|r| r.effects.frees)
        })
}

/// True when index reasoning proves that no execution of `s` (writing target `t`) after one of
/// load `l` reaches the bytes `l` read (`indices`: the reasoning for `f`, made on first use).
fn index_miss(indices: &mut Option<Option<Indices>>, f: Val, l: Val, s: Val, t: &Target) -> bool {
    let Target::At {
        ptr,
        size: Some(size_s),
        ..
    } = *t
    else {
        return false;
    };
    if l.opcode() != Opcode::LLVMLoad {
        return false;
    }
    let Some(size_l) = fixed_size(f.module(), l.ty()) else {
        return false;
    };
    match indices.get_or_insert_with(|| Indices::new(f)) {
        Some(ix) => ix.later_writes_miss(l, l.operand(0), size_l, s, ptr, size_s),
        None => false,
    }
}

/// A read of memory the adjoint may repeat: a `load`, or a masked vector load or gather (the
/// loop vectoriser's strided and conditional reads), whose address is operand 0 as well.
pub fn is_memory_read(i: Val) -> bool {
    match i.opcode() {
        Opcode::LLVMLoad => true,
        Opcode::LLVMCall => i.called_function().is_some_and(|f| {
            let n = f.name();
            n.starts_with("llvm.masked.load.") || n.starts_with("llvm.masked.gather.")
        }),
        _ => false,
    }
}

/// What an underlying object is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `null`, `undef`, `poison`: no memory (accessing it is undefined).
    Nothing,
    /// A stack slot.
    Alloca,
    /// A heap block from an allocation rule of C, C++ or Rust.
    Heap,
    /// A garbage-collected allocation (Julia).
    Gc,
    /// A global variable (functions count as constant globals).
    Global { constant: bool },
    /// A parameter of the function.
    Arg { noalias: bool },
    /// Anything else: a loaded pointer, `inttoptr`, another call's result, ...
    Unknown,
}

/// Memory a writer may touch.
#[derive(Clone, Copy, Debug)]
enum Target {
    /// `size` bytes (unknown: any number) from `ptr`; `tbaa`: the instruction whose TBAA tag
    /// describes the access.
    At {
        ptr: Val,
        size: Option<u64>,
        tbaa: Option<Val>,
    },
    /// Anywhere in the objects of `ptr`.
    Anywhere(Val),
    /// Any memory reachable from outside `f`: everything but non-escaping fresh allocations.
    Everything,
}

/// What a function with a body may do to memory, seen from its callers.
#[derive(Clone, Debug)]
struct Summary {
    /// Per parameter: may write or free memory through it.
    writes: Vec<bool>,
    /// Per parameter: may capture it (store it, return it, ...).
    captures: Vec<bool>,
    /// May write or free memory not reached through a parameter directly.
    other: bool,
}

impl Summary {
    fn anything(n: usize) -> Summary {
        Summary {
            writes: vec![true; n],
            captures: vec![true; n],
            other: true,
        }
    }
}

/// Memoised queries shared by the analysis of one function and its callees.
struct Oracle<'o> {
    m: Module,
    rules: &'o UserRules,
    /// Whether the address of some stack slot of the function escapes (is stored, passed
    /// somewhere that may keep it): then a pointer of unknown origin may point into the stack.
    stack_escaped: bool,
    objects: HashMap<Val, Vec<Val>>,
    /// Position of each instruction in its function, for functions whose objects were sorted
    /// ([`Oracle::objects`]).
    positions: HashMap<Val, usize>,
    escapes: HashMap<Val, bool>,
    summaries: HashMap<Val, Summary>,
    in_progress: HashSet<Val>,
}

/// Intrinsics that write nothing a load can observe (lifetime markers only end allocas, which
/// are never re-read).
fn harmless_intrinsic(name: &str) -> bool {
    [
        "llvm.lifetime.",
        "llvm.assume",
        "llvm.dbg.",
        "llvm.experimental.noalias.scope.decl",
        "llvm.invariant.start",
        "llvm.invariant.end",
        "llvm.prefetch",
        "llvm.pseudoprobe",
        "llvm.donothing",
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

/// Location bits of an LLVM `memory(...)` attribute value: two bits (ref, mod) per location.
const MEM_ARG: u32 = 0;
const MEM_ERRNO: u32 = 2;
const MEM_OTHER: u32 = 3;
fn mem_writes(me: u64, loc: u32) -> bool {
    (me >> (2 * loc)) & 2 != 0
}

impl<'o> Oracle<'o> {
    fn new(m: Module, rules: &'o UserRules) -> Oracle<'o> {
        Oracle {
            m,
            rules,
            stack_escaped: false,
            objects: HashMap::new(),
            positions: HashMap::new(),
            escapes: HashMap::new(),
            summaries: HashMap::new(),
            in_progress: HashSet::new(),
        }
    }

    /// The underlying objects of `p` in a stable order (arguments by position, globals by
    /// name, instructions by position), so the first one that decides a verdict, and the reason
    /// `--print-types` gives, are the same in every run.
    fn objects(&mut self, p: Val) -> Vec<Val> {
        if let Some(v) = self.objects.get(&p) {
            return v.clone();
        }
        let mut v: Vec<Val> = underlying_objects(p).into_iter().collect();
        for f in v.iter().filter_map(|o| o.parent_function()) {
            // The function itself marks it as numbered.
            if self.positions.insert(f, 0).is_none() {
                let insts = f.blocks().into_iter().flat_map(|b| b.instructions());
                self.positions
                    .extend(insts.enumerate().map(|(k, i)| (i, k)));
                self.positions
                    .extend(f.params().into_iter().enumerate().map(|(k, a)| (a, k)));
            }
        }
        let positions = &self.positions;
        v.sort_by_cached_key(|o| {
            let class = if o.is_argument() {
                0
            } else if o.is_global_variable() || o.is_function() {
                1
            } else if o.is_instruction() {
                2
            } else {
                3
            };
            let name = if class == 1 { o.name() } else { String::new() };
            (class, positions.get(o).copied().unwrap_or(0), name)
        });
        self.objects.insert(p, v.clone());
        v
    }

    /// The built-in rule a call to a declaration follows (directly or as the user's
    /// `function_like`); `None` for defined callees, user gradients and unknown calls.
    fn rule_for(&self, call: Val) -> Option<&'static Rule> {
        let f = call.called_function()?;
        if !f.is_declaration() {
            return None;
        }
        let name = f.name();
        if self.rules.gradients.contains_key(&name) {
            return None;
        }
        match self.rules.function_like.get(&name) {
            Some(like) => rules::lookup(like),
            None => rules::lookup(&name),
        }
    }

    /// The allocation rule that makes call `v` a fresh block, if it is one.
    fn allocation(&self, v: Val) -> Option<&'static Rule> {
        if !matches!(v.opcode(), Opcode::LLVMCall | Opcode::LLVMInvoke) || !v.ty().is_ptr() {
            return None;
        }
        self.rule_for(v)
            .filter(|r| r.effects.allocates && !r.effects.writes && !r.effects.frees)
    }

    fn kind(&self, o: Val) -> Kind {
        if o.is_undef() || (o.is_constant() && o.is_null_constant()) {
            return Kind::Nothing;
        }
        if o.is_instruction() {
            return match o.opcode() {
                Opcode::LLVMAlloca => Kind::Alloca,
                _ => match self.allocation(o) {
                    Some(r) if r.area == Area::Alloc => Kind::Heap,
                    Some(_) => Kind::Gc,
                    None => Kind::Unknown,
                },
            };
        }
        if o.is_argument() {
            let f = o.parent_function();
            let k = f.and_then(|f| f.params().iter().position(|&p| p == o));
            let noalias = match (f, k) {
                (Some(f), Some(k)) => f.param_has_attr(k as u32, "noalias"),
                _ => false,
            };
            return Kind::Arg { noalias };
        }
        if o.is_global_variable() {
            return Kind::Global {
                constant: o.is_global_constant(),
            };
        }
        if o.is_function() {
            return Kind::Global { constant: true };
        }
        Kind::Unknown
    }

    /// True when `o`, an object of unknown origin, may be (or point into) a stack slot of the
    /// function: a call's result when a stack slot reaches the call (`std::array::operator[]`
    /// at -O0 returns a pointer into its caller's array), or anything once a stack slot's
    /// address has escaped.
    fn may_point_into_stack(&mut self, o: Val) -> bool {
        if self.stack_escaped {
            return true;
        }
        o.is_instruction()
            && matches!(o.opcode(), Opcode::LLVMCall | Opcode::LLVMInvoke)
            && o.call_args().into_iter().any(|a| {
                a.ty().contains_ptr()
                    && self
                        .objects(a)
                        .into_iter()
                        .any(|x| self.kind(x) == Kind::Alloca)
            })
    }

    fn is_fresh(k: Kind) -> bool {
        matches!(k, Kind::Alloca | Kind::Heap | Kind::Gc)
    }

    /// True when a free of `p` could be deferred: it frees only heap blocks allocated in the
    /// function (or null).
    fn deferrable(&mut self, p: Val) -> bool {
        let objs = self.objects(p);
        let kinds: Vec<Kind> = objs.iter().map(|&o| self.kind(o)).collect();
        kinds.contains(&Kind::Heap)
            && kinds
                .iter()
                .all(|k| matches!(k, Kind::Heap | Kind::Nothing))
    }

    /// The checks on the load alone: volatility, atomicity, the objects it may read.
    fn intrinsic_verdict(&mut self, l: Val, ctx: OverwriteContext) -> Result<(), String> {
        if l.opcode() == Opcode::LLVMLoad && l.is_volatile() {
            return Err("volatile".into());
        }
        if l.opcode() == Opcode::LLVMLoad && l.is_atomic_access() {
            return Err("atomic".into());
        }
        let objs = self.objects(l.operand(0));
        let mut any = false;
        for o in objs {
            match self.kind(o) {
                Kind::Nothing => {}
                Kind::Alloca => return Err("reads a stack slot, dead when the adjoint runs".into()),
                Kind::Gc => {
                    return Err("reads a garbage-collected allocation (it may be collected before the adjoint runs)".into())
                }
                Kind::Global { constant: true } => any = true,
                Kind::Heap => {
                    any = true;
                    if !ctx.memory_stable && self.escapes(o) {
                        return Err(format!(
                            "the caller may write {} before the adjoint (it escapes)",
                            describe_object(o)
                        ));
                    }
                }
                Kind::Unknown if self.may_point_into_stack(o) => {
                    return Err(format!(
                        "reads through {}, which may point into a stack slot (dead when the adjoint runs)",
                        describe_object(o)
                    ))
                }
                Kind::Global { .. } | Kind::Arg { .. } | Kind::Unknown => {
                    any = true;
                    if !ctx.memory_stable {
                        return Err(format!(
                            "the caller may write {} before the adjoint",
                            describe_object(o)
                        ));
                    }
                }
            }
        }
        if !any {
            return Err("reads no object".into());
        }
        Ok(())
    }

    // ----- aliasing -----

    /// True when writer target `t` of instruction `s` (running after load `l`) may change
    /// bytes `l` read.
    fn may_clobber(&mut self, l: Val, s: Val, t: &Target, places: &Places) -> bool {
        let lp = l.operand(0);
        let lobjs = self.objects(lp);
        let (wp, size, tbaa) = match *t {
            Target::Everything => {
                return lobjs.iter().any(|&o| match self.kind(o) {
                    Kind::Nothing | Kind::Global { constant: true } => false,
                    k if Self::is_fresh(k) => self.escapes(o),
                    _ => true,
                })
            }
            Target::Anywhere(p) => (p, None, None),
            Target::At { ptr, size, tbaa } => (ptr, size, tbaa),
        };
        if let Some(s) = tbaa {
            if tbaa_disjoint(l, s) {
                return false;
            }
        }
        let wobjs = self.objects(wp);
        let mut any = false;
        for &a in &lobjs {
            for &b in &wobjs {
                if self.objects_may_alias(a, b) && !self.newer_block(l, s, a, b, wp, places) {
                    any = true;
                }
            }
        }
        if !any {
            return false;
        }
        // One object, constant offsets: disjoint byte ranges do not alias.
        if let (Some(ws), Some(ls)) = (size, fixed_size(self.m, l.ty())) {
            if let (Some((lo, loff)), Some((wo, woff))) =
                (self.const_offset(lp), self.const_offset(wp))
            {
                if lo == wo && (loff + ls as i64 <= woff || woff + ws as i64 <= loff) {
                    return false;
                }
            }
        }
        true
    }

    fn objects_may_alias(&mut self, a: Val, b: Val) -> bool {
        let (ka, kb) = (self.kind(a), self.kind(b));
        match (ka, kb) {
            (Kind::Nothing, _) | (_, Kind::Nothing) => false,
            (Kind::Global { constant: true }, _) | (_, Kind::Global { constant: true }) => false,
            (Kind::Unknown, Kind::Unknown) => true,
            (Kind::Unknown, k) if Self::is_fresh(k) => self.escapes(b),
            (k, Kind::Unknown) if Self::is_fresh(k) => self.escapes(a),
            (Kind::Unknown, _) | (_, Kind::Unknown) => true,
            (Kind::Arg { noalias: na }, Kind::Arg { noalias: nb }) => a == b || !(na || nb),
            (Kind::Arg { noalias }, Kind::Global { .. })
            | (Kind::Global { .. }, Kind::Arg { noalias }) => !noalias,
            // Distinct identified objects (allocas, allocation sites, globals, a fresh block
            // against an argument) never overlap; the same one may (another iteration's block
            // of one site is a different block, but treating it as the same is safe).
            _ => a == b,
        }
    }

    /// True when `a` and `b` are one allocation site whose every execution makes a distinct
    /// block, `l` reads the block of its latest execution before `l`, `s` writes the block of
    /// its latest execution before `s`, and every path from `l` to `s` executes the site
    /// again: then `s` writes a newer block. (Distinct, because a free of `l`'s block after
    /// `l` is either deferred or itself a writer that makes `l` not re-readable.)
    fn newer_block(&self, l: Val, s: Val, a: Val, b: Val, wp: Val, places: &Places) -> bool {
        a == b
            && self.kind(a) == Kind::Heap
            && !objects_through_phis(l.operand(0)).contains(&a)
            && !objects_through_phis(wp).contains(&a)
            && places.always_through(l, s, a)
    }

    /// `p` as (identified object, constant byte offset), through constant GEPs and casts.
    fn const_offset(&mut self, p: Val) -> Option<(Val, i64)> {
        let mut off = 0i64;
        let mut v = p;
        for _ in 0..64 {
            let op = if v.is_instruction() {
                Some(v.opcode())
            } else if v.is_constant_expr() {
                Some(v.const_opcode())
            } else {
                None
            };
            match op {
                Some(Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast | Opcode::LLVMFreeze) => {
                    v = v.operand(0)
                }
                Some(Opcode::LLVMGetElementPtr) => {
                    off = off.checked_add(self.gep_offset(v)?)?;
                    v = v.operand(0);
                }
                _ => {
                    return match self.kind(v) {
                        Kind::Unknown | Kind::Nothing => None,
                        _ => Some((v, off)),
                    }
                }
            }
        }
        None
    }

    /// The constant byte offset a GEP adds, if all its indices are constant.
    fn gep_offset(&self, gep: Val) -> Option<i64> {
        if !gep.ty().is_ptr() {
            return None;
        }
        let mut ty = gep.gep_source_type();
        let n = gep.num_operands();
        if n < 2 {
            return Some(0);
        }
        let first = gep.operand(1).const_int_sext()?;
        let mut off = first.checked_mul(fixed_alloc_size(self.m, ty)? as i64)?;
        for k in 2..n {
            let idx = gep.operand(k).const_int_sext()?;
            match ty.kind() {
                TyKind::Struct => {
                    let field = *ty.struct_fields().get(usize::try_from(idx).ok()?)?;
                    off = off.checked_add(self.m.field_offset(ty, idx as u32) as i64)?;
                    ty = field;
                }
                TyKind::Array => {
                    ty = ty.element();
                    off =
                        off.checked_add(idx.checked_mul(fixed_alloc_size(self.m, ty)? as i64)?)?;
                }
                _ => return None,
            }
        }
        Some(off)
    }

    // ----- escapes -----

    /// True when `root` (a fresh allocation or a parameter) may be captured: stored as a value,
    /// returned, turned into an integer, passed to a call that may capture it, ...
    fn escapes(&mut self, root: Val) -> bool {
        if let Some(&e) = self.escapes.get(&root) {
            return e;
        }
        let e = self.compute_escapes(root);
        self.escapes.insert(root, e);
        e
    }

    fn compute_escapes(&mut self, root: Val) -> bool {
        let mut seen = HashSet::from([root]);
        let mut stack = vec![root];
        while let Some(v) = stack.pop() {
            for u in v.users() {
                if !u.is_instruction() {
                    return true;
                }
                use Opcode::*;
                match u.opcode() {
                    LLVMLoad | LLVMICmp => {}
                    LLVMStore if u.operand(0) != v => {}
                    LLVMAtomicRMW if u.operand(1) != v => {}
                    LLVMAtomicCmpXchg if u.operand(1) != v && u.operand(2) != v => {}
                    LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast | LLVMPHI | LLVMFreeze => {
                        if seen.insert(u) {
                            stack.push(u);
                        }
                    }
                    LLVMSelect if u.operand(0) != v => {
                        if seen.insert(u) {
                            stack.push(u);
                        }
                    }
                    LLVMCall | LLVMInvoke => {
                        let harmless = u
                            .called_function()
                            .is_some_and(|g| harmless_intrinsic(&g.name()));
                        if harmless {
                            continue;
                        }
                        // As the callee or in an operand bundle: escaped.
                        let nargs = u.num_call_args();
                        if (nargs..u.num_operands()).any(|k| u.operand(k) == v) {
                            return true;
                        }
                        for k in 0..nargs {
                            if u.operand(k) == v && self.captures_arg(u, k) {
                                return true;
                            }
                        }
                    }
                    _ => return true,
                }
            }
        }
        false
    }

    /// True when call `call` may capture its argument `k` (keep it beyond the call, in memory
    /// or in its result).
    fn captures_arg(&mut self, call: Val, k: u32) -> bool {
        if call.call_arg_attr_value(k, "captures") == Some(0) {
            return false;
        }
        let Some(f) = call.called_function() else {
            return true;
        };
        let name = f.name();
        if harmless_intrinsic(&name) {
            return false;
        }
        if self.rules.gradients.contains_key(&name) {
            return true;
        }
        if !f.is_declaration() {
            return self
                .summary(f)
                .captures
                .get(k as usize)
                .copied()
                .unwrap_or(true);
        }
        match self.rule_for(call) {
            Some(r) => {
                (r.area == Area::Inactive && r.effects.writes)
                    || r.effects.allocates
                    || call.ty().contains_ptr()
            }
            None => true,
        }
    }

    // ----- writers -----

    /// What instruction `i` may write, and the pointer it frees when it is a call of a rule
    /// that only frees (not among the targets).
    fn instruction_writes(&mut self, i: Val) -> (Vec<Target>, Option<Val>) {
        use Opcode::*;
        let sized = |ptr: Val, ty: Ty, tbaa: Option<Val>, m: Module| Target::At {
            ptr,
            size: fixed_size(m, ty),
            tbaa,
        };
        match i.opcode() {
            LLVMStore => (
                vec![sized(i.operand(1), i.operand(0).ty(), Some(i), self.m)],
                None,
            ),
            LLVMAtomicRMW | LLVMAtomicCmpXchg => (
                vec![sized(i.operand(0), i.operand(1).ty(), None, self.m)],
                None,
            ),
            LLVMVAArg => (vec![Target::Anywhere(i.operand(0))], None),
            LLVMCall | LLVMInvoke | LLVMCallBr => self.call_writes(i),
            LLVMLandingPad | LLVMResume | LLVMCatchPad | LLVMCatchRet | LLVMCleanupPad
            | LLVMCleanupRet | LLVMCatchSwitch => (vec![Target::Everything], None),
            _ => (Vec::new(), None),
        }
    }

    fn call_writes(&mut self, call: Val) -> (Vec<Target>, Option<Val>) {
        let f = call.called_function();
        let name = f.map(|f| f.name()).unwrap_or_default();
        if harmless_intrinsic(&name) {
            return (Vec::new(), None);
        }
        // The tightest memory attribute of the call site and the callee.
        let fn_idx = u32::MAX;
        let mut me: u64 = u64::MAX;
        if let Some(v) = call.call_attr_value(fn_idx, "memory") {
            me &= v;
        }
        if let Some(v) = f.and_then(|f| f.fn_attr_value(fn_idx, "memory")) {
            me &= v;
        }
        let attr_args = mem_writes(me, MEM_ARG);
        let attr_other = mem_writes(me, MEM_OTHER) || mem_writes(me, MEM_ERRNO);
        if !attr_args && !attr_other {
            return (Vec::new(), None);
        }
        let args = call.call_args();
        let ptr_args = |only: &dyn Fn(usize) -> bool| -> (Vec<Target>, bool) {
            let mut out = Vec::new();
            let mut hidden = false;
            for (k, &a) in args.iter().enumerate() {
                if !only(k) {
                    continue;
                }
                let t = a.ty();
                if t.is_ptr_or_ptr_vector() {
                    let ro = call.call_arg_has_attr(k as u32, "readonly")
                        || call.call_arg_has_attr(k as u32, "readnone");
                    if !ro {
                        out.push(Target::Anywhere(a));
                    }
                } else if t.contains_ptr() {
                    hidden = true;
                }
            }
            (out, hidden)
        };
        // (through which arguments, anything else)
        let (mut targets, mut other, mut free) = (Vec::new(), false, None);
        let gradient = self.rules.gradients.contains_key(&name);
        match f {
            Some(g) if !g.is_declaration() && !gradient => {
                let s = self.summary(g);
                let np = s.writes.len();
                let (t, hidden) = ptr_args(&|k| k >= np || s.writes[k]);
                targets = t;
                other = s.other || hidden;
            }
            _ => match self.rule_for(call) {
                Some(r) if is_copy_or_set(r) => {
                    let size = args.get(2).and_then(|n| n.const_int_value());
                    targets.push(Target::At {
                        ptr: args[0],
                        size,
                        tbaa: None,
                    });
                }
                Some(r) if r.effects.frees && !r.effects.allocates && !r.effects.writes => {
                    free = args.first().copied().filter(|a| a.ty().is_ptr());
                    if free.is_none() {
                        other = true;
                    }
                }
                Some(r) if !r.effects.writes && !r.effects.frees => {}
                // Math functions that write do so through their pointer arguments (`frexp`'s
                // exponent, `remquo`'s quotient) and, for the `lgamma` family, libm's `int
                // signgam`. Code can only reach that through the global itself: when this
                // module names it, the write targets it; when it does not, no pointer here can
                // point at it (short of forging one from another translation unit).
                Some(r) if r.area == Area::Math => {
                    let (t, hidden) = ptr_args(&|_| true);
                    targets = t;
                    other = hidden;
                    if let Some(g) = call
                        .parent_function()
                        .and_then(|f| f.module().global("signgam"))
                    {
                        targets.push(Target::At {
                            ptr: g,
                            size: None,
                            tbaa: None,
                        });
                    }
                }
                // Copies, sets and BLAS write through their pointer arguments only; other
                // writing rules may also write hidden state (I/O).
                Some(r) => {
                    let (t, hidden) = ptr_args(&|_| true);
                    targets = t;
                    other = hidden || !matches!(r.area, Area::Memory | Area::Blas | Area::Vector);
                }
                None => {
                    let (t, _) = ptr_args(&|_| true);
                    targets = t;
                    other = true;
                }
            },
        }
        // Restrict to what the memory attributes allow.
        if !attr_args {
            targets.clear();
            if free.is_some() && !attr_other {
                free = None;
            }
        }
        if other && !attr_other {
            other = false;
            if attr_args {
                targets = ptr_args(&|_| true).0;
            }
        }
        if other {
            targets.push(Target::Everything);
        }
        (targets, free)
    }

    /// The memory effects of function `g`'s body, memoised; recursion is answered
    /// conservatively.
    fn summary(&mut self, g: Val) -> Summary {
        let params = g.params();
        if let Some(s) = self.summaries.get(&g) {
            return s.clone();
        }
        if !self.in_progress.insert(g) {
            return Summary::anything(params.len());
        }
        let mut s = Summary {
            writes: vec![false; params.len()],
            captures: vec![false; params.len()],
            other: g.function_type().is_var_arg(),
        };
        for b in g.blocks() {
            for i in b.instructions() {
                let (targets, free) = self.instruction_writes(i);
                let ptrs = targets
                    .into_iter()
                    .chain(free.map(Target::Anywhere))
                    .map(|t| match t {
                        Target::Everything => None,
                        Target::Anywhere(p) | Target::At { ptr: p, .. } => Some(p),
                    });
                for p in ptrs {
                    let Some(p) = p else {
                        s.other = true;
                        continue;
                    };
                    for o in self.objects(p) {
                        match self.kind(o) {
                            Kind::Nothing | Kind::Alloca | Kind::Global { constant: true } => {}
                            Kind::Arg { .. } => match params.iter().position(|&q| q == o) {
                                Some(k) => s.writes[k] = true,
                                None => s.other = true,
                            },
                            Kind::Heap if !self.escapes(o) => {}
                            _ => s.other = true,
                        }
                    }
                }
            }
        }
        for (k, &p) in params.iter().enumerate() {
            s.captures[k] = p.ty().contains_ptr() && self.escapes(p);
        }
        self.in_progress.remove(&g);
        self.summaries.insert(g, s.clone());
        s
    }
}

fn is_copy_or_set(r: &Rule) -> bool {
    matches!(r.name, "llvm.memcpy" | "llvm.memmove" | "llvm.memset")
}

fn describe_object(o: Val) -> String {
    if o.is_argument() {
        let name = o.name();
        if name.is_empty() {
            let k = o
                .parent_function()
                .and_then(|f| f.params().iter().position(|&a| a == o))
                .unwrap_or(0);
            format!("argument #{k}")
        } else {
            format!("%{name}")
        }
    } else if o.is_global_variable() {
        format!("@{}", o.name())
    } else {
        o.print()
    }
}

/// Store size of `ty`, unless it is not a constant.
fn fixed_size(m: Module, ty: Ty) -> Option<u64> {
    (!ty.is_scalable_vector() && !ty.is_void()).then(|| m.store_size(ty))
}

fn fixed_alloc_size(m: Module, ty: Ty) -> Option<u64> {
    (!ty.is_scalable_vector() && !ty.is_void()).then(|| m.alloc_size(ty))
}

/// True when the TBAA tags of `a` and `b` prove they access unrelated types (neither access
/// type is an ancestor of the other in the same type tree).
fn tbaa_disjoint(a: Val, b: Val) -> bool {
    let (Some(ca), Some(cb)) = (a.tbaa_access_chain(), b.tbaa_access_chain()) else {
        return false;
    };
    if ca.last() != cb.last() {
        return false;
    }
    !ca.contains(&cb[0]) && !cb.contains(&ca[0])
}

/// Where each instruction of the analysed function is, and which blocks reach which.
#[derive(Clone)]
struct Places {
    position: HashMap<Val, (Block, usize)>,
    /// For each block, the blocks reachable from it through at least one edge.
    reach: HashMap<Block, HashSet<Block>>,
}

impl Places {
    /// True when `s` may run after `l` (later in its block, or in a block reachable from it,
    /// `l`'s own included when it lies on a cycle).
    fn after(&self, l: Val, s: Val) -> bool {
        let (lb, lk) = self.position[&l];
        let (sb, sk) = self.position[&s];
        self.reach[&lb].contains(&sb) || (sb == lb && sk > lk)
    }

    /// True when every path from just after `from` to `to` executes `via` in between.
    fn always_through(&self, from: Val, to: Val, via: Val) -> bool {
        let (fb, fk) = self.position[&from];
        let (tb, tk) = self.position[&to];
        let Some(&(vb, vk)) = self.position.get(&via) else {
            return false;
        };
        // Scanning block `b` from index `start`: Some(true) blocked by `via`, Some(false)
        // reached `to` first, None fell through to the successors.
        let scan = |b: Block, start: usize| -> Option<bool> {
            let t = (tb == b && tk >= start).then_some(tk);
            let v = (vb == b && vk >= start).then_some(vk);
            match (t, v) {
                (Some(t), Some(v)) => Some(v < t),
                (Some(_), None) => Some(false),
                (None, Some(_)) => Some(true),
                (None, None) => None,
            }
        };
        let mut stack = match scan(fb, fk + 1) {
            Some(blocked) => return blocked,
            None => fb.successors(),
        };
        let mut seen = HashSet::new();
        while let Some(b) = stack.pop() {
            if !seen.insert(b) {
                continue;
            }
            match scan(b, 0) {
                Some(true) => {}
                Some(false) => return false,
                None => stack.extend(b.successors()),
            }
        }
        true
    }
}

/// The objects `p` may reach only through a phi that merges different values (which may carry
/// a block from an earlier execution of its allocation site).
fn objects_through_phis(p: Val) -> HashSet<Val> {
    let mut out = HashSet::new();
    let mut seen = HashSet::new();
    let mut stack = vec![(p, false)];
    while let Some((v, via)) = stack.pop() {
        if !seen.insert((v, via)) {
            continue;
        }
        let op = if v.is_instruction() {
            v.opcode()
        } else if v.is_constant_expr() {
            v.const_opcode()
        } else {
            if via {
                out.insert(v);
            }
            continue;
        };
        match op {
            Opcode::LLVMGetElementPtr
            | Opcode::LLVMBitCast
            | Opcode::LLVMAddrSpaceCast
            | Opcode::LLVMFreeze => stack.push((v.operand(0), via)),
            Opcode::LLVMSelect => stack.extend([(v.operand(1), via), (v.operand(2), via)]),
            Opcode::LLVMPHI if v.is_instruction() => {
                let inc = v.incoming();
                let merges = inc.iter().any(|(x, _)| *x != inc[0].0);
                stack.extend(inc.into_iter().map(|(x, _)| (x, via || merges)));
            }
            _ => {
                if via {
                    out.insert(v);
                }
            }
        }
    }
    out
}

/// For each block, the blocks reachable from it through at least one edge.
fn reachability(blocks: &[Block]) -> HashMap<Block, HashSet<Block>> {
    let mut out = HashMap::new();
    for &b in blocks {
        let mut seen = HashSet::new();
        let mut stack = b.successors();
        while let Some(s) = stack.pop() {
            if seen.insert(s) {
                stack.extend(s.successors());
            }
        }
        out.insert(b, seen);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::is_memory_read;
    use super::{OverwriteContext, Overwrites};
    use crate::ir::{parse_test_module, Module};
    use crate::rules::user::UserRules;
    use inkwell::context::Context;
    use std::collections::HashMap;

    const HEADER: &str = r#"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
declare ptr @malloc(i64)
declare void @free(ptr)
declare double @llvm.sin.f64(double)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
"#;

    /// The verdicts for `@f` in `body`: load name → re-readable, the deferred frees (printed),
    /// and the report.
    struct Verdicts {
        loads: HashMap<String, bool>,
        deferred: Vec<String>,
        report: Vec<String>,
    }

    impl Verdicts {
        fn reread(&self, name: &str) -> bool {
            match self.loads.get(name) {
                Some(&v) => v,
                None => panic!("no load %{name}; report:\n{}", self.report.join("\n")),
            }
        }
        #[track_caller]
        fn expect(&self, name: &str, reread: bool) {
            assert_eq!(
                self.reread(name),
                reread,
                "load %{name}; report:\n{}",
                self.report.join("\n")
            );
        }
    }

    fn analyze(body: &str, memory_stable: bool) -> Verdicts {
        let ctx = Context::create();
        let text = format!("{HEADER}\n{body}");
        let module = parse_test_module(&ctx, &text);
        let m = Module(module.as_mut_ptr());
        m.verify().expect("valid test IR");
        let f = m.function("f").expect("a function @f");
        let o = Overwrites::analyze(f, OverwriteContext { memory_stable }, &UserRules::default());
        let mut loads = HashMap::new();
        for b in f.blocks() {
            for i in b.instructions() {
                if is_memory_read(i) && !i.name().is_empty() {
                    assert_eq!(o.rereadable(i), o.reason(i).is_none());
                    loads.insert(i.name(), o.rereadable(i));
                }
            }
        }
        Verdicts {
            loads,
            deferred: o.deferred_frees().iter().map(|d| d.print()).collect(),
            report: o.describe(),
        }
    }

    fn stable(body: &str) -> Verdicts {
        analyze(body, true)
    }

    #[test]
    fn read_only_input_read_in_a_loop_while_writing_a_fresh_buffer() {
        let v = stable(
            r#"
define double @f(ptr %x, i64 %n) {
entry:
  %buf = call ptr @malloc(i64 8000)
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %px
  %s = call double @llvm.sin.f64(double %xi)
  %pb = getelementptr inbounds double, ptr %buf, i64 %i
  store double %s, ptr %pb
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  %r = load double, ptr %buf
  ret double %r
}"#,
        );
        v.expect("xi", true);
        v.expect("r", true);
        assert!(v.deferred.is_empty());
        assert!(v.report[0].contains("memory stable"), "{:?}", v.report);
    }

    #[test]
    fn in_place_update_of_an_argument_is_not_reread() {
        let v = stable(
            r#"
define void @f(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %px
  %sq = fmul double %xi, %xi
  store double %sq, ptr %px
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}"#,
        );
        v.expect("xi", false);
        assert!(
            v.report
                .iter()
                .any(|l| l.contains("may be overwritten by store")),
            "{:?}",
            v.report
        );
    }

    #[test]
    fn a_value_overwritten_by_the_next_iteration_is_not_reread() {
        // Iteration i stores buf[i] first, then reads buf[i + 1], which iteration i + 1
        // overwrites: only the loop's back edge puts the store after the load.
        let v = stable(
            r#"
define double @f(ptr %x, i64 %n) {
entry:
  %buf = call ptr @malloc(i64 8008)
  call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %x, i64 8008, i1 false)
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %acc = phi double [0.0, %entry], [%acc1, %loop]
  %pb = getelementptr inbounds double, ptr %buf, i64 %i
  store double %acc, ptr %pb
  %i1 = add i64 %i, 1
  %pn = getelementptr inbounds double, ptr %buf, i64 %i1
  %next = load double, ptr %pn
  %acc1 = fmul double %acc, %next
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %acc1
}"#,
        );
        v.expect("next", false);
    }

    const TWO_ARRAYS: &str = r#"
define void @f(ptr ATTR %a, ptr %b, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %pa = getelementptr inbounds double, ptr %a, i64 %i
  %ai = load double, ptr %pa
  %s = call double @llvm.sin.f64(double %ai)
  %pb = getelementptr inbounds double, ptr %b, i64 %i
  store double %s, ptr %pb
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}"#;

    #[test]
    fn reading_one_argument_while_writing_another_needs_noalias() {
        stable(&TWO_ARRAYS.replace("ATTR", "")).expect("ai", false);
        stable(&TWO_ARRAYS.replace("ATTR", "noalias")).expect("ai", true);
        // `noalias` on the written argument is as good.
        let other = TWO_ARRAYS
            .replace("ATTR", "")
            .replace("ptr %b, i64 %n", "ptr noalias %b, i64 %n");
        stable(&other).expect("ai", true);
    }

    #[test]
    fn a_callee_writing_its_argument_after_the_load_prevents_rereading() {
        let v = stable(
            r#"
define void @scale(ptr %p) noinline {
  %v = load double, ptr %p
  %m = fmul double %v, 2.0
  store double %m, ptr %p
  ret void
}
define double @get(ptr %p) noinline {
  %v = load double, ptr %p
  ret double %v
}
define double @f(ptr %x, ptr noalias %y) {
  %a = load double, ptr %x
  call void @scale(ptr %x)
  %b = load double, ptr %y
  %c = call double @get(ptr %y)
  %d = load double, ptr %y
  call void @scale(ptr %y)
  %e = load double, ptr %x
  %r = fadd double %a, %b
  ret double %r
}"#,
        );
        v.expect("a", false);
        v.expect("b", false);
        v.expect("d", false);
        // After the last write to %x, and a callee that only reads %y does not matter.
        v.expect("e", true);
        let v = stable(
            r#"
define double @get(ptr %p) noinline {
  %v = load double, ptr %p
  ret double %v
}
define double @f(ptr %x) {
  %a = load double, ptr %x
  %c = call double @get(ptr %x)
  %r = fadd double %a, %c
  ret double %r
}"#,
        );
        v.expect("a", true);
    }

    #[test]
    fn a_callee_writing_a_global_or_through_a_loaded_pointer_writes_anything() {
        let v = stable(
            r#"
@g = global double 0.0
define void @bump() noinline {
  store double 1.0, ptr @g
  ret void
}
define void @through(ptr %pp) noinline {
  %q = load ptr, ptr %pp
  store double 1.0, ptr %q
  ret void
}
define double @f(ptr %x, ptr noalias %pp) {
  %a = load double, ptr %x
  call void @bump()
  %buf = call ptr @malloc(i64 8)
  store double 2.0, ptr %buf
  %b = load double, ptr %buf
  call void @through(ptr %pp)
  %r = fadd double %a, %b
  ret double %r
}"#,
        );
        v.expect("a", false);
        // The fresh buffer never escapes: no callee can reach it.
        v.expect("b", true);
    }

    #[test]
    fn recursion_is_answered_conservatively() {
        let v = stable(
            r#"
define void @rec(ptr %p, i64 %n) noinline {
  %c = icmp eq i64 %n, 0
  br i1 %c, label %done, label %more
more:
  %m = sub i64 %n, 1
  call void @rec(ptr %p, i64 %m)
  br label %done
done:
  ret void
}
define double @f(ptr %x) {
  %a = load double, ptr %x
  call void @rec(ptr %x, i64 3)
  ret double %a
}"#,
        );
        // `rec` writes nothing, but its recursive call is summarised as writing anything.
        v.expect("a", false);
    }

    const SCRATCH: &str = r#"
define double @f(ptr %x, i64 %n) {
entry:
  %buf = call ptr @malloc(i64 8000)
  br label %fill
fill:
  %i = phi i64 [0, %entry], [%i1, %fill]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %px
  %s = call double @llvm.sin.f64(double %xi)
  %pb = getelementptr inbounds double, ptr %buf, i64 %i
  store double %s, ptr %pb
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %fill, label %use
use:
  %j = phi i64 [0, %fill], [%j1, %use]
  %acc = phi double [0.0, %fill], [%acc1, %use]
  %pu = getelementptr inbounds double, ptr %buf, i64 %j
  %bj = load double, ptr %pu
  %acc1 = fmul double %acc, %bj
  %j1 = add i64 %j, 1
  %d = icmp slt i64 %j1, %n
  br i1 %d, label %use, label %exit
exit:
  LATER
  call void @free(ptr %buf)
  ret double %acc1
}"#;

    #[test]
    fn a_scratch_buffer_read_after_its_last_write_is_reread_with_its_free_deferred() {
        let v = stable(&SCRATCH.replace("LATER", ""));
        v.expect("xi", true);
        v.expect("bj", true);
        assert_eq!(v.deferred, vec!["call void @free(ptr %buf)".to_string()]);
        assert!(v.report.iter().any(|l| l.contains("deferred free")));
    }

    #[test]
    fn a_scratch_buffer_reused_by_a_later_layer_is_not_reread() {
        let later = r#"br label %again
again:
  %k = phi i64 [0, %exit], [%k1, %again]
  %pk = getelementptr inbounds double, ptr %buf, i64 %k
  store double 0.0, ptr %pk
  %k1 = add i64 %k, 1
  %e = icmp slt i64 %k1, %n
  br i1 %e, label %again, label %end
end:"#;
        let v = stable(&SCRATCH.replace("LATER", later));
        v.expect("bj", false);
        v.expect("xi", true);
        // No re-readable load needs the buffer kept: its free stays where it is.
        assert!(v.deferred.is_empty(), "{:?}", v.deferred);
    }

    #[test]
    fn a_block_freed_before_a_new_allocation_stays_allocated_until_the_adjoint() {
        let v = stable(
            r#"
define double @f(double %v) {
  %a = call ptr @malloc(i64 8)
  store double %v, ptr %a
  %x = load double, ptr %a
  call void @free(ptr %a)
  %b = call ptr @malloc(i64 8)
  store double 2.0, ptr %b
  %y = load double, ptr %b
  call void @free(ptr %b)
  %r = fmul double %x, %y
  ret double %r
}"#,
        );
        v.expect("x", true);
        v.expect("y", true);
        // Both frees deferred: %b can never take %a's address while %x may be re-read.
        assert_eq!(v.deferred.len(), 2, "{:?}", v.deferred);
        // A free that might release an argument's memory cannot be deferred: it is a writer,
        // and what was read before it is cached.
        let v = stable(
            r#"
define double @f(ptr %arg, i1 %c) {
  %a = call ptr @malloc(i64 8)
  store double 1.0, ptr %a
  %p = select i1 %c, ptr %a, ptr %arg
  %x = load double, ptr %p
  call void @free(ptr %p)
  %b = call ptr @malloc(i64 8)
  store double 2.0, ptr %b
  %y = load double, ptr %b
  %r = fmul double %x, %y
  ret double %r
}"#,
        );
        v.expect("x", false);
        v.expect("y", true);
        assert!(v.deferred.is_empty(), "{:?}", v.deferred);
    }

    #[test]
    fn a_free_inside_the_allocating_loop_is_deferred() {
        let v = stable(
            r#"
define double @f(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %acc = phi double [0.0, %entry], [%acc1, %loop]
  %t = call ptr @malloc(i64 8)
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %px
  store double %xi, ptr %t
  %ti = load double, ptr %t
  %acc1 = fmul double %acc, %ti
  call void @free(ptr %t)
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %acc1
}"#,
        );
        // Each iteration's block is distinct once frees wait for the adjoint.
        v.expect("ti", true);
        v.expect("xi", true);
        assert_eq!(v.deferred.len(), 1);
        // But a block carried into the next iteration by a phi is the same block there.
        let v = stable(
            r#"
define double @f(ptr %x, i64 %n) {
entry:
  %t0 = call ptr @malloc(i64 8)
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %acc = phi double [0.0, %entry], [%acc1, %loop]
  %prev = phi ptr [%t0, %entry], [%t, %loop]
  store double 0.0, ptr %prev
  %t = call ptr @malloc(i64 8)
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %px
  store double %xi, ptr %t
  %ti = load double, ptr %t
  %acc1 = fmul double %acc, %ti
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %acc1
}"#,
        );
        v.expect("ti", false);
    }

    #[test]
    fn a_load_from_an_alloca_is_never_reread() {
        let v = stable(
            r#"
define double @f(double %v) {
  %s = alloca double
  store double %v, ptr %s
  %x = load double, ptr %s
  ret double %x
}"#,
        );
        v.expect("x", false);
    }

    #[test]
    fn without_stable_memory_only_private_fresh_memory_is_reread() {
        let body = r#"
@k = constant double 3.0
@g = global double 3.0
define double @f(ptr %x) {
  %a = load double, ptr %x
  %buf = call ptr @malloc(i64 16)
  store double %a, ptr %buf
  %b = load double, ptr %buf
  %out = call ptr @malloc(i64 8)
  store double %b, ptr %out
  %o = load double, ptr %out
  %kk = load double, ptr @k
  %gg = load double, ptr @g
  store ptr %out, ptr %x
  %r = fadd double %b, %o
  ret double %r
}"#;
        let v = analyze(body, false);
        v.expect("a", false);
        v.expect("b", true);
        // %out escapes (stored into the caller's memory): the caller may write it.
        v.expect("o", false);
        v.expect("kk", true);
        v.expect("gg", false);
        assert!(v.report[0].contains("caller may write"));
        let v = analyze(body, true);
        v.expect("b", true);
        v.expect("o", true);
        // The pointer store through %x may overwrite %a's bytes, and @g's (%x may point there).
        v.expect("a", false);
        v.expect("gg", false);
    }

    #[test]
    fn disjoint_struct_fields_do_not_alias() {
        let body = r#"
%S = type { double, double, [2 x i32] }
define double @f(ptr %p, double %v) {
  %f0 = getelementptr inbounds %S, ptr %p, i64 0, i32 0
  %a = load double, ptr %f0
  %f1 = getelementptr inbounds %S, ptr %p, i64 0, i32 1
  store double %v, ptr %f1
  %f2 = getelementptr inbounds %S, ptr %p, i64 0, i32 2, i64 1
  store i32 7, ptr %f2
  %w = getelementptr inbounds i8, ptr %p, i64 4
  %b = load double, ptr %f1
  store i32 0, ptr WHERE
  %r = fadd double %a, %b
  ret double %r
}"#;
        let v = stable(&body.replace("WHERE", "%f2"));
        v.expect("a", true);
        v.expect("b", true);
        // Bytes 4..8 of field 0.
        let v = stable(&body.replace("WHERE", "%w"));
        v.expect("a", false);
        v.expect("b", true);
        // A second element of the same array, at a constant stride.
        let v = stable(
            r#"
define double @f(ptr %p, double %v) {
  %a = load double, ptr %p
  %q = getelementptr inbounds double, ptr %p, i64 1
  store double %v, ptr %q
  %r = getelementptr inbounds double, ptr %p, i64 -1
  store double %v, ptr %r
  ret double %a
}"#,
        );
        v.expect("a", true);
    }

    const TBAA: &str = r#"
define double @f(ptr %a, ptr %b) {
  %x = load double, ptr %a LOADTAG
  store i32 1, ptr %b STORETAG
  ret double %x
}
!0 = !{!"Simple C/C++ TBAA"}
!1 = !{!"omnipotent char", !0, i64 0}
!2 = !{!"double", !1, i64 0}
!3 = !{!"int", !1, i64 0}
!4 = !{!2, !2, i64 0}
!5 = !{!3, !3, i64 0}
!6 = !{!1, !1, i64 0}
!7 = !{!"Other TBAA"}
!8 = !{!"int", !7, i64 0}
!9 = !{!8, !8, i64 0}
"#;

    fn tbaa(load: &str, store: &str) -> bool {
        stable(&TBAA.replace("LOADTAG", load).replace("STORETAG", store)).reread("x")
    }

    #[test]
    fn masked_gathers_are_judged_like_loads() {
        // The vectoriser's strided reads: a gather from a read-only argument is re-read; one
        // from a buffer the loop writes afterwards is not.
        let v = stable(
            r#"
declare <4 x double> @llvm.masked.gather.v4f64.v4p0(<4 x ptr>, <4 x i1>, <4 x double>)
define double @f(ptr noalias %x, ptr noalias %y, <4 x i64> %idx) {
  %px = getelementptr double, ptr %x, <4 x i64> %idx
  %g = call <4 x double> @llvm.masked.gather.v4f64.v4p0(<4 x ptr> %px, <4 x i1> splat (i1 true), <4 x double> poison)
  %py = getelementptr double, ptr %y, <4 x i64> %idx
  %h = call <4 x double> @llvm.masked.gather.v4f64.v4p0(<4 x ptr> %py, <4 x i1> splat (i1 true), <4 x double> poison)
  store double 0.0, ptr %y
  %e = extractelement <4 x double> %g, i32 0
  ret double %e
}"#,
        );
        v.expect("g", true);
        v.expect("h", false);
    }

    #[test]
    fn tbaa_separates_int_stores_from_double_loads() {
        assert!(tbaa(", !tbaa !4", ", !tbaa !5"));
        // Without a tag on either side, or with a char access: may alias.
        assert!(!tbaa("", ""));
        assert!(!tbaa(", !tbaa !4", ""));
        assert!(!tbaa("", ", !tbaa !5"));
        assert!(!tbaa(", !tbaa !4", ", !tbaa !6"));
        // Same type.
        assert!(!tbaa(", !tbaa !4", ", !tbaa !4"));
        // Different type trees prove nothing.
        assert!(!tbaa(", !tbaa !4", ", !tbaa !9"));
    }

    #[test]
    fn volatile_and_atomic_loads_are_not_reread() {
        let v = stable(
            r#"
define double @f(ptr %a) {
  %x = load volatile double, ptr %a
  %y = load atomic double, ptr %a acquire, align 8
  %z = load double, ptr %a
  %r = fadd double %x, %y
  ret double %r
}"#,
        );
        v.expect("x", false);
        v.expect("y", false);
        v.expect("z", true);
    }

    #[test]
    fn calls_are_judged_by_rules_and_memory_attributes() {
        let v = stable(
            r#"
declare void @unknown(ptr)
declare void @pure(ptr) memory(none)
declare void @argonly(ptr) memory(argmem: readwrite)
declare void @reader(ptr readonly)
declare double @lgamma(double)
define double @f(ptr %x, ptr noalias %y, ptr noalias %z, ptr noalias %w, ptr noalias %v) {
  %a = load double, ptr %x
  call void @pure(ptr %x)
  call void @reader(ptr %x)
  %b = load double, ptr %y
  call void @argonly(ptr %z)
  %c = load double, ptr %z
  %d = load double, ptr %w
  %buf = call ptr @malloc(i64 8)
  call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %v, i64 8, i1 false)
  %e = load double, ptr %v
  call void @llvm.memcpy.p0.p0.i64(ptr %w, ptr %buf, i64 8, i1 false)
  %l = call double @lgamma(double %a)
  %r = fadd double %a, %b
  ret double %r
}"#,
        );
        v.expect("a", false); // `reader` may write through %x
                              // lgamma writes only libc's `signgam`, which nothing in this module refers to.
        v.expect("b", true);
        v.expect("d", false); // memcpy into %w
        let v = stable(
            r#"
declare void @unknown(ptr)
declare void @pure(ptr) memory(none)
declare void @argonly(ptr) memory(argmem: readwrite)
declare void @reader(ptr readonly)
define double @f(ptr %x, ptr noalias %y, ptr noalias %z) {
  %a = load double, ptr %x
  call void @pure(ptr %x)
  call void @reader(ptr %x)
  %b = load double, ptr %y
  call void @argonly(ptr %z)
  %c = load double, ptr %z
  %buf = call ptr @malloc(i64 8)
  call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %x, i64 8, i1 false)
  %m = load double, ptr %buf
  call void @unknown(ptr %z)
  %r = fadd double %a, %b
  ret double %r
}"#,
        );
        v.expect("a", false); // @unknown writes anything reachable, %x included
        v.expect("b", false);
        v.expect("c", false);
        v.expect("m", true); // the fresh buffer was never handed out
    }

    #[test]
    fn memory_attributes_keep_unknown_calls_away_from_other_arguments() {
        let v = stable(
            r#"
declare void @pure(ptr) memory(none)
declare void @argonly(ptr) memory(argmem: readwrite)
declare void @reader(ptr readonly) memory(argmem: readwrite)
define double @f(ptr %x, ptr noalias %y, ptr noalias %z) {
  %a = load double, ptr %x
  %b = load double, ptr %y
  %c = load double, ptr %z
  call void @pure(ptr %x)
  call void @reader(ptr %x)
  call void @argonly(ptr %z)
  %r = fadd double %a, %b
  ret double %r
}"#,
        );
        v.expect("a", true);
        v.expect("b", true);
        v.expect("c", false);
    }

    #[test]
    fn pointers_loaded_from_memory_are_unknown_objects() {
        let v = stable(
            r#"
define double @f(ptr %pp, ptr %out) {
  %q = load ptr, ptr %pp
  %v = load double, ptr %q
  %buf = call ptr @malloc(i64 8)
  store double %v, ptr %buf
  %w = load double, ptr %buf
  store double %w, ptr %out
  ret double %v
}"#,
        );
        // %out may point where %q points.
        v.expect("v", false);
        v.expect("w", true);
        v.expect("q", false); // %out may alias %pp too
        let v = analyze(
            r#"
define double @f(ptr %pp) {
  %q = load ptr, ptr %pp
  %v = load double, ptr %q
  ret double %v
}"#,
            false,
        );
        v.expect("v", false);
    }

    #[test]
    fn an_escaped_fresh_buffer_may_be_written_through_unknown_pointers() {
        let v = stable(
            r#"
define double @f(ptr %slot) {
  %buf = call ptr @malloc(i64 8)
  store double 1.0, ptr %buf
  %a = load double, ptr %buf
  store ptr %buf, ptr %slot
  %q = load ptr, ptr %slot
  store double 2.0, ptr %q
  ret double %a
}"#,
        );
        v.expect("a", false);
        // Passing it to a callee that returns it is an escape too.
        let v = stable(
            r#"
define ptr @id(ptr %p) noinline {
  ret ptr %p
}
define double @f() {
  %buf = call ptr @malloc(i64 8)
  store double 1.0, ptr %buf
  %a = load double, ptr %buf
  %q = call ptr @id(ptr %buf)
  store double 2.0, ptr %q
  ret double %a
}"#,
        );
        v.expect("a", false);
    }

    #[test]
    fn constant_expression_addresses_of_globals_have_constant_offsets() {
        let body = r#"
@arr = global [4 x double] zeroinitializer
define double @f(double %v) {
  %a = load double, ptr getelementptr inbounds ([4 x double], ptr @arr, i64 0, i64 1)
  store double %v, ptr WHERE
  ret double %a
}"#;
        stable(&body.replace(
            "WHERE",
            "getelementptr inbounds ([4 x double], ptr @arr, i64 0, i64 2)",
        ))
        .expect("a", true);
        stable(&body.replace("WHERE", "getelementptr inbounds (i8, ptr @arr, i64 12)"))
            .expect("a", false);
        stable(&body.replace("WHERE", "@arr")).expect("a", true);
    }

    #[test]
    fn a_fresh_buffer_lent_to_a_non_capturing_reader_stays_private() {
        let body = r#"
declare void @use(ptr ATTR) memory(argmem: read)
declare void @opaque(ptr)
define double @f(ptr %x) {
  %buf = call ptr @malloc(i64 8)
  store double 1.0, ptr %buf
  %a = load double, ptr %buf
  call void @use(ptr %buf)
  call void @opaque(ptr %x)
  ret double %a
}"#;
        stable(&body.replace("ATTR", "captures(none)")).expect("a", true);
        // Without `captures(none)` @use may keep the pointer where @opaque finds it.
        stable(&body.replace("ATTR", "")).expect("a", false);
    }

    /// The named calls of `@f` in `body` that may reach one of its stack slots.
    fn stack_calls(body: &str) -> Vec<String> {
        let ctx = Context::create();
        let text = format!("{HEADER}\n{body}");
        let module = parse_test_module(&ctx, &text);
        let m = Module(module.as_mut_ptr());
        m.verify().expect("valid test IR");
        let f = m.function("f").expect("a function @f");
        let o = Overwrites::analyze(
            f,
            OverwriteContext {
                memory_stable: true,
            },
            &UserRules::default(),
        );
        let mut out = Vec::new();
        for b in f.blocks() {
            for i in b.instructions() {
                if i.is_call() && !i.name().is_empty() && o.reaches_stack(i) {
                    out.push(i.name());
                }
            }
        }
        out
    }

    #[test]
    fn pointers_a_call_returns_from_a_stack_slot_are_not_reread() {
        // std::array's operator[] at -O0: a call given the local array returns a pointer into
        // it; the adjoint, after the augmented sweep's frame is gone, may not read through it.
        let v = stable(
            r#"
declare ptr @index(ptr, i64) memory(none)
define double @f(ptr %x) {
  %a = alloca [3 x double]
  store double 1.0, ptr %a
  %p = call ptr @index(ptr %a, i64 0)
  %fromstack = load double, ptr %p
  ret double %fromstack
}"#,
        );
        v.expect("fromstack", false);
        // Given only an argument (no stack slot in the function), what it returns may be read
        // again.
        let v = stable(
            r#"
declare ptr @index(ptr, i64) memory(none)
define double @f(ptr %x) {
  %q = call ptr @index(ptr %x, i64 0)
  %fromarg = load double, ptr %q
  ret double %fromarg
}"#,
        );
        v.expect("fromarg", true);
    }

    #[test]
    fn calls_reaching_a_stack_slot() {
        // Directly (a GEP of a local array) and not at all (a heap block, an argument).
        let direct = r#"
declare double @h(ptr captures(none), i64) memory(argmem: read)
define double @f(ptr %x) {
  %a = alloca [3 x double]
  %buf = call ptr @malloc(i64 24)
  %p = getelementptr inbounds [3 x double], ptr %a, i64 0, i64 1
  %r1 = call double @h(ptr %p, i64 2)
  %r2 = call double @h(ptr %buf, i64 3)
  %r3 = call double @h(ptr %x, i64 3)
  %s = fadd double %r1, %r2
  %t = fadd double %s, %r3
  ret double %t
}"#;
        assert_eq!(stack_calls(direct), ["r1"]);
        // Through memory: the array's address is stored in a local struct, so any call may
        // find it (here through the argument %x, which the struct's address does not reach).
        let escaped = r#"
declare double @h(ptr, i64) memory(argmem: read)
define double @f(ptr %x, ptr %out) {
  %a = alloca [3 x double]
  store ptr %a, ptr %out
  %r1 = call double @h(ptr %x, i64 3)
  ret double %r1
}"#;
        assert_eq!(stack_calls(escaped), ["r1"]);
    }
}
