//! The tape: one LIFO byte stack shared by every augmented forward sweep and adjoint sweep of
//! one gradient evaluation. The forward sweep pushes what the adjoint needs, in execution
//! order; the adjoint sweep pops in exactly the reverse order. Callees push onto the same tape,
//! so nested calls need no allocation of their own.
//!
//! The tape is `{ ptr data, i64 size, i64 capacity }`, grown with `realloc`. Its push and pop
//! helpers are ordinary internal IR functions (no runtime library), so a gradient can itself be
//! differentiated later (second order), and the optimiser inlines them.

use crate::ir::{Builder, IntPred, Module, Ty, Val};

/// Names of the helpers emitted into the module.
const PUSH: &str = "umbra.tape.push";
const POP: &str = "umbra.tape.pop";

/// The tape's LLVM type `{ ptr, i64, i64 }`.
pub fn tape_type(m: Module) -> Ty {
    let ctx = m.context();
    let i64t = Ty::int(ctx, 64);
    Ty::literal_struct(ctx, &[Ty::ptr(ctx), i64t, i64t])
}

/// `ptr umbra.tape.push(ptr tape, i64 bytes)`: reserves `bytes` and returns where to store.
pub fn push_helper(m: Module) -> Val {
    if let Some(f) = m.function(PUSH) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = m.add_function(PUSH, Ty::function(ptr, &[ptr, i64t], false));
    f.set_internal();
    let (tape, n) = (f.params()[0], f.params()[1]);
    let tt = tape_type(m);
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let grow = f.append_block("grow");
    let done = f.append_block("done");
    b.position_at_end(entry);
    let size_p = b.gep(
        tt,
        tape,
        &[i64t.int_const(0), Ty::int(ctx, 32).int_const(1)],
        true,
    );
    let cap_p = b.gep(
        tt,
        tape,
        &[i64t.int_const(0), Ty::int(ctx, 32).int_const(2)],
        true,
    );
    let size = b.load(i64t, size_p, 8);
    let cap = b.load(i64t, cap_p, 8);
    let new_size = b.add(size, n);
    let full = b.icmp(IntPred::LLVMIntUGT, new_size, cap);
    b.cond_br(full, grow, done);

    b.position_at_end(grow);
    let doubled = b.add(cap, cap);
    let at_least = b.add(new_size, i64t.int_const(4096));
    let bigger = b.icmp(IntPred::LLVMIntUGT, doubled, at_least);
    let new_cap = b.select(bigger, doubled, at_least);
    let data = b.load(ptr, tape, 8);
    let realloc = m.get_or_add_function("realloc", Ty::function(ptr, &[ptr, i64t], false));
    let new_data = b.call_function(realloc, &[data, new_cap]);
    b.store(new_data, tape, 8);
    b.store(new_cap, cap_p, 8);
    b.br(done);

    b.position_at_end(done);
    b.store(new_size, size_p, 8);
    let data = b.load(ptr, tape, 8);
    let slot = b.gep(Ty::int(ctx, 8), data, &[size], true);
    b.ret(slot);
    f
}

/// `ptr umbra.tape.pop(ptr tape, i64 bytes)`: releases the last `bytes` and returns them.
pub fn pop_helper(m: Module) -> Val {
    if let Some(f) = m.function(POP) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = m.add_function(POP, Ty::function(ptr, &[ptr, i64t], false));
    f.set_internal();
    let (tape, n) = (f.params()[0], f.params()[1]);
    let tt = tape_type(m);
    let mut b = Builder::new(m);
    b.position_at_end(f.append_block("entry"));
    let size_p = b.gep(
        tt,
        tape,
        &[i64t.int_const(0), Ty::int(ctx, 32).int_const(1)],
        true,
    );
    let size = b.load(i64t, size_p, 8);
    let new_size = b.sub(size, n);
    b.store(new_size, size_p, 8);
    let data = b.load(ptr, tape, 8);
    let slot = b.gep(Ty::int(ctx, 8), data, &[new_size], true);
    b.ret(slot);
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
    let tt = tape_type(m);
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let body = f.append_block("release");
    let done = f.append_block("done");
    b.position_at_end(entry);
    let size_p = b.gep(
        tt,
        list,
        &[i64t.int_const(0), Ty::int(ctx, 32).int_const(1)],
        true,
    );
    let size = b.load(i64t, size_p, 8);
    let empty = b.icmp(IntPred::LLVMIntEQ, size, i64t.zero());
    b.cond_br(empty, done, body);
    b.position_at_end(body);
    let dealloc = pop(&mut b, list, ptr);
    let p = pop(&mut b, list, ptr);
    let dealloc_ty = Ty::function(Ty::void(ctx), &[ptr], false);
    b.call(dealloc_ty, dealloc, &[p]);
    let left = b.load(i64t, size_p, 8);
    let more = b.icmp(IntPred::LLVMIntNE, left, i64t.zero());
    b.cond_br(more, body, done);
    b.position_at_end(done);
    free_tape(&mut b, list);
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
    b.load(ty, slot, 1)
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
    b.position_before(before);
    b.store(tt.zero(), t, 8);
    t
}

/// Emits `umbra_tape_stats(capacity)`: the bytes `tape` allocated (its capacity only grows, so
/// this is its peak), for the user's statistics (`tape-stats`).
pub fn report_stats(b: &mut Builder, tape: Val) {
    let m = b.module();
    let ctx = m.context();
    let i64t = Ty::int(ctx, 64);
    let cap_p = b.gep(
        tape_type(m),
        tape,
        &[i64t.int_const(0), Ty::int(ctx, 32).int_const(2)],
        true,
    );
    let cap = b.load(i64t, cap_p, 8);
    let hook = m.get_or_add_function(
        "umbra_tape_stats",
        Ty::function(Ty::void(ctx), &[i64t], false),
    );
    b.call_function(hook, &[cap]);
}

/// Frees a tape's buffer once the adjoint sweep is done.
pub fn free_tape(b: &mut Builder, tape: Val) {
    let m = b.module();
    let ctx = m.context();
    let ptr = Ty::ptr(ctx);
    let data = b.load(ptr, tape, 8);
    let free = m.get_or_add_function("free", Ty::function(Ty::void(ctx), &[ptr], false));
    b.call_function(free, &[data]);
}
