//! The tape's run-time representation, below the rules and the reverse visitor: the chunked
//! byte stack and its push/pop emitters (here), the chunk pool ([`pool`]) and the list of
//! blocks an exception must release ([`owned`]). Depends on `ir/` only (and one TBAA name of
//! the type analysis), so rules that save buffers can record them without naming the engine.
//!
//! The tape: one LIFO byte stack shared by every augmented forward sweep and adjoint sweep of
//! one gradient evaluation. The forward sweep pushes what the adjoint needs, in execution
//! order; the adjoint sweep pops in exactly the reverse order. Callees push onto the same tape,
//! so nested calls need no allocation of their own.
//!
//! The tape is `{ ptr data, i64 size, i64 capacity }` describing its current *chunk*: a block
//! from the chunk pool ([`pool`], which keeps a spare per thread across gradient
//! calls) whose first [`HEADER`] bytes keep the tape as it was before that chunk (previous
//! chunk, its size and capacity). A push that does not fit starts a new chunk; a pop from an
//! empty chunk gives it back and returns to the previous one. So pushed bytes never move:
//! a slot's address stays valid until it is popped. That, and plain IR helpers (no `realloc`,
//! no runtime library), make everything reverse mode emits differentiable again: forward over
//! reverse, and reverse over reverse, where the outer gradient's shadow of a tape is a tape of
//! the same shape whose slots hold the adjoints (and pointer shadows) of the inner tape's
//! slots, at stable addresses. Integers loaded back from the tape carry the TBAA type
//! [`INT_TBAA`], so an outer gradient knows they are integer data, never float bits.

use crate::ir::{Builder, IntPred, Module, Ty, Val};

pub mod owned;
pub mod pool;

/// Names of the helpers emitted into the module.
const PUSH: &str = "umbra.tape.push";
const POP: &str = "umbra.tape.pop";

/// Bytes at the start of every chunk: the tape `{ptr, i64, i64}` before the chunk, and an
/// `i64` ([`DISCARD`]), padding the header to keep slots 16-byte aligned.
pub(crate) const HEADER: u64 = 32;

/// Offset in a chunk's header of its discard mark: nonzero when the pool should give the
/// chunk back to the system rather than keep it as a spare ([`settle_into`] marks the chunks
/// a tape outgrew: the next tape of its kind starts from one chunk as large as the hint).
pub(crate) const DISCARD: u64 = 24;

/// Bytes of the first chunk a gradient tape gets in the frame of the function requesting the
/// gradient ([`new_tape`]): a page. With 1 KiB, naive_map_sin_cos_exp's gradient (a 1.6 KiB
/// tape) took a chunk from the pool and gave it back on every call, 3% of its instructions.
pub const STACK_CHUNK: u64 = 4096;

/// The size recorded in the stack chunk's header for the tape before it (which is empty): no
/// real size, it marks the chunk as one `free` must not see.
const ON_STACK: u64 = u64::MAX;

/// The TBAA access type of integers loaded from the tape (and of the tape's own fields).
pub const INT_TBAA: &str = crate::analysis::types::bytes::TAPE_INTEGER_TBAA;

/// The tape's LLVM type `{ ptr, i64, i64 }`.
pub fn tape_type(m: Module) -> Ty {
    let ctx = m.context();
    let i64t = Ty::int(ctx, 64);
    Ty::literal_struct(ctx, &[Ty::ptr(ctx), i64t, i64t])
}

/// Field `k` (0 data, 1 size, 2 capacity) of the tape (or chunk header) at `tape`.
fn field(b: &mut Builder, tape: Val, k: u64) -> Val {
    let m = b.module();
    let ctx = m.context();
    let i64t = Ty::int(ctx, 64);
    b.gep(
        tape_type(m),
        tape,
        &[i64t.int_const(0), Ty::int(ctx, 32).int_const(k)],
        true,
    )
}

/// Loads an integer (size, capacity) of the tape's own bookkeeping, typed as tape integer data.
fn load_int(b: &mut Builder, p: Val) -> Val {
    let i64t = Ty::int(b.module().context(), 64);
    let v = b.load(i64t, p, 8);
    v.set_tbaa_scalar(INT_TBAA);
    v
}

/// `ptr umbra.tape.push(ptr tape, i64 bytes)`: reserves `bytes` and returns where to store.
/// Small enough to inline: the common case is an add, a compare and a store; a push that does
/// not fit calls [`grow_helper`].
pub fn push_helper(m: Module) -> Val {
    if let Some(f) = m.function(PUSH) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let grow_fn = grow_helper(m);
    let f = m.add_function(PUSH, Ty::function(ptr, &[ptr, i64t], false));
    f.set_internal();
    let (tape, n) = (f.params()[0], f.params()[1]);
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let fits = f.append_block("fits");
    let grow = f.append_block("grow");
    b.position_at_end(entry);
    let (size_p, cap_p) = (field(&mut b, tape, 1), field(&mut b, tape, 2));
    let size = load_int(&mut b, size_p);
    let cap = load_int(&mut b, cap_p);
    let new_size = b.add(size, n);
    let full = b.icmp(IntPred::LLVMIntUGT, new_size, cap);
    b.cond_br(full, grow, fits);

    b.position_at_end(fits);
    b.store(new_size, size_p, 8);
    let data = b.load(ptr, tape, 8);
    let slot = b.gep(Ty::int(ctx, 8), data, &[size], true);
    b.ret(slot);

    b.position_at_end(grow);
    let slot = b.call_function(grow_fn, &[tape, n]);
    b.ret(slot);
    f
}

/// `ptr umbra.tape.grow(ptr tape, i64 bytes)`: [`push_helper`]'s rare case, out of line: a new
/// chunk for `bytes` that do not fit the current one, returning where to store them.
fn grow_helper(m: Module) -> Val {
    const GROW: &str = "umbra.tape.grow";
    if let Some(f) = m.function(GROW) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = m.add_function(GROW, Ty::function(ptr, &[ptr, i64t], false));
    f.set_internal();
    f.set_fn_attr("noinline", true);
    f.set_fn_attr("cold", true);
    let (tape, n) = (f.params()[0], f.params()[1]);
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    b.position_at_end(entry);
    let (size_p, cap_p) = (field(&mut b, tape, 1), field(&mut b, tape, 2));
    let size = load_int(&mut b, size_p);
    let cap = load_int(&mut b, cap_p);

    // A new chunk, at least twice the last, remembering the tape as it was. The hint a tape
    // of its kind starts from next time is raised where the tape is at its peak ([`settle`],
    // [`settle_into`]), not here: a grow does not know which hint its tape starts from (an
    // OpenMP thread's tape raising the gradient tapes' hint made every gradient start with a
    // chunk as large as a thread's tape, which took the spare the thread wanted back).
    let doubled = b.add(cap, cap);
    let at_least = b.add(n, i64t.int_const(HEADER + 4096));
    let new_cap = umax(&mut b, doubled, at_least);
    let malloc = pool::alloc_declaration(m);
    let chunk = b.call_function(malloc, &[new_cap]);
    let data = b.load(ptr, tape, 8);
    b.store(data, chunk, 8);
    let p = field(&mut b, chunk, 1);
    b.store(size, p, 8);
    let p = field(&mut b, chunk, 2);
    b.store(cap, p, 8);
    keep_chunk(&mut b, chunk);
    b.store(chunk, tape, 8);
    b.store(new_cap, cap_p, 8);
    let end = b.add(n, i64t.int_const(HEADER));
    b.store(end, size_p, 8);
    let slot = b.gep(Ty::int(ctx, 8), chunk, &[i64t.int_const(HEADER)], true);
    b.ret(slot);
    f
}

/// `i64 umbra.tape.held(ptr tape)`: the bytes the tape's chunks hold now (every chunk's used
/// size, walking the chain back through the headers).
fn held_helper(m: Module) -> Val {
    const HELD: &str = "umbra.tape.held";
    if let Some(f) = m.function(HELD) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = m.add_function(HELD, Ty::function(i64t, &[ptr], false));
    f.set_internal();
    let tape = f.params()[0];
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let walk = f.append_block("walk");
    let look = f.append_block("look");
    let step = f.append_block("step");
    let walked = f.append_block("walked");
    b.position_at_end(entry);
    let size_p = field(&mut b, tape, 1);
    let size = load_int(&mut b, size_p);
    let first = b.load(ptr, tape, 8);
    b.br(walk);
    b.position_at_end(walk);
    let chunk_p = b.phi(ptr);
    let held = b.phi(i64t);
    chunk_p.add_incoming(first, entry);
    held.add_incoming(size, entry);
    let none = b.icmp(IntPred::LLVMIntEQ, chunk_p, ptr.zero());
    b.cond_br(none, walked, look);
    // The chunk's header is the tape before it; an empty one (null data) ends the chain.
    b.position_at_end(look);
    let prev = b.load(ptr, chunk_p, 8);
    let more = b.icmp(IntPred::LLVMIntNE, prev, ptr.zero());
    b.cond_br(more, step, walked);
    b.position_at_end(step);
    let ps = field(&mut b, chunk_p, 1);
    let prev_size = load_int(&mut b, ps);
    let sum = b.add(held, prev_size);
    chunk_p.add_incoming(prev, step);
    held.add_incoming(sum, step);
    b.br(walk);
    b.position_at_end(walked);
    b.ret(held);
    f
}

/// Emits, between a gradient's sweeps (where its tape is at its peak), `umbra.tape.settle`:
/// when the tape outgrew its first chunk, the hint the next gradient starts from is raised to
/// the bytes held now and a sixteenth more. Raised only where a chunk overflows, the hint
/// trailed a tape that kept growing after that point, and each later call overflowed again
/// (a hydrodynamics step: ten calls of fresh pages before its tape fit one chunk).
pub fn settle(b: &mut Builder, tape: Val) {
    let hint = hint_global(b.module());
    settle_into(b, tape, hint);
}

/// [`settle`] for a tape that starts from a hint of its own (`hint`, an `i64` global such as
/// [`region_hint`]): raises it to the bytes `tape` holds and a sixteenth more when the tape
/// outgrew its first chunk.
pub fn settle_into(b: &mut Builder, tape: Val, hint: Val) {
    const SETTLE: &str = "umbra.tape.settle";
    let m = b.module();
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = match m.function(SETTLE) {
        Some(f) => f,
        None => {
            let f = m.add_function(SETTLE, Ty::function(Ty::void(ctx), &[ptr, ptr], false));
            f.set_internal();
            let (t, hint_g) = (f.params()[0], f.params()[1]);
            let mut fb = Builder::new(m);
            let entry = f.append_block("entry");
            let grew = f.append_block("grew");
            let done = f.append_block("done");
            fb.position_at_end(entry);
            let first = fb.load(ptr, t, 8);
            let some = fb.icmp(IntPred::LLVMIntNE, first, ptr.zero());
            let prev_p = fb.select(some, first, t);
            let prev = fb.load(ptr, prev_p, 8);
            let several = fb.icmp(IntPred::LLVMIntNE, prev, ptr.zero());
            let both = fb.binop(crate::ir::Opcode::LLVMAnd, some, several);
            fb.cond_br(both, grew, done);
            fb.position_at_end(grew);
            let held = fb.call_function(held_helper(m), &[t]);
            let slack = fb.binop(crate::ir::Opcode::LLVMLShr, held, i64t.int_const(4));
            let wanted = fb.add(held, slack);
            let hint = fb.load_relaxed(i64t, hint_g);
            hint.set_tbaa_scalar(INT_TBAA);
            let raised = umax(&mut fb, hint, wanted);
            fb.store_relaxed(raised, hint_g).set_tbaa_scalar(INT_TBAA);
            // The chunks smaller than that are no use to the next tape of this kind, which
            // starts from one chunk of the hint's size: marked, the pool frees them instead
            // of keeping them as spares that stay resident (a hydrodynamics step's first call
            // grew its tape through five chunks; the next ones used only the largest, and
            // the other four, 104 MB, stayed in the pool).
            let walk = f.append_block("walk");
            let mark = f.append_block("mark");
            let data0 = fb.load(ptr, t, 8);
            let cap_p = field(&mut fb, t, 2);
            let cap0 = load_int(&mut fb, cap_p);
            fb.br(walk);
            fb.position_at_end(walk);
            let chunk = fb.phi(ptr);
            let cap = fb.phi(i64t);
            chunk.add_incoming(data0, grew);
            cap.add_incoming(cap0, grew);
            let more = fb.icmp(IntPred::LLVMIntNE, chunk, ptr.zero());
            fb.cond_br(more, mark, done);
            fb.position_at_end(mark);
            let small = fb.icmp(IntPred::LLVMIntULT, cap, wanted);
            let flag = fb.cast(crate::ir::Opcode::LLVMZExt, small, i64t);
            set_discard(&mut fb, chunk, flag);
            let prev = fb.load(ptr, chunk, 8);
            let p = field(&mut fb, chunk, 2);
            let prev_cap = load_int(&mut fb, p);
            chunk.add_incoming(prev, mark);
            cap.add_incoming(prev_cap, mark);
            fb.br(walk);
            fb.position_at_end(done);
            fb.ret_void();
            f
        }
    };
    b.call_function(f, &[tape, hint]);
}

/// `@NAME`: a hint of its own (an internal `i64`, zero to start with) for tapes that start
/// with [`start_from`] and settle with [`settle_into`]: one OpenMP region's per-thread tapes,
/// whose size has nothing to do with the gradient tape's.
pub fn region_hint(m: Module, name: &str) -> Val {
    if let Some(g) = m.global(name) {
        return g;
    }
    let i64t = Ty::int(m.context(), 64);
    let g = m.add_global(i64t, name);
    g.set_initializer(i64t.zero());
    g.set_internal();
    g.set_alignment(8);
    g
}

/// Gives the empty tape `tape` a first chunk from the pool as large as `hint` says (an `i64`
/// global of [`region_hint`]) once that is known, so a tape evaluated again fills one chunk,
/// which the pool keeps for the next call, instead of growing chunk by chunk from nothing
/// (every chunk but the largest then came fresh from the system, page faults included).
/// With no hint yet the tape stays empty and grows on its first push.
pub fn start_from(b: &mut Builder, tape: Val, hint: Val) {
    const START: &str = "umbra.tape.start.hinted";
    let m = b.module();
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = match m.function(START) {
        Some(f) => f,
        None => {
            let f = m.add_function(START, Ty::function(Ty::void(ctx), &[ptr, ptr], false));
            f.set_internal();
            let (t, hint_g) = (f.params()[0], f.params()[1]);
            let mut fb = Builder::new(m);
            let entry = f.append_block("entry");
            let alloc = f.append_block("allocate");
            let done = f.append_block("done");
            fb.position_at_end(entry);
            let n = fb.load_relaxed(i64t, hint_g);
            n.set_tbaa_scalar(INT_TBAA);
            let known = fb.icmp(IntPred::LLVMIntUGT, n, i64t.int_const(HEADER));
            fb.cond_br(known, alloc, done);
            fb.position_at_end(alloc);
            let chunk = fb.call_function(pool::alloc_declaration(m), &[n]);
            // The tape before this chunk: empty.
            fb.store(tape_type(m).zero(), chunk, 8);
            keep_chunk(&mut fb, chunk);
            fb.store(chunk, t, 8);
            let p = field(&mut fb, t, 1);
            fb.store(i64t.int_const(HEADER), p, 8);
            let p = field(&mut fb, t, 2);
            fb.store(n, p, 8);
            fb.br(done);
            fb.position_at_end(done);
            fb.ret_void();
            f
        }
    };
    b.call_function(f, &[tape, hint]);
}

/// `void umbra.tape.start(ptr tape, ptr stack)`: gives a new gradient tape its first chunk.
/// While the module's gradient tapes have needed no more than [`STACK_CHUNK`] bytes (the hint),
/// that is `stack`, a buffer in the requesting function's frame: a small gradient allocates
/// nothing. Otherwise it is a heap chunk as large as the hint, so a gradient evaluated again
/// fills one chunk (gp_lml's 8 MB tape in many chunks: 3x -> 17x its primal), which the pool
/// keeps for the next call: chunks given back to the system on every call are page-faulted in
/// again on the next. Only
/// gradient tapes start this way; small tapes (the adjoint's list of deferred frees) grow from
/// nothing.
fn start_helper(m: Module) -> Val {
    const START: &str = "umbra.tape.start";
    if let Some(f) = m.function(START) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = m.add_function(START, Ty::function(Ty::void(ctx), &[ptr, ptr], false));
    f.set_internal();
    let (tape, stack) = (f.params()[0], f.params()[1]);
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let alloc = f.append_block("allocate");
    let on_stack = f.append_block("on.stack");
    let done = f.append_block("done");
    b.position_at_end(entry);
    let hint = b.load_relaxed(i64t, hint_global(m));
    hint.set_tbaa_scalar(INT_TBAA);
    let big = b.icmp(IntPred::LLVMIntUGT, hint, i64t.int_const(STACK_CHUNK));
    b.cond_br(big, alloc, on_stack);

    b.position_at_end(alloc);
    let malloc = pool::alloc_declaration(m);
    let chunk = b.call_function(malloc, &[hint]);
    // The tape before this chunk: empty.
    b.store(tape_type(m).zero(), chunk, 8);
    keep_chunk(&mut b, chunk);
    b.br(done);

    // The tape before the stack chunk: empty, its size marking the chunk as not the heap's.
    b.position_at_end(on_stack);
    b.store(tape_type(m).zero(), stack, 8);
    let p = field(&mut b, stack, 1);
    b.store(i64t.int_const(ON_STACK), p, 8)
        .set_tbaa_scalar(INT_TBAA);
    b.br(done);

    b.position_at_end(done);
    let first = b.phi(ptr);
    first.add_incoming(chunk, alloc);
    first.add_incoming(stack, on_stack);
    let cap = b.phi(i64t);
    cap.add_incoming(hint, alloc);
    cap.add_incoming(i64t.int_const(STACK_CHUNK), on_stack);
    b.store(first, tape, 8);
    let p = field(&mut b, tape, 1);
    b.store(i64t.int_const(HEADER), p, 8);
    let p = field(&mut b, tape, 2);
    b.store(cap, p, 8);
    b.ret_void();
    f
}

/// True (an `i1`) when `chunk` is a tape's stack chunk ([`start_helper`]), never freed.
fn is_stack_chunk(b: &mut Builder, chunk: Val) -> Val {
    let i64t = Ty::int(b.module().context(), 64);
    let p = field(b, chunk, 1);
    let marker = load_int(b, p);
    b.icmp(IntPred::LLVMIntEQ, marker, i64t.int_const(ON_STACK))
}

/// Sets the discard mark of chunk `chunk` ([`DISCARD`]) to `mark` (an `i64`).
fn set_discard(b: &mut Builder, chunk: Val, mark: Val) {
    let ctx = b.module().context();
    let i64t = Ty::int(ctx, 64);
    let p = b.gep(Ty::int(ctx, 8), chunk, &[i64t.int_const(DISCARD)], true);
    b.store(mark, p, 8).set_tbaa_scalar(INT_TBAA);
}

/// Clears the discard mark of a chunk fresh from the pool (a spare's may be left over).
fn keep_chunk(b: &mut Builder, chunk: Val) {
    let zero = Ty::int(b.module().context(), 64).zero();
    set_discard(b, chunk, zero);
}

/// The larger of two unsigned integers.
fn umax(b: &mut Builder, x: Val, y: Val) -> Val {
    let bigger = b.icmp(IntPred::LLVMIntUGT, x, y);
    b.select(bigger, x, y)
}

/// `@umbra.tape.hint`: the bytes the module's tapes have needed so far (an internal `i64`,
/// read and written with relaxed atomics, since gradients may run in several threads).
fn hint_global(m: Module) -> Val {
    const HINT: &str = "umbra.tape.hint";
    if let Some(g) = m.global(HINT) {
        return g;
    }
    let i64t = Ty::int(m.context(), 64);
    let g = m.add_global(i64t, HINT);
    g.set_initializer(i64t.zero());
    g.set_internal();
    g.set_alignment(8);
    g
}

/// `ptr umbra.tape.pop(ptr tape, i64 bytes)`: releases the last `bytes` and returns them.
/// Small enough to inline; popping from an empty chunk calls [`back_helper`] first.
pub fn pop_helper(m: Module) -> Val {
    if let Some(f) = m.function(POP) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let back_fn = back_helper(m);
    let f = m.add_function(POP, Ty::function(ptr, &[ptr, i64t], false));
    f.set_internal();
    let (tape, n) = (f.params()[0], f.params()[1]);
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let back = f.append_block("previous");
    let done = f.append_block("done");
    b.position_at_end(entry);
    let size_p = field(&mut b, tape, 1);
    let size = load_int(&mut b, size_p);
    // The chunk holds nothing (every push puts its bytes in one chunk): the bytes are in the
    // previous one, which becomes current again.
    let empty = b.icmp(IntPred::LLVMIntEQ, size, i64t.int_const(HEADER));
    b.cond_br(empty, back, done);

    b.position_at_end(back);
    let prev_size = b.call_function(back_fn, &[tape]);
    b.br(done);

    b.position_at_end(done);
    let at = b.phi(i64t);
    at.add_incoming(size, entry);
    at.add_incoming(prev_size, back);
    let new_size = b.sub(at, n);
    b.store(new_size, size_p, 8);
    let data = b.load(ptr, tape, 8);
    let slot = b.gep(Ty::int(ctx, 8), data, &[new_size], true);
    b.ret(slot);
    f
}

/// `i64 umbra.tape.back(ptr tape)`: [`pop_helper`]'s rare case, out of line: frees the empty
/// current chunk, makes the previous one current and returns its size.
fn back_helper(m: Module) -> Val {
    const BACK: &str = "umbra.tape.back";
    if let Some(f) = m.function(BACK) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = m.add_function(BACK, Ty::function(i64t, &[ptr], false));
    f.set_internal();
    f.set_fn_attr("noinline", true);
    f.set_fn_attr("cold", true);
    let tape = f.params()[0];
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let back = f.append_block("back");
    let first = f.append_block("first");
    b.position_at_end(entry);
    let size_p = field(&mut b, tape, 1);
    let chunk = b.load(ptr, tape, 8);
    let prev = b.load(ptr, chunk, 8);
    // The first chunk stays (a stack chunk must, and a heap one is freed with the tape): a pop
    // of nothing from it, as a loop region of no iterations releases, changes nothing.
    let is_first = b.icmp(IntPred::LLVMIntEQ, prev, ptr.zero());
    b.cond_br(is_first, first, back);
    b.position_at_end(first);
    b.ret(i64t.int_const(HEADER));
    b.position_at_end(back);
    let p = field(&mut b, chunk, 1);
    let prev_size = load_int(&mut b, p);
    let p = field(&mut b, chunk, 2);
    let prev_cap = load_int(&mut b, p);
    b.store(prev, tape, 8);
    b.store(prev_size, size_p, 8);
    let cap_p = field(&mut b, tape, 2);
    b.store(prev_cap, cap_p, 8);
    let free = pool::free_declaration(m);
    b.call_function(free, &[chunk]);
    b.ret(prev_size);
    f
}

/// `void umbra.tape.release(ptr list)`: pops every (pointer, deallocator) pair pushed on `list`
/// (a tape) and calls `deallocator(pointer)`, then frees the list's buffer. The adjoint uses it
/// for the frees it took over from the augmented sweep.
pub fn release_helper(m: Module) -> Val {
    const RELEASE: &str = "umbra.tape.release";
    if let Some(f) = m.function(RELEASE) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = m.add_function(RELEASE, Ty::function(Ty::void(ctx), &[ptr], false));
    f.set_internal();
    let list = f.params()[0];
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let body = f.append_block("release");
    let first = f.append_block("first");
    let done = f.append_block("done");
    b.position_at_end(entry);
    let size_p = field(&mut b, list, 1);
    let size = load_int(&mut b, size_p);
    let empty = b.icmp(IntPred::LLVMIntEQ, size, i64t.zero());
    b.cond_br(empty, done, body);
    b.position_at_end(body);
    let dealloc = pop(&mut b, list, ptr);
    let p = pop(&mut b, list, ptr);
    let dealloc_ty = Ty::function(Ty::void(ctx), &[ptr], false);
    b.call(dealloc_ty, dealloc, &[p]);
    // Empty: the first chunk (no previous one) holds nothing.
    let left = load_int(&mut b, size_p);
    let at_start = b.icmp(IntPred::LLVMIntEQ, left, i64t.int_const(HEADER));
    b.cond_br(at_start, first, body);
    b.position_at_end(first);
    let chunk = b.load(ptr, list, 8);
    let prev = b.load(ptr, chunk, 8);
    let more = b.icmp(IntPred::LLVMIntNE, prev, ptr.zero());
    b.cond_br(more, body, done);
    b.position_at_end(done);
    free_tape(&mut b, list);
    b.ret_void();
    f
}

/// `void umbra.tape.discard(ptr tape)`: frees every chunk `tape` holds, whatever is still on
/// it, and leaves it empty (zeroed). For a forward sweep that an exception cut short: its
/// pushes are never popped ([`owned`]). Each chunk's header points to the one before.
pub fn discard_helper(m: Module) -> Val {
    const DISCARD: &str = "umbra.tape.discard";
    if let Some(f) = m.function(DISCARD) {
        return f;
    }
    let ctx = m.context();
    let ptr = Ty::ptr(ctx);
    let f = m.add_function(DISCARD, Ty::function(Ty::void(ctx), &[ptr], false));
    f.set_internal();
    let tape = f.params()[0];
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let walk = f.append_block("walk");
    let body = f.append_block("free");
    let done = f.append_block("done");
    b.position_at_end(entry);
    let first = b.load(ptr, tape, 8);
    b.br(walk);
    b.position_at_end(walk);
    let chunk = b.phi(ptr);
    let some = b.icmp(IntPred::LLVMIntNE, chunk, ptr.zero());
    b.cond_br(some, body, done);
    b.position_at_end(body);
    let prev = b.load(ptr, chunk, 8);
    let heap = f.append_block("heap");
    let next = f.append_block("next");
    let stack = is_stack_chunk(&mut b, chunk);
    b.cond_br(stack, next, heap);
    b.position_at_end(heap);
    let free = pool::free_declaration(m);
    b.call_function(free, &[chunk]);
    b.br(next);
    b.position_at_end(next);
    b.br(walk);
    chunk.add_incoming(first, entry);
    chunk.add_incoming(prev, next);
    b.position_at_end(done);
    b.store(tape_type(m).zero(), tape, 8);
    b.ret_void();
    f
}

/// Emits the reservation of `bytes` on `tape` and returns where they start (valid until the
/// next push, which may move the data).
pub fn push_bytes(b: &mut Builder, tape: Val, bytes: u64) -> Val {
    let m = b.module();
    let n = Ty::int(m.context(), 64).int_const(bytes);
    b.call_function(push_helper(m), &[tape, n])
}

/// Emits the release of the last `bytes` on `tape` and returns where they start.
pub fn pop_bytes(b: &mut Builder, tape: Val, bytes: u64) -> Val {
    let m = b.module();
    let n = Ty::int(m.context(), 64).int_const(bytes);
    b.call_function(pop_helper(m), &[tape, n])
}

/// Emits the address `offset` bytes into a pushed or popped slot.
pub fn at_offset(b: &mut Builder, slot: Val, offset: u64) -> Val {
    if offset == 0 {
        return slot;
    }
    let m = b.module();
    let ctx = m.context();
    let off = Ty::int(ctx, 64).int_const(offset);
    b.gep(Ty::int(ctx, 8), slot, &[off], true)
}

/// Emits `push(v)` on `tape` at the builder's position.
pub fn push(b: &mut Builder, tape: Val, v: Val) {
    let m = b.module();
    let bytes = Ty::int(m.context(), 64).int_const(m.alloc_size(v.ty()));
    let slot = b.call_function(push_helper(m), &[tape, bytes]);
    b.store(v, slot, 1);
}

/// Emits `pop()` of a `ty` from `tape` at the builder's position.
pub fn pop(b: &mut Builder, tape: Val, ty: Ty) -> Val {
    let m = b.module();
    let bytes = Ty::int(m.context(), 64).int_const(m.alloc_size(ty));
    let slot = b.call_function(pop_helper(m), &[tape, bytes]);
    load(b, ty, slot)
}

/// Loads a `ty` from a popped slot: integers are typed as tape integer data ([`INT_TBAA`]).
pub fn load(b: &mut Builder, ty: Ty, slot: Val) -> Val {
    load_value(b, ty, slot, false)
}

/// Loads a `ty` from a popped slot, typed as integer data unless it is an integer that holds
/// float bits (`float_bits`), which must stay differentiable for an outer gradient.
pub fn load_value(b: &mut Builder, ty: Ty, slot: Val, float_bits: bool) -> Val {
    let v = b.load(ty, slot, 1);
    if ty.is_int() && !float_bits {
        v.set_tbaa_scalar(INT_TBAA);
    }
    v
}

/// Emits `pop()` of a `ty` that may be an integer holding float bits (see [`load_value`]).
pub fn pop_value(b: &mut Builder, tape: Val, ty: Ty, float_bits: bool) -> Val {
    let m = b.module();
    let bytes = Ty::int(m.context(), 64).int_const(m.alloc_size(ty));
    let slot = b.call_function(pop_helper(m), &[tape, bytes]);
    load_value(b, ty, slot, float_bits)
}

/// A zeroed tape for one gradient evaluation in `function`: the alloca goes at the top of the
/// entry block, the zeroing before `before`, where the builder is left.
pub fn new_tape(b: &mut Builder, function: Val, before: Val) -> Val {
    let tt = tape_type(b.module());
    match function.entry_block().first_instruction() {
        Some(first) => b.position_before(first),
        None => b.position_at_end(function.entry_block()),
    }
    let t = b.alloca(tt, "tape");
    let ctx = b.module().context();
    let stack = b.alloca(Ty::array(Ty::int(ctx, 8), STACK_CHUNK), "tape.stack");
    stack.set_alignment(16);
    b.position_before(before);
    b.store(tt.zero(), t, 8);
    let start = start_helper(b.module());
    b.call_function(start, &[t, stack]);
    t
}

/// Emits `umbra_tape_stats(bytes)`: the bytes `tape` holds (every chunk's used bytes, headers
/// included; not their capacity, which the pool's sizing hint may make up to twice as much),
/// for the user's statistics (`tape-stats`); emitted between the sweeps, where the tape is at
/// its peak.
pub fn report_stats(b: &mut Builder, tape: Val) {
    let m = b.module();
    let ctx = m.context();
    let i64t = Ty::int(ctx, 64);
    let bytes = b.call_function(held_helper(m), &[tape]);
    let hook = m.get_or_add_function(
        "umbra_tape_stats",
        Ty::function(Ty::void(ctx), &[i64t], false),
    );
    b.call_function(hook, &[bytes]);
}

/// Frees a tape's chunks once the adjoint sweep is done. Every push was popped by then, but
/// the chunks need not be down to the first: a pop leaves an emptied chunk in place until the
/// next pop, and when the first push did not fit the first chunk, that chunk stayed empty
/// behind the second, which is the one the last pop empties.
pub fn free_tape(b: &mut Builder, tape: Val) {
    let m = b.module();
    b.call_function(free_helper(m), &[tape]);
}

/// `void umbra.tape.free(ptr tape)`: frees the tape's chunks, from the current one back along
/// the previous-chunk links in their headers, except the stack chunk of [`start_helper`].
fn free_helper(m: Module) -> Val {
    const FREE: &str = "umbra.tape.free";
    if let Some(f) = m.function(FREE) {
        return f;
    }
    let ctx = m.context();
    let ptr = Ty::ptr(ctx);
    let f = m.add_function(FREE, Ty::function(Ty::void(ctx), &[ptr], false));
    f.set_internal();
    let tape = f.params()[0];
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let walk = f.append_block("walk");
    let some = f.append_block("some");
    let heap = f.append_block("heap");
    let next = f.append_block("next");
    let done = f.append_block("done");
    b.position_at_end(entry);
    let first = b.load(ptr, tape, 8);
    b.br(walk);
    b.position_at_end(walk);
    let chunk = b.phi(ptr);
    chunk.add_incoming(first, entry);
    let has = b.icmp(IntPred::LLVMIntNE, chunk, ptr.zero());
    b.cond_br(has, some, done);
    b.position_at_end(some);
    // The header's first field links to the chunk before (null for the first).
    let prev = b.load(ptr, chunk, 8);
    let stack = is_stack_chunk(&mut b, chunk);
    b.cond_br(stack, next, heap);
    b.position_at_end(heap);
    let free = pool::free_declaration(m);
    b.call_function(free, &[chunk]);
    b.br(next);
    b.position_at_end(next);
    chunk.add_incoming(prev, next);
    b.br(walk);
    b.position_at_end(done);
    b.ret_void();
    f
}
