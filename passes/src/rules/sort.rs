//! Sorting: C's `qsort(base, n, size, compare)` on differentiable data.
//!
//! A sort is a permutation of whole elements, so its derivative is the same permutation of the
//! elements' shadows: tangents in forward mode; in reverse mode the shadows of pointers move
//! with their elements in the augmented sweep, and the adjoint sweep moves every shadow element
//! back (the inverse permutation carries the adjoints gathered since to where the elements came
//! from). Element bytes move whole, whatever their type (doubles, records with pointers).
//!
//! Guarantee: primal and shadow go through one permutation. The library's `qsort` is not
//! stable, and elements that compare equal but differ (records tied on their key) could land
//! in another order than a second sort of the shadow would give; so the rule replaces the call
//! by its own sort: it orders the element indices with glibc's `qsort_r`, calling the user's
//! comparison on the unsorted elements and breaking ties by index (a stable sort), then applies
//! that order to the elements and to their shadows. The result is a valid `qsort` result (the
//! elements in the comparison's order); only the order among equal elements may differ from
//! the library's own, which C leaves unspecified.
//!
//! The helpers are plain IR. The order (`umbra.index.qsort.order`, which calls `qsort_r`) is
//! integer bookkeeping: when derived code is differentiated again (forward over reverse) it
//! runs in the primal only, and the permutations (`umbra.qsort.gather`/`scatter`, byte copies)
//! are differentiated like any code.

use super::calls::{
    AdjointCall, ArgAdjoints, ArgNeeds, AugmentCall, Augmented, CustomNeeds, CustomReverse,
    ForwardCall, ForwardRule,
};
use super::inactive::INDEX_PREFIX;
use super::rule::{Area, Effects, Reverse, Rule, RuleKind};
use crate::diag::{Error, Result};
use crate::ir::{Builder, IntPred, Module, Opcode, Ty, Val};

/// The sorting rules.
pub static RULES: &[Rule] = &[Rule {
    name: "qsort",
    aliases: &[],
    libm_variants: false,
    area: Area::Sort,
    kind: RuleKind::Forward(qsort_forward as ForwardRule, Reverse::Custom(&QSORT)),
    effects: Effects::READS_WRITES,
}];

/// The augmented sweep sorts and saves the order; the adjoint sweep moves the shadow elements
/// back with it (it needs `n` and `size`, and the shadow of `base`).
static QSORT: CustomReverse = CustomReverse {
    augment: qsort_augment,
    adjoint: qsort_adjoint,
    needs: CustomNeeds {
        args: ArgNeeds::Positions(&[1, 2]),
        result: false,
        saved: true,
        shadows_only: ArgNeeds::Positions(&[0]),
    },
};

/// Forward mode: the primal call is replaced by the ordered permutation of the elements and
/// of their tangents.
fn qsort_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let [base, n, size, compare] = qsort_args(c.src, &c.args)?;
    let after = c.call.next_instruction();
    c.b.position_before(c.call);
    let order = sort_order(c.b, base, n, size, compare);
    permute(c.b, Direction::Gather, base, order, n, size);
    if let Some(t) = c.tangents[0] {
        permute(c.b, Direction::Gather, t, order, n, size);
    }
    free(c.b, order);
    c.call.erase();
    match after {
        Some(next) => c.b.position_before(next),
        None => {
            let block = c.b.current_block();
            c.b.position_at_end(block)
        }
    }
    Ok(None)
}

fn qsort_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let [base, n, size, compare] = qsort_args(c.src, &c.args)?;
    let order = sort_order(c.b, base, n, size, compare);
    permute(c.b, Direction::Gather, base, order, n, size);
    if let Some(s) = c.shadows[0] {
        permute(c.b, Direction::Gather, s, order, n, size);
    }
    // Saved as an integer: the order is integer data with no shadow, and a pointer on the tape
    // would need one when the gradient is differentiated again.
    let i64t = Ty::int(c.b.module().context(), 64);
    let saved = c.b.cast(Opcode::LLVMPtrToInt, order, i64t);
    Ok(Augmented {
        result: None,
        shadow: None,
        saved: Some(saved),
    })
}

fn qsort_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let Some(saved) = c.saved else {
        return Err(Error::at(
            c.src,
            "internal error: qsort's order was not saved",
        ));
    };
    let order =
        c.b.cast(Opcode::LLVMIntToPtr, saved, Ty::ptr(saved.ty().context()));
    if let Some(s) = c.shadows[0] {
        permute(c.b, Direction::Scatter, s, order, c.args[1], c.args[2]);
    }
    free(c.b, order);
    Ok(Vec::new())
}

/// `qsort`'s four arguments, checked against its C signature.
fn qsort_args(src: Val, args: &[Val]) -> Result<[Val; 4]> {
    match args {
        &[base, n, size, compare]
            if base.ty().is_ptr()
                && n.ty().is_int()
                && n.ty().int_width() == 64
                && size.ty().is_int()
                && size.ty().int_width() == 64
                && compare.ty().is_ptr() =>
        {
            Ok([base, n, size, compare])
        }
        _ => Err(Error::at(
            src,
            "'qsort' is called with arguments that are not (void *, size_t, size_t, comparison)",
        )),
    }
}

/// `umbra.index.qsort.order(base, n, size, compare)`: a fresh array of the `n` element indices in
/// sorted order (released with `free`).
fn sort_order(b: &mut Builder, base: Val, n: Val, size: Val, compare: Val) -> Val {
    let f = order_helper(b.module());
    b.call_function(f, &[base, n, size, compare])
}

fn free(b: &mut Builder, p: Val) {
    let m = b.module();
    let ctx = m.context();
    let f = m.get_or_add_function("free", Ty::function(Ty::void(ctx), &[Ty::ptr(ctx)], false));
    b.call_function(f, &[p]);
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// `data[i] = old[order[i]]`: what the sort does.
    Gather,
    /// `data[order[i]] = old[i]`: its inverse.
    Scatter,
}

fn permute(b: &mut Builder, dir: Direction, data: Val, order: Val, n: Val, size: Val) {
    let f = permute_helper(b.module(), dir);
    b.call_function(f, &[data, order, n, size]);
}

/// `i32 umbra.index.qsort.compare(ptr a, ptr b, ptr ctx)`, `ctx = {base, size, compare}`: the user's
/// comparison of the elements at the indices `*a` and `*b`, ties broken by index.
fn compare_helper(m: Module) -> Val {
    let name = format!("{INDEX_PREFIX}qsort.compare");
    if let Some(f) = m.function(&name) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i8t, i32t, i64t) = (
        Ty::ptr(ctx),
        Ty::int(ctx, 8),
        Ty::int(ctx, 32),
        Ty::int(ctx, 64),
    );
    let f = m.add_function(&name, Ty::function(i32t, &[ptr, ptr, ptr], false));
    f.set_internal();
    let [pa, pb, env] = [f.params()[0], f.params()[1], f.params()[2]];
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    b.position_at_end(entry);
    let base = b.load(ptr, env, 0);
    let size_at = b.gep(i8t, env, &[i64t.int_const(8)], true);
    let size = b.load(i64t, size_at, 0);
    let cmp_at = b.gep(i8t, env, &[i64t.int_const(16)], true);
    let cmp = b.load(ptr, cmp_at, 0);
    let ia = b.load(i64t, pa, 0);
    let ib = b.load(i64t, pb, 0);
    let oa = b.mul(ia, size);
    let ob = b.mul(ib, size);
    let ea = b.gep(i8t, base, &[oa], true);
    let eb = b.gep(i8t, base, &[ob], true);
    let r = b.call(Ty::function(i32t, &[ptr, ptr], false), cmp, &[ea, eb]);
    let lt = b.icmp(IntPred::LLVMIntULT, ia, ib);
    let by_index = b.select(lt, i32t.int_const(-1i64 as u64), i32t.int_const(1));
    let tie = b.icmp(IntPred::LLVMIntEQ, r, i32t.zero());
    let out = b.select(tie, by_index, r);
    b.ret(out);
    f
}

/// `ptr umbra.index.qsort.order(ptr base, i64 n, i64 size, ptr compare)`.
fn order_helper(m: Module) -> Val {
    let name = format!("{INDEX_PREFIX}qsort.order");
    if let Some(f) = m.function(&name) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i8t, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 8), Ty::int(ctx, 64));
    let f = m.add_function(&name, Ty::function(ptr, &[ptr, i64t, i64t, ptr], false));
    f.set_internal();
    let [base, n, size, compare] = [f.params()[0], f.params()[1], f.params()[2], f.params()[3]];
    let malloc = m.get_or_add_function("malloc", Ty::function(ptr, &[i64t], false));
    let qsort_r = m.get_or_add_function(
        "qsort_r",
        Ty::function(Ty::void(ctx), &[ptr, i64t, i64t, ptr, ptr], false),
    );
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let body = f.append_block("fill");
    let sort = f.append_block("sort");
    b.position_at_end(entry);
    let env = b.alloca(Ty::array(i8t, 24), "env");
    b.store(base, env, 0);
    let size_at = b.gep(i8t, env, &[i64t.int_const(8)], true);
    b.store(size, size_at, 0);
    let cmp_at = b.gep(i8t, env, &[i64t.int_const(16)], true);
    b.store(compare, cmp_at, 0);
    // malloc(0) may return null; one slot more keeps the order a real block to free.
    let count = b.add(n, i64t.int_const(1));
    let bytes = b.mul(count, i64t.int_const(8));
    let order = b.call_function(malloc, &[bytes]);
    let empty = b.icmp(IntPred::LLVMIntEQ, n, i64t.zero());
    b.cond_br(empty, sort, body);
    b.position_at_end(body);
    let i = b.phi(i64t);
    let at = b.gep(i64t, order, &[i], true);
    b.store(i, at, 0);
    let next = b.add(i, i64t.int_const(1));
    let done = b.icmp(IntPred::LLVMIntEQ, next, n);
    b.cond_br(done, sort, body);
    i.add_incoming(i64t.zero(), entry);
    i.add_incoming(next, body);
    b.position_at_end(sort);
    let cmp = compare_helper(m);
    b.call_function(qsort_r, &[order, n, i64t.int_const(8), cmp, env]);
    b.ret(order);
    f
}

/// `void umbra.qsort.{gather,scatter}(ptr data, ptr order, i64 n, i64 size)`: moves the `n`
/// elements of `size` bytes through a scratch copy.
fn permute_helper(m: Module, dir: Direction) -> Val {
    let name = match dir {
        Direction::Gather => "umbra.qsort.gather",
        Direction::Scatter => "umbra.qsort.scatter",
    };
    if let Some(f) = m.function(name) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i8t, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 8), Ty::int(ctx, 64));
    let f = m.add_function(
        name,
        Ty::function(Ty::void(ctx), &[ptr, ptr, i64t, i64t], false),
    );
    f.set_internal();
    let [data, order, n, size] = [f.params()[0], f.params()[1], f.params()[2], f.params()[3]];
    let malloc = m.get_or_add_function("malloc", Ty::function(ptr, &[i64t], false));
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let body = f.append_block("move");
    let back = f.append_block("back");
    let done = f.append_block("done");
    b.position_at_end(entry);
    let empty = b.icmp(IntPred::LLVMIntEQ, n, i64t.zero());
    b.cond_br(empty, done, body);
    b.position_at_end(body);
    let total = b.mul(n, size);
    let scratch = b.call_function(malloc, &[total]);
    let lp = f.append_block("loop");
    b.br(lp);
    b.position_at_end(lp);
    let i = b.phi(i64t);
    let k_at = b.gep(i64t, order, &[i], true);
    let k = b.load(i64t, k_at, 0);
    let (from, to) = match dir {
        Direction::Gather => (k, i),
        Direction::Scatter => (i, k),
    };
    let from_off = b.mul(from, size);
    let to_off = b.mul(to, size);
    let src = b.gep(i8t, data, &[from_off], true);
    let dst = b.gep(i8t, scratch, &[to_off], true);
    b.memcpy(dst, 1, src, 1, size);
    let next = b.add(i, i64t.int_const(1));
    let finished = b.icmp(IntPred::LLVMIntEQ, next, n);
    b.cond_br(finished, back, lp);
    i.add_incoming(i64t.zero(), body);
    i.add_incoming(next, lp);
    b.position_at_end(back);
    b.memcpy(data, 1, scratch, 1, total);
    let free = m.get_or_add_function("free", Ty::function(Ty::void(ctx), &[ptr], false));
    b.call_function(free, &[scratch]);
    b.br(done);
    b.position_at_end(done);
    b.ret_void();
    f
}
