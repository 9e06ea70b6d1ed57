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
//! - the caller writes between the augmented sweep and the adjoint no more than
//!   [`OverwriteContext::caller`] says ([`CallerWrites`]: nothing, only memory of some TBAA
//!   access types, or anything).
//!
//! It holds when `L` is neither volatile nor atomic, none of its underlying objects is an
//! `alloca` (the stack of the augmented function is gone when the adjoint runs) or a
//! garbage-collected allocation, and no instruction that may run after `L` in `f` (later in its
//! block, in a block reachable from it, in `L`'s own block again when that lies on a cycle) may
//! write or free memory that may alias `L`'s bytes. Unless the caller's writes spare `L` (none,
//! or none of a TBAA type related to `L`'s), every object `L` may read must moreover be a heap
//! allocation made in `f` that never escapes `f`, or a `constant` global, since the caller
//! could write anything else before the adjoint.
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
//!   range. A callee whose every write its callers could see (in its body and its callees'
//!   bodies) is a store or memory intrinsic with a TBAA tag does not clobber a load whose tag
//!   is disjoint from all of them (a `double`-only kernel spares an `int` index array). Unknown calls write anything reachable (everything but non-escaping fresh
//!   allocations).
//! - *Frees*: a `free`-like call (a rule that only frees) of memory that is certainly a fresh
//!   allocation of `f` is *deferred* rather than counted as a writer, when some re-readable load
//!   needs it; every other free is a writer of the objects it frees.
//!
//! - *Parallel regions* ([`regions`]): in an OpenMP outlined function whose shared variables
//!   are verified slots of the forking function, the slots count as that function's stack
//!   (never re-read) and pointers loaded from read-only slots as values it stored (no stack
//!   address, none of the body's blocks); every writer counts as running after every load and
//!   index reasoning is off, since the team's threads run at once. The forking function gives
//!   the region the writes it may make after the fork, by TBAA type, when nothing but the
//!   region's own parent slots reaches its stack ([`Overwrites::fork_writes`]); a fork's own
//!   writes, seen from the forking function, are its region's (the runtime's synchronisation
//!   calls in a region write only through their arguments). A global of local linkage (or clang's OpenMP lock) whose
//!   address nothing captures is reached through its symbol alone.
//!
//! - *Arrays of BLAS calls* ([`arrays`]): the same proof, on whole objects, for the input
//!   arrays a BLAS adjoint needs, which it then reads in place instead of a copy.
//!
//! Unsure means "not re-readable": a wrong "re-read" is a silently wrong gradient.

use super::cfg::reverse_post_order;
use super::indices::Indices;
pub use super::objects::underlying_objects;
use crate::ir::{Block, Module, Opcode, Ty, Val};
use crate::rules::user::UserRules;
use crate::rules::{self, Hidden, Rule};
pub use caller::CallerWrites;
use ordering::{reachability, Places};
use std::collections::{HashMap, HashSet};

mod aliasing;
mod arrays;
mod caller;
mod ordering;
mod regions;
mod writers;

/// Context of the derived function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverwriteContext {
    /// What the caller may write between the augmented sweep and the adjoint.
    pub caller: CallerWrites,
}

impl OverwriteContext {
    /// The caller writes nothing between the sweeps (`stable`), or anything.
    #[cfg(test)]
    pub fn stable(stable: bool) -> OverwriteContext {
        OverwriteContext {
            caller: CallerWrites::stable(stable),
        }
    }
}

/// The answers for one function: which loads the adjoint may re-read.
#[derive(Clone)]
pub struct Overwrites {
    f: Val,
    ctx: OverwriteContext,
    /// Every analysed load → `Ok` (re-readable) or why not.
    loads: HashMap<Val, Result<(), String>>,
    /// Every input array of a BLAS call, (call, argument position) → `Ok` (the adjoint may
    /// read it in place) or why not ([`arrays`]).
    arrays: HashMap<(Val, usize), Result<(), String>>,
    /// The re-readable loads some store could only be told apart from by index reasoning.
    by_index: HashSet<Val>,
    deferred: Vec<Val>,
    /// Every instruction that may write or free primal memory (deferred frees excluded).
    writers: Vec<Val>,
    /// The TBAA access chains of each writer's writes (`None`: some write is untyped or it
    /// frees), as [`CallerWrites`] holds them.
    writer_types: HashMap<Val, Option<Vec<Vec<usize>>>>,
    /// Stores whose shadow zeroing in the adjoint is dead ([`super::dead_shadow`]).
    dead_zeroing: HashSet<Val>,
    /// The calls that may reach a stack slot of `f` (see [`Overwrites::reaches_stack`]).
    stack_calls: HashSet<Val>,
    places: Places,
    /// `f` is an OpenMP outlined function with [`regions::RegionFacts`]: its threads run at
    /// once, so every writer counts as running after every load.
    concurrent: bool,
    /// The allocas of `f` whose address escapes (is stored, passed to a call that may keep
    /// it, a fork's captured argument included).
    escaped_allocas: HashSet<Val>,
}

impl Overwrites {
    /// Analyses `f` (its reachable blocks); `rules` are the module's user rules (a callee
    /// `function_like` a built-in rule has that rule's effects; calls with a user gradient
    /// write anything).
    #[cfg(test)]
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
        o.region = regions::RegionFacts::of(f);
        let concurrent = o.region.is_some();
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
                    // The adjoint releases a deferred block with the pointer alone (the
                    // same deallocator, or the unsized form of a sized `operator delete`).
                    if o.deferrable(p) && rules::alloc::pointer_only_deallocator(i).is_some() {
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
        let slots: Vec<Val> = o
            .region
            .as_ref()
            .map(|r| r.slots.iter().copied().collect())
            .unwrap_or_default();
        let escaped_allocas: HashSet<Val> =
            allocas.iter().copied().filter(|&a| o.escapes(a)).collect();
        o.stack_escaped = !escaped_allocas.is_empty() || slots.iter().any(|&q| o.escapes(q));
        // Another thread's writer may run between this thread's load and its adjoint wherever
        // it stands in the code.
        let after = |l: Val, s: Val| concurrent || places.after(l, s);
        let mut loads = HashMap::new();
        let mut indices: Option<Option<Indices>> = None;
        let mut by_index = HashSet::new();
        for &b in &blocks {
            for l in b.instructions() {
                if !is_memory_read(l) {
                    continue;
                }
                let mut indexed = false;
                let verdict = o.intrinsic_verdict(l, &ctx).and_then(|()| {
                    let clobbers = |(s, t): &&(Val, Target)| {
                        if !after(l, *s) || !o.may_clobber(l, *s, t, &places) {
                            return false;
                        }
                        // Aliasing alone cannot tell; the indices may (not across threads:
                        // another thread's "later" iteration may run first).
                        let missed = !concurrent && index_miss(&mut indices, f, l, *s, t);
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
        // The input arrays BLAS calls read, which their adjoints may read in place.
        let calls_in_f = blocks
            .iter()
            .flat_map(|b| b.instructions())
            .filter(|i| i.is_call());
        let arrays: HashMap<(Val, usize), Result<(), String>> =
            arrays::verdicts(&mut o, &ctx, calls_in_f, &writes, &after)
                .into_iter()
                .collect();
        // The blocks given to a call whose adjoint reads them in place (a checkpointed loop's
        // runs the steps again): their frees wait for the adjoint too.
        let mut read_in_place: Vec<Val> = Vec::new();
        for i in blocks.iter().flat_map(|b| b.instructions()) {
            let reads = i.is_call()
                && i.called_function()
                    .is_some_and(|g| g.string_fn_attr(ADJOINT_READS_ARGUMENTS).is_some());
            if reads {
                for a in i.call_args().into_iter().filter(|a| a.ty().is_ptr()) {
                    read_in_place.extend(o.objects(a));
                }
            }
        }
        // Defer exactly the frees some re-readable load needs deferred; the others stay
        // writers, which by construction clobber no re-readable load.
        // So are the frees of blocks an earlier call with a body (or fork) received: not a
        // writer, the free leaves that callee's context typed (it could reach the block through
        // its argument, and no typed context says so).
        let calls: Vec<Val> = blocks
            .iter()
            .flat_map(|b| b.instructions())
            .filter(|&c| {
                c.is_call()
                    && (c.called_function().is_some_and(|g| !g.is_declaration())
                        || crate::openmp::outlined(c).is_some())
            })
            .collect();
        let mut deferred = Vec::new();
        for (call, p) in candidates {
            if o.objects(p).iter().any(|x| read_in_place.contains(x)) {
                deferred.push(call);
                continue;
            }
            let freed: HashSet<Val> = o.objects(p).into_iter().collect();
            let handed = calls.iter().any(|&c| {
                places.after(c, call)
                    && c.call_args().into_iter().any(|a| {
                        a.ty().contains_ptr() && o.objects(a).iter().any(|x| freed.contains(x))
                    })
            });
            // The arrays read in place that this free would clobber.
            let freed_arrays: Vec<(Val, usize)> = arrays
                .iter()
                .filter(|(_, v)| v.is_ok())
                .map(|(&a, _)| a)
                .filter(|&(c, k)| {
                    after(c, call) && o.may_write_objects_of(c.call_args()[k], &Target::Anywhere(p))
                })
                .collect();
            let mut clobbers =
                |l: Val| after(l, call) && o.may_clobber(l, call, &Target::Anywhere(p), &places);
            let wanted = loads
                .iter()
                .any(|(&l, v)| v.is_ok() && needed(l) && clobbers(l));
            if wanted || handed || !freed_arrays.is_empty() {
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
        // Each writer's TBAA access chains, for the callees' contexts (`None`: untyped). A
        // writer on a path that can only unwind out of `f` runs before no adjoint of a callee
        // of `f` (the callers' frames unwind up to one that catches at an `invoke`, which does
        // not run the adjoint of a call that did not return); a `call` counts only the writes
        // of its callee's paths that return, for the same reason.
        let returning = ordering::returning_blocks(f);
        let writer_types = writers
            .iter()
            .map(|&w| {
                if !returning.contains(&w.parent_block()) {
                    return (w, Some(Vec::new()));
                }
                let chains = o.typed_normal_writer(w, Vec::new()).map(|ws| {
                    ws.iter()
                        .filter_map(|x| x.tbaa_access_chain())
                        .collect::<Vec<_>>()
                });
                (w, chains)
            })
            .collect();
        // A call reaches a stack slot of `f` through an argument whose underlying objects
        // include an alloca, or through memory once any alloca's address escapes (other than
        // as a parent slot of regions, which only its forks reach).
        let any_escapes = escaped_allocas
            .iter()
            .any(|&a| !only_parent_slot(a, &mut |q| o.escapes(q)))
            || slots.iter().any(|&q| o.escapes(q));
        let mut stack_calls = HashSet::new();
        if !allocas.is_empty() || !slots.is_empty() {
            for &b in &blocks {
                for i in b.instructions() {
                    if !matches!(i.opcode(), Opcode::LLVMCall | Opcode::LLVMInvoke) {
                        continue;
                    }
                    let reaches = any_escapes
                        || i.call_args().into_iter().any(|a| {
                            a.ty().contains_ptr()
                                && o.objects(a)
                                    .into_iter()
                                    .any(|x| matches!(o.kind(x), Kind::Alloca | Kind::ParentSlot))
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
            arrays,
            by_index,
            deferred,
            writers,
            writer_types,
            stack_calls,
            places,
            dead_zeroing,
            concurrent,
            escaped_allocas,
        }
    }

    /// True when the adjoint of store `s` need not zero the shadow bytes it wrote: nothing
    /// reads them afterwards ([`super::dead_shadow`]).
    pub fn zeroing_dead(&self, s: Val) -> bool {
        self.dead_zeroing.contains(&s)
    }

    /// What may be written after `i` (an instruction of `f`) in `f` itself, as a callee called
    /// at `i` sees it ([`CallerWrites`]): nothing, only TBAA-typed writes, or anything: every
    /// instruction that may run after `i` and write or free primal memory (in an OpenMP
    /// region, every writer). The caller's own context is not included.
    pub fn writes_after_types(&self, i: Val) -> CallerWrites {
        if !self.places.position.contains_key(&i) {
            return CallerWrites::Anything;
        }
        let mut chains = Vec::new();
        for &s in &self.writers {
            // Another thread's writer may run at any time, the call's own included.
            if !(self.concurrent || self.places.after(i, s)) {
                continue;
            }
            match self.writer_types.get(&s) {
                Some(Some(c)) => chains.extend(c.iter().cloned()),
                _ => return CallerWrites::Anything,
            }
        }
        CallerWrites::of_chains(Some(chains))
    }

    /// True when the OpenMP region forked at `call` (an instruction of `f`, running outlined
    /// function `g`) may count on stable memory between its two sweeps: `f`'s own sweeps do;
    /// every stack slot of `f` the fork reaches is a parent slot of `g` ([`regions`]), whose
    /// reads the region's analysis never re-reads; every other escaping stack slot of `f` is a
    /// parent slot of some region `f` forks (so the region cannot reach it); and whatever may run
    /// after the fork in `f` writes only `f`'s stack slots that no region can reach, or parent
    /// slots. (A fork in a loop runs after itself: not stable.)
    #[cfg(test)]
    pub fn fork_stable(&self, call: Val, g: Val) -> bool {
        self.fork_writes(call, g).is_nothing()
    }

    /// What may be written between the two sweeps of the OpenMP region forked at `call`
    /// (running outlined function `g`), as [`CallerWrites`]: anything unless every stack slot
    /// of `f` the fork reaches is a parent slot of `g` and every other escaping stack slot of
    /// `f` is a parent slot of some region (so the region reaches no other slot); then the
    /// writers that may run after the fork in `f` other than stores into `f`'s stack slots
    /// that no region can reach or into parent slots (by their TBAA types, a later fork by
    /// its region's), and `f`'s own context. (A fork in a loop runs after itself.)
    pub fn fork_writes(&self, call: Val, g: Val) -> CallerWrites {
        if self.concurrent
            || !self.places.position.contains_key(&call)
            || crate::openmp::outlined(call) != Some(g)
        {
            return CallerWrites::Anything;
        }
        let Some(facts) = regions::RegionFacts::of(g) else {
            return CallerWrites::Anything;
        };
        let slots = facts.slot_allocas(call, g);
        let is_alloca = |o: &Val| o.is_instruction() && o.opcode() == Opcode::LLVMAlloca;
        // Every captured argument reaching the stack is a parent slot.
        for a in call.call_args().into_iter().skip(3) {
            if a.ty().contains_ptr()
                && !slots.contains(&a)
                && underlying_objects(a).iter().any(is_alloca)
            {
                return CallerWrites::Anything;
            }
        }
        // Every escaping stack slot is a parent slot of a region (of this one or another).
        let any_slot = |a: Val| {
            a.users().into_iter().any(|u| {
                crate::openmp::outlined(u).is_some_and(|h| {
                    regions::RegionFacts::of(h).is_some_and(|r| r.slot_allocas(u, h).contains(&a))
                })
            })
        };
        if !self.escaped_allocas.iter().all(|&a| any_slot(a)) {
            return CallerWrites::Anything;
        }
        // After the fork: stores into slots the regions cannot reach, or into parent slots,
        // do not count; every other writer by its types.
        let mut chains = Vec::new();
        for &s in self.writers.iter().filter(|&&s| self.places.after(call, s)) {
            let slot_store = s.opcode() == Opcode::LLVMStore
                && !s.is_volatile()
                && underlying_objects(s.operand(1))
                    .iter()
                    .all(|o| is_alloca(o) && (!self.escaped_allocas.contains(o) || any_slot(*o)));
            if slot_store {
                continue;
            }
            match self.writer_types.get(&s) {
                Some(Some(c)) => chains.extend(c.iter().cloned()),
                _ => return CallerWrites::Anything,
            }
        }
        CallerWrites::of_chains(Some(chains)).union(&self.ctx.caller)
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

    /// True when the adjoint may read input array `arg` of BLAS call `call` in place instead
    /// of a copy the augmented sweep takes ([`arrays`]; assuming, as for loads, that the
    /// [`Overwrites::deferred_frees`] are deferred).
    pub fn array_in_place(&self, call: Val, arg: usize) -> bool {
        self.arrays.get(&(call, arg)).is_some_and(Result::is_ok)
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
    /// `cached: <reason>`, and each input array of a BLAS call, `read in place` or
    /// `copied: <reason>`; then each deferred free.
    pub fn describe(&self) -> Vec<String> {
        let mode = self.ctx.caller.describe();
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
                let mut arrays: Vec<_> = self.arrays.iter().filter(|((c, _), _)| *c == i).collect();
                arrays.sort_by_key(|((_, k), _)| *k);
                for ((_, k), v) in arrays {
                    match v {
                        Ok(()) => out.push(format!("  {}: argument {k} read in place", i.print())),
                        Err(why) => {
                            out.push(format!("  {}: argument {k} copied: {why}", i.print()))
                        }
                    }
                }
            }
        }
        for &d in &self.deferred {
            out.push(format!("  deferred free: {}", d.print()));
        }
        out
    }
}

/// What a call of a function without a body (or through a pointer) may write, judged as for
/// the loads of [`Overwrites`] (rule effects, memory attributes): the pointers it may write or
/// free through (anywhere in their objects), and whether it may also write memory that no
/// argument reaches (hidden state, whatever an unknown function reaches). For the checkpointed
/// loops' check of what a step carries to the next (`checkpoint::state`).
pub fn call_write_pointers(call: Val, rules: &UserRules) -> (Vec<Val>, bool) {
    let Some(m) = call.parent_function().map(|f| f.module()) else {
        return (Vec::new(), true);
    };
    let mut o = Oracle::new(m, rules);
    let (targets, free) = o.call_writes(call);
    let mut ptrs: Vec<Val> = free.into_iter().collect();
    let mut other = false;
    for t in targets {
        match t {
            Target::At { ptr, .. } | Target::Anywhere(ptr) => ptrs.push(ptr),
            Target::Everything => other = true,
        }
    }
    (ptrs, other)
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
/// loop vectoriser's strided and conditional reads), whose address is operand 0 as well: a
/// call whose rule reads the vector it returns through argument 0 ([`rules::Effects::reads_arg`]).
pub fn is_memory_read(i: Val) -> bool {
    match i.opcode() {
        Opcode::LLVMLoad => true,
        Opcode::LLVMCall => rules::lookup_call(i)
            .and_then(|r| r.effects.reads_arg)
            .is_some_and(|a| {
                a == rules::ArgBytes {
                    arg: 0,
                    bytes: rules::Extent::VectorOf(None),
                }
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
    /// A parameter of an OpenMP outlined function that is a stack slot of the function forking
    /// the region ([`regions`]): dead when the adjoint runs; no other pointer the body sees
    /// points into it unless it escapes the body.
    ParentSlot,
    /// A pointer the outlined function loaded from a read-only parent slot ([`regions`]): a
    /// value the forking function stored, no stack address and none of the body's blocks.
    FromParent,
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
    /// When every write of the body (and of its callees) that its callers could observe
    /// carries a TBAA tag: one such writer per distinct access type. A load whose own tag is
    /// disjoint from all of them cannot see the call write its bytes, wherever they are
    /// (`None`: some write is untyped, frees memory, or is unknown).
    typed: Option<std::rc::Rc<Vec<Val>>>,
    /// Like `typed`, for the writes on paths that return normally: what a caller sees of a
    /// call that does not catch what the body throws ([`ordering::returning_blocks`]).
    typed_normal: Option<std::rc::Rc<Vec<Val>>>,
}

impl Summary {
    fn anything(n: usize) -> Summary {
        Summary {
            writes: vec![true; n],
            captures: vec![true; n],
            other: true,
            typed: None,
            typed_normal: None,
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
    /// The facts of the analysed function when it is an OpenMP outlined function.
    region: Option<regions::RegionFacts>,
    objects: HashMap<Val, Vec<Val>>,
    /// Position of each instruction in its function, for functions whose objects were sorted
    /// ([`Oracle::objects`]).
    positions: HashMap<Val, usize>,
    escapes: HashMap<Val, bool>,
    summaries: HashMap<Val, Summary>,
    in_progress: HashSet<Val>,
    /// Each object's description in reasons ([`describe_object`]), made once: printing an
    /// instruction numbers its whole function, and every load reading the object asks.
    descriptions: HashMap<Val, String>,
}

/// True when `f`'s rule says a call to it is inert ([`rules::Effects::inert`]): it writes
/// nothing a load can observe and keeps no operand (lifetime markers only end allocas, which
/// are never re-read).
fn inert_callee(f: Val) -> bool {
    rules::lookup(&f.name()).is_some_and(|r| r.effects.inert)
}

/// Location bits of an LLVM `memory(...)` attribute value: two bits (ref, mod) per location.
/// String attribute of a function whose adjoint reads, in place, the memory its pointer
/// arguments point to (a checkpointed loop's or a fixed point's, which run the steps again): a
/// heap block of the caller passed to it that the caller frees afterwards is freed by the
/// adjoint instead ([`Overwrites::deferred_frees`]), or the adjoint would read freed memory.
pub const ADJOINT_READS_ARGUMENTS: &str = "umbra-adjoint-reads-arguments";

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
            region: None,
            objects: HashMap::new(),
            positions: HashMap::new(),
            escapes: HashMap::new(),
            summaries: HashMap::new(),
            in_progress: HashSet::new(),
            descriptions: HashMap::new(),
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
        if let Some(r) = &self.region {
            if r.slots.contains(&o) {
                return Kind::ParentSlot;
            }
            if r.loaded_from_parent(o) {
                return Kind::FromParent;
            }
        }
        if o.is_instruction() {
            return match o.opcode() {
                Opcode::LLVMAlloca => Kind::Alloca,
                _ => match self.allocation(o) {
                    Some(r) if r.effects.collected => Kind::Gc,
                    Some(_) => Kind::Heap,
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

    /// [`describe_object`] of `o`, made once per object.
    fn describe(&mut self, o: Val) -> String {
        self.descriptions
            .entry(o)
            .or_insert_with(|| describe_object(o))
            .clone()
    }

    /// The checks on the load alone: volatility, atomicity, the objects it may read.
    fn intrinsic_verdict(&mut self, l: Val, ctx: &OverwriteContext) -> Result<(), String> {
        if l.opcode() == Opcode::LLVMLoad && l.is_volatile() {
            return Err("volatile".into());
        }
        if l.opcode() == Opcode::LLVMLoad && l.is_atomic_access() {
            return Err("atomic".into());
        }
        self.objects_verdict(l, l.operand(0), ctx)
    }

    /// The checks on the objects `p` may point into, read by `at` (a load, or a call reading
    /// an array): none may be dead or collected when the adjoint runs, or written by the caller
    /// before it.
    fn objects_verdict(&mut self, at: Val, p: Val, ctx: &OverwriteContext) -> Result<(), String> {
        let l = at;
        let objs = self.objects(p);
        let mut any = false;
        for o in objs {
            match self.kind(o) {
                Kind::Nothing => {}
                Kind::Alloca => return Err("reads a stack slot, dead when the adjoint runs".into()),
                Kind::ParentSlot => {
                    return Err(
                        "reads a stack slot of the function forking the parallel region, dead when the adjoint runs"
                            .into(),
                    )
                }
                Kind::Gc => {
                    return Err("reads a garbage-collected allocation (it may be collected before the adjoint runs)".into())
                }
                Kind::Global { constant: true } => any = true,
                Kind::Heap => {
                    any = true;
                    if !ctx.caller.spares(l) && self.escapes(o) {
                        return Err(format!(
                            "the caller may write {} before the adjoint (it escapes)",
                            self.describe(o)
                        ));
                    }
                }
                Kind::Unknown if self.may_point_into_stack(o) => {
                    return Err(format!(
                        "reads through {}, which may point into a stack slot (dead when the adjoint runs)",
                        self.describe(o)
                    ))
                }
                Kind::Global { .. } | Kind::Arg { .. } | Kind::FromParent | Kind::Unknown => {
                    any = true;
                    if !ctx.caller.spares(l) {
                        return Err(format!(
                            "the caller may write {} before the adjoint",
                            self.describe(o)
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
}

/// True when alloca `a` escapes only as a parent slot of OpenMP regions: its every user loads
/// from it, stores a value into it (not its own address), marks its lifetime, or forks a region
/// whose verified parent slots include it ([`regions::RegionFacts`]) and whose body lets none
/// of its parent slots escape (`escapes`). No other call can reach it.
fn only_parent_slot(a: Val, escapes: &mut dyn FnMut(Val) -> bool) -> bool {
    a.users().into_iter().all(|u| match u.opcode() {
        Opcode::LLVMLoad => u.operand(0) == a,
        Opcode::LLVMStore => u.operand(1) == a && u.operand(0) != a,
        Opcode::LLVMCall => match crate::openmp::outlined(u) {
            Some(h) => regions::RegionFacts::of(h).is_some_and(|r| {
                r.slot_allocas(u, h).contains(&a) && r.slots.iter().all(|&q| !escapes(q))
            }),
            None => rules::lookup_call(u).is_some_and(|r| r.effects.lifetime),
        },
        _ => false,
    })
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
    } else if !o.name().is_empty() {
        format!("%{}", o.name())
    } else if !o.is_instruction() {
        // A constant (an address made from an integer, as AddressSanitizer's shadow).
        o.print()
    } else {
        // Not the instruction printed: printing numbers the whole module (its debug metadata
        // included) each time, which in a large module is most of the compilation.
        let what = match o.is_call().then(|| o.called_function()).flatten() {
            Some(f) => format!("the result of '{}'", f.name()),
            None => format!(
                "an unnamed '{}'",
                format!("{:?}", o.opcode())
                    .trim_start_matches("LLVM")
                    .to_lowercase()
            ),
        };
        match o.debug_location() {
            Some(at) => format!("{what} at {at}"),
            None => what,
        }
    }
}

/// Store size of `ty`, unless it is not a constant.
fn fixed_size(m: Module, ty: Ty) -> Option<u64> {
    (!ty.is_scalable_vector() && !ty.is_void()).then(|| m.store_size(ty))
}

#[cfg(test)]
mod tests;
