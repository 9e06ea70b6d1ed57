//! What the forward sweep owns when an exception cuts it short (reverse mode).
//!
//! If an exception unwinds through a gradient's augmented forward sweep, no adjoint runs
//! ([`crate::unwind`]), so nothing pops the tape or releases the shadow blocks the sweep
//! allocated (the adjoint releases those as it passes their allocations, [`crate::rules::alloc`]),
//! nor the primal blocks whose frees the sweep deferred to the adjoint. The primal's own cleanup
//! runs in the derived landing pads, but in reverse mode it frees primal blocks only. So:
//!
//! - every sweep that gets a tape from outside derived code (a gradient request, a split-mode
//!   `__enzyme_augmentfwd`) calls the augmented function through a *guard*,
//!   `umbra.guard.<aug>` ([`guarded`]), with the same signature: it installs a fresh list of
//!   owned blocks, invokes the sweep, and on the normal path drops the list (the adjoint will
//!   release the blocks). If the sweep unwinds, the guard's landing pad releases every listed
//!   block with its deallocator, frees every chunk of the tape ([`tape::discard_helper`]), and
//!   resumes the exception;
//! - the augmented sweep, wherever it runs (callees at any depth included), records on the list
//!   ([`record`]) each block it leaves for the adjoint to free: shadow allocations (of heap
//!   blocks and of stack variables), primal blocks whose free it deferred, the BLAS rules' saved
//!   buffers, an OpenMP region's per-thread tapes. An entry is the block, a thunk that calls the
//!   right deallocator, and up to two extra deallocator arguments (an alignment, a size).
//!
//! A single list per gradient evaluation, rather than a landing pad in every derived function:
//! a shadow block may outlive the function that allocated it (returned, stored in an object)
//! and an exception thrown later in the caller must still release it; and blocks allocated in
//! loops are known only to the tape. The list is found through a thread-local pointer
//! (`umbra.unwind.owned`) rather than the tape, because the tape's layout is fixed by split
//! mode (its 32-byte header) and the OpenMP per-thread tapes; the guard saves and restores the
//! pointer, so gradients evaluated inside a differentiated function (nested requests, split
//! sweeps) keep lists of their own. A sweep run with no guard around it (an OpenMP worker
//! thread) finds no list and records nothing.
//!
//! Costs and limits: nothing at all is emitted in a module without exception handling (no
//! function has a personality: C, `-fno-exceptions`). Otherwise each recorded block costs 32
//! bytes on the list. Blocks allocated by worker threads of an OpenMP region and by
//! user-registered augmented functions are not recorded. The bookkeeping
//! helpers (`umbra.unwind.*`) are inactive when derived code is differentiated again: an outer
//! gradient releases the inner gradient's blocks, not their outer shadows.

use crate::ir::{Builder, IntPred, Module, Opcode, Ty, Val};
use crate::tape;

/// The name prefix of Umbra's own bookkeeping helpers, which carry no derivative when derived
/// code is differentiated again (the record of what an exception must release): their calls
/// run in the primal only ([`crate::rules::inactive`] makes them inactive).
pub const BOOKKEEPING_PREFIX: &str = "umbra.unwind.";

/// The name prefix of guards ([`guarded`]); not bookkeeping: nested gradients differentiate
/// the sweep inside.
pub const GUARD_PREFIX: &str = "umbra.guard.";

/// Bytes per entry on the list: block, thunk, two extra arguments.
const ENTRY: u64 = 32;

/// `@umbra.unwind.owned`: the current thread's list of owned blocks (a tape-shaped
/// `{ptr, i64, i64}` in a guard's frame), null outside any guard.
fn owned_global(m: Module) -> Val {
    let name = format!("{BOOKKEEPING_PREFIX}owned");
    if let Some(g) = m.global(&name) {
        return g;
    }
    let ptr = Ty::ptr(m.context());
    let g = m.add_global(ptr, &name);
    g.set_initializer(ptr.zero());
    g.set_internal();
    g.set_thread_local();
    g.set_alignment(8);
    g
}

/// Emits, at the builder's position in an augmented sweep, the recording of `block` (a shadow
/// the sweep allocated, or a primal block whose free it deferred), to be released with
/// `dealloc(block, extras...)` if an exception unwinds through the sweep. Nothing when the
/// module has no exception handling, or when `dealloc`'s signature is not `(ptr, [up to two
/// integers or pointers])` (no deallocator has another).
pub fn record(b: &mut Builder, block: Val, dealloc: Val, extras: &[Val]) {
    let m = b.module();
    // As the session decides for guards (`Session::personality`).
    if !m.functions().into_iter().any(|f| f.personality().is_some()) {
        return;
    }
    let Some(thunk) = release_thunk(m, dealloc) else {
        return;
    };
    let i64t = Ty::int(m.context(), 64);
    let mut words = Vec::new();
    for &x in extras.iter().take(2) {
        words.push(if x.ty().is_ptr() {
            b.cast(Opcode::LLVMPtrToInt, x, i64t)
        } else {
            b.zext_or_trunc(x, i64t)
        });
    }
    words.resize(2, i64t.zero());
    b.call_function(own_helper(m), &[block, thunk, words[0], words[1]]);
}

/// `void umbra.unwind.own(ptr block, ptr thunk, i64 x, i64 y)`: appends the entry to the
/// current thread's list, if there is one.
fn own_helper(m: Module) -> Val {
    let name = format!("{BOOKKEEPING_PREFIX}own");
    if let Some(f) = m.function(&name) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = m.add_function(
        &name,
        Ty::function(Ty::void(ctx), &[ptr, ptr, i64t, i64t], false),
    );
    f.set_internal();
    let p = f.params();
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let push = f.append_block("push");
    let done = f.append_block("done");
    b.position_at_end(entry);
    let list = b.load(ptr, owned_global(m), 8);
    let some = b.icmp(IntPred::LLVMIntNE, list, ptr.zero());
    b.cond_br(some, push, done);
    b.position_at_end(push);
    let slot = tape::push_bytes(&mut b, list, ENTRY);
    for (k, &v) in p.iter().enumerate() {
        let at = tape::at_offset(&mut b, slot, 8 * k as u64);
        b.store(v, at, 8);
    }
    b.br(done);
    b.position_at_end(done);
    b.ret_void();
    f
}

/// `void umbra.unwind.release.<dealloc>(ptr block, i64 x, i64 y)`: `dealloc(block, x, y)` with
/// as many of `x`, `y` as `dealloc` takes, converted to its parameter types. One signature for
/// every deallocator, so the list's indirect calls match their callees exactly.
fn release_thunk(m: Module, dealloc: Val) -> Option<Val> {
    let params = dealloc.function_type().param_types();
    let fits = |t: &Ty| t.is_int() || t.is_ptr();
    if params.is_empty() || !params[0].is_ptr() || params.len() > 3 || !params.iter().all(fits) {
        return None;
    }
    let name = format!("{BOOKKEEPING_PREFIX}release.{}", dealloc.name());
    if let Some(f) = m.function(&name) {
        return Some(f);
    }
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = m.add_function(
        &name,
        Ty::function(Ty::void(ctx), &[ptr, i64t, i64t], false),
    );
    f.set_internal();
    let p = f.params();
    let mut b = Builder::new(m);
    b.position_at_end(f.append_block("entry"));
    let mut args = vec![p[0]];
    for (k, &t) in params.iter().enumerate().skip(1) {
        args.push(if t.is_ptr() {
            b.cast(Opcode::LLVMIntToPtr, p[k], t)
        } else {
            b.zext_or_trunc(p[k], t)
        });
    }
    b.call_function(dealloc, &args);
    b.ret_void();
    Some(f)
}

/// `void umbra.unwind.release(ptr list)`: calls every entry's thunk, the last recorded first,
/// then frees the list's chunks.
fn release_helper(m: Module) -> Val {
    let name = format!("{BOOKKEEPING_PREFIX}release");
    if let Some(f) = m.function(&name) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = m.add_function(&name, Ty::function(Ty::void(ctx), &[ptr], false));
    f.set_internal();
    let list = f.params()[0];
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let body = f.append_block("release");
    let first = f.append_block("first");
    let done = f.append_block("done");
    b.position_at_end(entry);
    // No chunk: nothing was ever recorded.
    let data = b.load(ptr, list, 8);
    let none = b.icmp(IntPred::LLVMIntEQ, data, ptr.zero());
    b.cond_br(none, done, body);
    b.position_at_end(body);
    let slot = tape::pop_bytes(&mut b, list, ENTRY);
    let word = |b: &mut Builder, k: u64, ty: Ty| {
        let at = tape::at_offset(b, slot, 8 * k);
        b.load(ty, at, 8)
    };
    let block = word(&mut b, 0, ptr);
    let thunk = word(&mut b, 1, ptr);
    let x = word(&mut b, 2, i64t);
    let y = word(&mut b, 3, i64t);
    let thunk_ty = Ty::function(Ty::void(ctx), &[ptr, i64t, i64t], false);
    b.call(thunk_ty, thunk, &[block, x, y]);
    // The current chunk is empty: go on in the previous one (the next pop moves there), or
    // stop at the first.
    let size_p = b.gep(
        tape::tape_type(m),
        list,
        &[i64t.zero(), Ty::int(ctx, 32).int_const(1)],
        true,
    );
    let size = b.load(i64t, size_p, 8);
    let at_start = b.icmp(IntPred::LLVMIntEQ, size, i64t.int_const(tape::HEADER));
    b.cond_br(at_start, first, body);
    b.position_at_end(first);
    let chunk = b.load(ptr, list, 8);
    let prev = b.load(ptr, chunk, 8);
    let more = b.icmp(IntPred::LLVMIntNE, prev, ptr.zero());
    b.cond_br(more, body, done);
    b.position_at_end(done);
    b.call_function(tape::discard_helper(m), &[list]);
    b.ret_void();
    f
}

/// The guard of augmented sweep `aug` (see the module documentation): same signature, the
/// tape first. With `frees_tape`, the unwinding path also frees the tape's header itself (a
/// split-mode header on the heap, which the caller never sees when the sweep throws). `aug`
/// itself when the module has no exception handling.
pub fn guarded(m: Module, module_personality: Option<Val>, aug: Val, frees_tape: bool) -> Val {
    let Some(personality) = aug.personality().or(module_personality) else {
        return aug;
    };
    let name = format!(
        "{GUARD_PREFIX}{}{}",
        aug.name(),
        if frees_tape { ".heap" } else { "" }
    );
    if let Some(f) = m.function(&name) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i32t) = (Ty::ptr(ctx), Ty::int(ctx, 32));
    let fty = aug.function_type();
    let f = m.add_function(&name, fty);
    f.set_internal();
    f.set_personality(personality);
    f.copy_string_fn_attrs(aug, &["target-cpu", "target-features"]);
    let params = f.params();
    let tape_ptr = params[0];
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let ok = f.append_block("ok");
    let unwind = f.append_block("unwind");
    b.position_at_end(entry);
    let tt = tape::tape_type(m);
    let list = b.alloca(tt, "owned");
    b.store(tt.zero(), list, 8);
    let global = owned_global(m);
    let outer = b.load(ptr, global, 8);
    b.store(list, global, 8);
    let r = b.invoke(fty, aug, &params, ok, unwind);

    // The adjoint releases the blocks: only the record goes.
    b.position_at_end(ok);
    b.store(outer, global, 8);
    let discard = tape::discard_helper(m);
    b.call_function(discard, &[list]);
    if fty.return_type().is_void() {
        b.ret_void();
    } else {
        b.ret(r);
    }

    b.position_at_end(unwind);
    let lp_ty = Ty::literal_struct(ctx, &[ptr, i32t]);
    let lp = b.landing_pad_cleanup(lp_ty, personality);
    b.store(outer, global, 8);
    b.call_function(release_helper(m), &[list]);
    b.call_function(discard, &[tape_ptr]);
    if frees_tape {
        let free = m.get_or_add_function("free", Ty::function(Ty::void(ctx), &[ptr], false));
        b.call_function(free, &[tape_ptr]);
    }
    b.resume(lp);
    f
}
