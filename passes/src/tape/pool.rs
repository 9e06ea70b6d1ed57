//! The tape's chunk pool: tape chunks outlive the gradient call that used them, so the next
//! call reuses their pages instead of asking the system for new ones.
//!
//! A large chunk from `malloc` is a fresh mapping; freed, it goes back to the system. A
//! gradient whose tape takes hundreds of megabytes then spent more time in page faults than in
//! arithmetic (a hydrodynamics step: 68% of its CPU time in the kernel). Tapes take their
//! chunks from [`ALLOC`] and give them back through [`FREE`]; each thread keeps up to
//! [`SLOTS`] spare chunks, the largest given back, each within the limit `UMBRA_TAPE_KEEP`
//! (bytes; default [`DEFAULT_KEEP`]), and frees those a tape of the thread has outgrown.
//! Several, because a thread may hold several tapes at once that each want their spare back on
//! the next call: the main thread of an OpenMP program holds the gradient's tape and, as thread
//! 0 of each parallel region, that region's tape, all until the adjoint. The spares go back to the
//! system at thread exit and when the program calls `umbra_release_tapes()` (declared in
//! `umbra.h`, releasing the calling thread's spares). A chunk of 2 MiB or more is offered
//! transparent huge pages (`madvise`).
//!
//! Derived code calls the two functions while they are declarations, whose rules are
//! `malloc`'s and `free`'s: an outer request differentiating a gradient's code sees the
//! allocation of a tape chunk as an allocation (its shadow tape a second one). Their bodies are
//! emitted once every request is lowered ([`define`]), `weak_odr`, with the pool's
//! thread-local state, so every object of a program shares one pool per thread.
//!
//! Guarantees: a chunk [`ALLOC`] returns is at least as large as asked and used by nobody else;
//! every chunk given to [`FREE`] is either one of the thread's spares or freed.
//!
//! Each spare's usable size is kept beside it ([`SIZES`]), measured once when the chunk is
//! given back: asking `malloc_usable_size` for every slot on every call cost a gradient with a
//! small tape a thousand instructions per call (3% of `naive_map_sin_cos_exp`'s gradient).

use crate::ir::{Builder, IntPred, Module, Ty, Val};

/// The names of the two functions tapes call, which are rules whatever their body.
pub const PREFIX: &str = "umbra.tape.chunk.";
/// `ptr umbra.tape.chunk.alloc(i64 bytes)`: a chunk for a tape.
pub const ALLOC: &str = "umbra.tape.chunk.alloc";
/// `void umbra.tape.chunk.free(ptr chunk)`: gives a chunk back.
pub const FREE: &str = "umbra.tape.chunk.free";
/// `void umbra_release_tapes(void)`: the program's way to give the calling thread's spare
/// back to the system.
pub const RELEASE: &str = "umbra_release_tapes";
/// The spare kept when `UMBRA_TAPE_KEEP` is not set: 1 GiB.
pub const DEFAULT_KEEP: u64 = 1 << 30;

/// The thread's spare chunks: `[SLOTS x ptr]`.
const SPARES: &str = "umbra.tape.spares";
/// The usable bytes of each spare (`malloc_usable_size` when it was kept), 0 for an empty
/// slot: `[SLOTS x i64]`, beside [`SPARES`].
const SIZES: &str = "umbra.tape.spare.sizes";
/// How many spares a thread keeps: a thread may hold this many tapes at once that each want
/// their chunk back on the next call (the gradient's tape and one per parallel region of the
/// step: a hydrodynamics step forks ten regions, whose tapes all live until the adjoint).
const SLOTS: u64 = 16;
const REGISTERED: &str = "umbra.tape.spare.registered";
const KEEP: &str = "umbra.tape.keep";
const THREAD_EXIT: &str = "umbra.tape.thread_exit";
/// Chunks from this size on are offered huge pages.
const HUGE: u64 = 2 << 20;
/// `MADV_HUGEPAGE` (Linux).
const MADV_HUGEPAGE: u64 = 14;

/// The declaration of [`ALLOC`], which tapes call for their chunks.
pub fn alloc_declaration(m: Module) -> Val {
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    m.get_or_add_function(ALLOC, Ty::function(ptr, &[i64t], false))
}

/// The declaration of [`FREE`], which tapes give their chunks back to.
pub fn free_declaration(m: Module) -> Val {
    let ctx = m.context();
    let ptr = Ty::ptr(ctx);
    m.get_or_add_function(FREE, Ty::function(Ty::void(ctx), &[ptr], false))
}

/// Gives [`ALLOC`], [`FREE`] and [`RELEASE`] their bodies where the module declares any of
/// them (once every request is lowered: until then, an outer request must see the rules).
pub fn define(m: Module) {
    let declared = |name: &str| m.function(name).is_some_and(|f| f.is_declaration());
    if !(declared(ALLOC) || declared(FREE) || declared(RELEASE)) {
        return;
    }
    define_alloc(m);
    define_free(m);
    define_release(m);
}

/// A function of the pool: its declaration, given `weak_odr` linkage for the body to come
/// (and rid of the debug information of a declaration in the program's code, which a
/// definition may not carry).
fn pool_function(m: Module, name: &str, ty: Ty) -> Val {
    let f = m.get_or_add_function(name, ty);
    if f.is_declaration() {
        f.clear_subprogram();
    }
    f.set_weak_odr();
    f
}

/// A thread-local `weak_odr` global of the pool, zero to start with.
fn thread_global(m: Module, name: &str, ty: Ty) -> Val {
    if let Some(g) = m.global(name) {
        return g;
    }
    let g = m.add_global(ty, name);
    g.set_initializer(ty.zero());
    g.set_weak_odr();
    g.set_thread_local();
    g
}

/// `i64 malloc_usable_size(ptr)`: how many bytes a block from `malloc` really holds.
fn usable_size(b: &mut Builder, p: Val) -> Val {
    let m = b.module();
    let ctx = m.context();
    let f = m.get_or_add_function(
        "malloc_usable_size",
        Ty::function(Ty::int(ctx, 64), &[Ty::ptr(ctx)], false),
    );
    b.call_function(f, &[p])
}

fn libc_free(b: &mut Builder, p: Val) {
    let m = b.module();
    let ctx = m.context();
    let f = m.get_or_add_function("free", Ty::function(Ty::void(ctx), &[Ty::ptr(ctx)], false));
    b.call_function(f, &[p]);
}

/// One of the thread's spare slots: where its chunk (or null) and that chunk's usable bytes
/// (or 0) are kept.
#[derive(Clone, Copy)]
struct Slot {
    chunk: Val,
    size: Val,
}

/// The thread's spare slots: `SLOTS` entries of two thread-local arrays ([`SPARES`],
/// [`SIZES`]).
fn spare_slots(m: Module, b: &mut Builder) -> Vec<Slot> {
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let chunks = Ty::array(ptr, SLOTS);
    let sizes = Ty::array(i64t, SLOTS);
    let g = thread_global(m, SPARES, chunks);
    let s = thread_global(m, SIZES, sizes);
    (0..SLOTS)
        .map(|k| Slot {
            chunk: b.gep(chunks, g, &[i64t.zero(), i64t.int_const(k)], true),
            size: b.gep(sizes, s, &[i64t.zero(), i64t.int_const(k)], true),
        })
        .collect()
}

/// The spares: (slot, chunk, usable bytes, non-null) per slot.
fn load_spares(b: &mut Builder, slots: &[Slot]) -> Vec<(Slot, Val, Val, Val)> {
    let ctx = b.module().context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    slots
        .iter()
        .map(|&slot| {
            let spare = b.load(ptr, slot.chunk, 8);
            let cap = b.load(i64t, slot.size, 8);
            let some = b.icmp(IntPred::LLVMIntNE, spare, ptr.zero());
            (slot, spare, cap, some)
        })
        .collect()
}

/// `if c { x } else { y }` for slots.
fn select_slot(b: &mut Builder, c: Val, x: Slot, y: Slot) -> Slot {
    Slot {
        chunk: b.select(c, x.chunk, y.chunk),
        size: b.select(c, x.size, y.size),
    }
}

/// Empties `slot` (its chunk now belongs to someone else, or is freed).
fn clear_slot(b: &mut Builder, slot: Slot) {
    let ctx = b.module().context();
    b.store(Ty::ptr(ctx).zero(), slot.chunk, 8);
    b.store(Ty::int(ctx, 64).zero(), slot.size, 8);
}

/// [`ALLOC`]: the smallest spare that is large enough and not more than four times too large
/// (a small tape, the adjoint's list of deferred frees, must not take the large one a gradient
/// tape will want); otherwise a new block, offered huge pages when large, and the spares
/// smaller than the block asked for are freed (outgrown: a hydrodynamics step's first call left
/// the largest chunk of its growing tape behind, 64 MB beside the 112 MB chunk every later call
/// takes).
fn define_alloc(m: Module) {
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = pool_function(m, ALLOC, Ty::function(ptr, &[i64t], false));
    let n = f.params()[0];
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let take = f.append_block("take");
    let fresh = f.append_block("fresh");
    let huge = f.append_block("huge");
    let done = f.append_block("done");
    b.position_at_end(entry);
    let slots = spare_slots(m, &mut b);
    let spares = load_spares(&mut b, &slots);
    // The best fit so far: (chunk or null, its bytes or the largest i64, its slot).
    let (mut best, mut best_cap, mut best_slot) = (ptr.zero(), i64t.int_const(u64::MAX), slots[0]);
    for &(slot, spare, cap, some) in &spares {
        let large_enough = b.icmp(IntPred::LLVMIntUGE, cap, n);
        let quarter = b.binop(crate::ir::Opcode::LLVMLShr, cap, i64t.int_const(2));
        let near = b.icmp(IntPred::LLVMIntULE, quarter, n);
        let smaller = b.icmp(IntPred::LLVMIntULT, cap, best_cap);
        let ok = b.binop(crate::ir::Opcode::LLVMAnd, large_enough, near);
        let ok = b.binop(crate::ir::Opcode::LLVMAnd, ok, some);
        let better = b.binop(crate::ir::Opcode::LLVMAnd, ok, smaller);
        best = b.select(better, spare, best);
        best_cap = b.select(better, cap, best_cap);
        best_slot = select_slot(&mut b, better, slot, best_slot);
    }
    let found = b.icmp(IntPred::LLVMIntNE, best, ptr.zero());
    b.cond_br(found, take, fresh);

    b.position_at_end(take);
    clear_slot(&mut b, best_slot);
    b.ret(best);

    b.position_at_end(fresh);
    for &(slot, spare, cap, some) in &spares {
        let smaller = b.icmp(IntPred::LLVMIntULT, cap, n);
        let outgrown = b.binop(crate::ir::Opcode::LLVMAnd, smaller, some);
        let victim = b.select(outgrown, spare, ptr.zero());
        libc_free(&mut b, victim);
        let kept = b.select(outgrown, ptr.zero(), spare);
        b.store(kept, slot.chunk, 8);
        let kept_cap = b.select(outgrown, i64t.zero(), cap);
        b.store(kept_cap, slot.size, 8);
    }
    let malloc = m.get_or_add_function("malloc", Ty::function(ptr, &[i64t], false));
    let p = b.call_function(malloc, &[n]);
    let big = b.icmp(IntPred::LLVMIntUGE, n, i64t.int_const(HUGE));
    let got = b.icmp(IntPred::LLVMIntNE, p, ptr.zero());
    let both = b.binop(crate::ir::Opcode::LLVMAnd, big, got);
    b.cond_br(both, huge, done);

    // Whole pages inside the block: [round_up(p), round_down(p + n)).
    b.position_at_end(huge);
    let at = b.cast(crate::ir::Opcode::LLVMPtrToInt, p, i64t);
    let mask = i64t.int_const(!4095u64);
    let up = b.add(at, i64t.int_const(4095));
    let start = b.binop(crate::ir::Opcode::LLVMAnd, up, mask);
    let end = b.add(at, n);
    let end = b.binop(crate::ir::Opcode::LLVMAnd, end, mask);
    let len = b.sub(end, start);
    let start_p = b.cast(crate::ir::Opcode::LLVMIntToPtr, start, ptr);
    let i32t = Ty::int(ctx, 32);
    let madvise = m.get_or_add_function("madvise", Ty::function(i32t, &[ptr, i64t, i32t], false));
    b.call_function(madvise, &[start_p, len, i32t.int_const(MADV_HUGEPAGE)]);
    b.br(done);

    b.position_at_end(done);
    b.ret(p);
}

/// [`FREE`]: keeps `chunk`, when within the limit ([`keep_limit`]), in an empty slot, or else in
/// place of the smallest spare when it is larger; frees whichever is not kept.
fn define_free(m: Module) {
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = pool_function(m, FREE, Ty::function(Ty::void(ctx), &[ptr], false));
    let chunk = f.params()[0];
    let keep_fn = keep_limit(m);
    let register_fn = register_thread_exit(m);
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let sized = f.append_block("sized");
    let pool = f.append_block("pool");
    let put = f.append_block("put");
    let release = f.append_block("release");
    let done = f.append_block("done");
    b.position_at_end(entry);
    let some = b.icmp(IntPred::LLVMIntNE, chunk, ptr.zero());
    b.cond_br(some, sized, done);

    b.position_at_end(sized);
    let size = usable_size(&mut b, chunk);
    let keep = b.call_function(keep_fn, &[]);
    let over = b.icmp(IntPred::LLVMIntUGT, size, keep);
    // A chunk its tape outgrew (marked in its header: `super::DISCARD`) goes back too.
    let mark_p = b.gep(
        Ty::int(ctx, 8),
        chunk,
        &[i64t.int_const(super::DISCARD)],
        true,
    );
    let mark = b.load(i64t, mark_p, 8);
    mark.set_tbaa_scalar(super::INT_TBAA);
    let marked = b.icmp(IntPred::LLVMIntNE, mark, i64t.zero());
    let over = b.binop(crate::ir::Opcode::LLVMOr, over, marked);
    b.cond_br(over, release, pool);

    // The slot to use: the first empty one, else the smallest spare's when `chunk` is larger
    // (that spare is freed; an empty slot "frees" null).
    b.position_at_end(pool);
    let slots = spare_slots(m, &mut b);
    let spares = load_spares(&mut b, &slots);
    let (mut empty, mut empty_slot) = (Ty::int(ctx, 1).zero(), slots[0]);
    let (mut least, mut least_cap, mut least_slot) =
        (ptr.zero(), i64t.int_const(u64::MAX), slots[0]);
    for &(slot, spare, cap, some) in spares.iter().rev() {
        let none = b.icmp(IntPred::LLVMIntEQ, some, Ty::int(ctx, 1).zero());
        empty_slot = select_slot(&mut b, none, slot, empty_slot);
        empty = b.binop(crate::ir::Opcode::LLVMOr, empty, none);
        let smaller = b.icmp(IntPred::LLVMIntULT, cap, least_cap);
        let smaller = b.binop(crate::ir::Opcode::LLVMAnd, smaller, some);
        least = b.select(smaller, spare, least);
        least_cap = b.select(smaller, cap, least_cap);
        least_slot = select_slot(&mut b, smaller, slot, least_slot);
    }
    let larger = b.icmp(IntPred::LLVMIntUGT, size, least_cap);
    let use_it = b.binop(crate::ir::Opcode::LLVMOr, empty, larger);
    let slot = select_slot(&mut b, empty, empty_slot, least_slot);
    let evicted = b.select(empty, ptr.zero(), least);
    b.cond_br(use_it, put, release);

    b.position_at_end(put);
    libc_free(&mut b, evicted);
    b.store(chunk, slot.chunk, 8);
    b.store(size, slot.size, 8);
    b.call_function(register_fn, &[]);
    b.br(done);

    b.position_at_end(release);
    libc_free(&mut b, chunk);
    b.br(done);

    b.position_at_end(done);
    b.ret_void();
}

/// [`RELEASE`]: frees the calling thread's spares.
fn define_release(m: Module) {
    let ctx = m.context();
    let ptr = Ty::ptr(ctx);
    let f = pool_function(m, RELEASE, Ty::function(Ty::void(ctx), &[], false));
    if !f.is_declaration() {
        return;
    }
    let mut b = Builder::new(m);
    b.position_at_end(f.append_block("entry"));
    for slot in spare_slots(m, &mut b) {
        let spare = b.load(ptr, slot.chunk, 8);
        clear_slot(&mut b, slot);
        libc_free(&mut b, spare);
    }
    b.ret_void();
}

/// `i64 umbra.tape.keep()`: the largest spare a thread keeps, from `UMBRA_TAPE_KEEP` (bytes,
/// read once per program) or [`DEFAULT_KEEP`].
fn keep_limit(m: Module) -> Val {
    const NAME: &str = "umbra.tape.keep.limit";
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = pool_function(m, NAME, Ty::function(i64t, &[], false));
    if !f.is_declaration() {
        return f;
    }
    // Shared by all threads: u64::MAX until read.
    let keep_g = match m.global(KEEP) {
        Some(g) => g,
        None => {
            let g = m.add_global(i64t, KEEP);
            g.set_initializer(i64t.int_const(u64::MAX));
            g.set_weak_odr();
            g.set_alignment(8);
            g
        }
    };
    let var = Val::const_string_in(ctx, "UMBRA_TAPE_KEEP");
    let var_g = m.add_global(var.ty(), "umbra.tape.keep.variable");
    var_g.set_initializer(var);
    var_g.set_global_constant(true);
    var_g.set_internal();
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let read = f.append_block("read");
    let parse = f.append_block("parse");
    let store = f.append_block("store");
    let known = f.append_block("known");
    b.position_at_end(entry);
    let k = b.load_relaxed(i64t, keep_g);
    let unread = b.icmp(IntPred::LLVMIntEQ, k, i64t.int_const(u64::MAX));
    b.cond_br(unread, read, known);

    b.position_at_end(read);
    let getenv = m.get_or_add_function("getenv", Ty::function(ptr, &[ptr], false));
    let s = b.call_function(getenv, &[var_g]);
    let set = b.icmp(IntPred::LLVMIntNE, s, ptr.zero());
    b.cond_br(set, parse, store);

    b.position_at_end(parse);
    let i32t = Ty::int(ctx, 32);
    let strtoull = m.get_or_add_function("strtoull", Ty::function(i64t, &[ptr, ptr, i32t], false));
    let v = b.call_function(strtoull, &[s, ptr.zero(), i32t.int_const(0)]);
    // u64::MAX stays the mark of "not read yet".
    let max = b.icmp(IntPred::LLVMIntEQ, v, i64t.int_const(u64::MAX));
    let v = b.select(max, i64t.int_const(u64::MAX - 1), v);
    b.br(store);

    b.position_at_end(store);
    let limit = b.phi(i64t);
    limit.add_incoming(i64t.int_const(DEFAULT_KEEP), read);
    limit.add_incoming(v, parse);
    b.store_relaxed(limit, keep_g);
    b.ret(limit);

    b.position_at_end(known);
    b.ret(k);
    f
}

/// `void umbra.tape.spare.register()`: the first time a thread keeps a spare, asks for
/// [`RELEASE`] to run when the thread exits (`__cxa_thread_atexit_impl`, as C++'s
/// `thread_local` destructors do; the main thread's run at `exit`).
fn register_thread_exit(m: Module) -> Val {
    const NAME: &str = "umbra.tape.spare.register";
    let ctx = m.context();
    let (ptr, i8t, i32t) = (Ty::ptr(ctx), Ty::int(ctx, 8), Ty::int(ctx, 32));
    let f = pool_function(m, NAME, Ty::function(Ty::void(ctx), &[], false));
    if !f.is_declaration() {
        return f;
    }
    let exit_fn = pool_function(m, THREAD_EXIT, Ty::function(Ty::void(ctx), &[ptr], false));
    if exit_fn.is_declaration() {
        let release = pool_function(m, RELEASE, Ty::function(Ty::void(ctx), &[], false));
        let mut b = Builder::new(m);
        b.position_at_end(exit_fn.append_block("entry"));
        b.call_function(release, &[]);
        b.ret_void();
    }
    let registered = thread_global(m, REGISTERED, i8t);
    let dso = match m.global("__dso_handle") {
        Some(g) => g,
        None => {
            let g = m.add_global(i8t, "__dso_handle");
            g.set_hidden();
            g
        }
    };
    let atexit = m.get_or_add_function(
        "__cxa_thread_atexit_impl",
        Ty::function(i32t, &[ptr, ptr, ptr], false),
    );
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let first = f.append_block("first");
    let done = f.append_block("done");
    b.position_at_end(entry);
    let r = b.load(i8t, registered, 1);
    let no = b.icmp(IntPred::LLVMIntEQ, r, i8t.zero());
    b.cond_br(no, first, done);
    b.position_at_end(first);
    b.store(i8t.int_const(1), registered, 1);
    b.call_function(atexit, &[exit_fn, ptr.zero(), dso]);
    b.br(done);
    b.position_at_end(done);
    b.ret_void();
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Outer requests treat the pool as `malloc` and `free` (the rule table spells the names
    /// out, below the engine).
    #[test]
    fn the_pool_has_the_rules_of_malloc_and_free() {
        assert!(crate::rules::lookup(ALLOC).is_some_and(|r| r.name == "malloc"));
        assert!(crate::rules::lookup(FREE).is_some_and(|r| r.name == "free"));
        assert!(ALLOC.starts_with(PREFIX) && FREE.starts_with(PREFIX));
    }
}
