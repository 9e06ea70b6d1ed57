//! libstdc++'s red-black trees (`std::map`, `std::set`, `std::multimap`, `std::multiset`): the
//! four out-of-line functions of `src/c++98/tree.cc` that the inline templates call, which live
//! in `libstdc++.so` and so have no body in the module.
//!
//! The shadow of a tree is a tree of shadow nodes of the same shape: every node comes from
//! `operator new` (whose shadow is a fresh node) and every pointer stored into the tree by the
//! inline code is mirrored into the shadow tree by the ordinary store rules. What the inline
//! code does not do itself, linking a new node in and rebalancing (`_Rb_tree_insert_and_rebalance`),
//! unlinking one (`_Rb_tree_rebalance_for_erase`) and stepping an iterator
//! (`_Rb_tree_increment`/`_Rb_tree_decrement`), these rules do on the shadow tree by calling the
//! same function on the shadow pointers. None of them moves a float, so there is no adjoint
//! work: in reverse mode the augmented sweep does the same as forward mode, and the pointers
//! the adjoint sweep needs are the primals' and shadows' saved or re-derived like any other.
//!
//! Colours: the rebalancing decisions depend on node colours, which are integers, and integer
//! stores are not mirrored into shadow memory (a copied tree's shadow, built by the inline
//! `_M_copy` storing colours, keeps zero colours). So before each call that reads colours,
//! the colours it may read are copied from the primal tree into the shadow tree, walking both
//! in lockstep (`umbra.rbtree.sync_*`): for an insertion, the path from the new node's parent
//! to the root and the siblings of its nodes (the "uncles" the fix-up reads); for an erasure,
//! the node that is unlinked (the erased node or its successor) and its children, the path
//! above it, and the siblings of the path's nodes two levels down (the fix-up's rotations
//! bring a sibling's children and grandchildren next to the path); for `_Rb_tree_decrement`,
//! the node itself (a red node whose grandparent is itself is the header). With equal colours
//! the shadow call makes the same decisions as the primal one, so the two trees keep one shape.
//!
//! Layout (`_Rb_tree_node_base`): the colour (an `int` enum) at offset 0, then the parent, left
//! and right pointers, one pointer size apart starting at one pointer size.

use super::calls::{
    AdjointCall, ArgAdjoints, ArgNeeds, AugmentCall, Augmented, CustomNeeds, CustomReverse,
    ForwardCall, ForwardRule,
};
use super::rule::{Area, Effects, Reverse, Rule, RuleKind};
use crate::diag::{Error, Result};
use crate::ir::{Builder, IntPred, Module, Ty, Val};

macro_rules! tree {
    ($name:literal, [$($alias:literal),*], $fwd:expr, $effects:expr) => {
        Rule {
            name: $name,
            aliases: &[$($alias),*],
            libm_variants: false,
            area: Area::Tree,
            kind: RuleKind::Forward($fwd as ForwardRule, Reverse::Custom(&SAME_ON_SHADOW)),
            effects: $effects,
        }
    };
}

/// The red-black tree rules: named as in C++, matched by their Itanium-mangled names (both
/// overloads of the iterator steps).
pub static RULES: &[Rule] = &[
    tree!(
        "std::_Rb_tree_insert_and_rebalance",
        ["_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_"],
        insert_forward,
        Effects::READS_WRITES
    ),
    tree!(
        "std::_Rb_tree_rebalance_for_erase",
        ["_ZSt28_Rb_tree_rebalance_for_erasePSt18_Rb_tree_node_baseRS_"],
        erase_forward,
        Effects::READS_WRITES
    ),
    tree!(
        "std::_Rb_tree_increment",
        [
            "_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base",
            "_ZSt18_Rb_tree_incrementPKSt18_Rb_tree_node_base"
        ],
        increment_forward,
        Effects::READS
    ),
    tree!(
        "std::_Rb_tree_decrement",
        [
            "_ZSt18_Rb_tree_decrementPSt18_Rb_tree_node_base",
            "_ZSt18_Rb_tree_decrementPKSt18_Rb_tree_node_base"
        ],
        decrement_forward,
        Effects::READS
    ),
];

/// Reverse mode: the augmented sweep runs the primal call and the forward half on the shadows;
/// nothing moves floats, so the adjoint sweep has nothing to do and nothing is taped.
pub(super) static SAME_ON_SHADOW: CustomReverse = CustomReverse {
    augment: same_on_shadow_augment,
    adjoint: no_adjoint,
    needs: CustomNeeds {
        args: ArgNeeds::None,
        result: false,
        saved: false,
        shadows_only: ArgNeeds::None,
    },
};

fn same_on_shadow_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let call = c.primal_call();
    let shadow = c.forward_shadow(call)?;
    Ok(Augmented {
        result: (!call.ty().is_void()).then_some(call),
        shadow,
        saved: None,
    })
}

fn no_adjoint(_: &mut AdjointCall) -> Result<ArgAdjoints> {
    Ok(Vec::new())
}

/// `_Rb_tree_insert_and_rebalance(bool left, node *x, node *p, node &header)`: the same call on
/// the shadows of `x`, `p` and `header`, after syncing the colours it reads. Both are emitted
/// before the primal call, which changes the primal colours.
fn insert_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let [left, _, p, header] = pointer_args::<4>(c, &[1, 2, 3])?;
    let Some(s) = shadows(
        c,
        &[1, 2, 3],
        "the new node, its parent and the tree's header",
        "std::map/std::set",
    )?
    else {
        return Ok(None);
    };
    let f = callee(c)?;
    before_call(c, |b| {
        let sync = sync_path_helper(b.module());
        let depth = Ty::int(b.module().context(), 32).int_const(0);
        b.call_function(sync, &[p, s[1], header, depth]);
        b.call_function(f, &[left, s[0], s[1], s[2]]);
    });
    Ok(None)
}

/// `_Rb_tree_rebalance_for_erase(node *z, node &header)`: the same call on the shadows, after
/// syncing the colours it reads; its result (the node to free) has the shadow result.
fn erase_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let [z, header] = pointer_args::<2>(c, &[0, 1])?;
    let Some(s) = shadows(
        c,
        &[0, 1],
        "the erased node and the tree's header",
        "std::map/std::set",
    )?
    else {
        return Ok(None);
    };
    let f = callee(c)?;
    let mut out = None;
    before_call(c, |b| {
        let sync = sync_erase_helper(b.module());
        b.call_function(sync, &[z, s[0], header]);
        out = Some(b.call_function(f, &[s[0], s[1]]));
    });
    Ok(out)
}

/// `_Rb_tree_increment(node *x)`: reads no colours; the shadow of the result is the call on the
/// shadow of `x`.
fn increment_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    pointer_args::<1>(c, &[0])?;
    let Some(s) = c.tangents[0] else {
        return Ok(None);
    };
    let f = callee(c)?;
    Ok(Some(c.b.call_function(f, &[s])))
}

/// `_Rb_tree_decrement(node *x)`: reads the colour of `x` (to recognise the header), so that
/// colour is copied first.
fn decrement_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let [x] = pointer_args::<1>(c, &[0])?;
    let Some(s) = c.tangents[0] else {
        return Ok(None);
    };
    let f = callee(c)?;
    let i32t = Ty::int(c.b.module().context(), 32);
    let colour = c.b.load(i32t, x, 4);
    c.b.store(colour, s, 4);
    Ok(Some(c.b.call_function(f, &[s])))
}

/// The call's `N` arguments, checked: those at `ptrs` are pointers, any other is the `bool`.
fn pointer_args<const N: usize>(c: &ForwardCall, ptrs: &[usize]) -> Result<[Val; N]> {
    let ok = c.args.len() == N
        && c.args.iter().enumerate().all(|(k, a)| {
            if ptrs.contains(&k) {
                a.ty().is_ptr()
            } else {
                a.ty().is_int()
            }
        });
    if !ok {
        return Err(Error::at(
            c.src,
            "a call to libstdc++'s red-black tree function does not have the arguments of its declaration in <bits/stl_tree.h>",
        ));
    }
    let mut out = [c.args[0]; N];
    out.copy_from_slice(&c.args);
    Ok(out)
}

/// The shadows of the pointer arguments at `ptrs`: all of them, or `None` when none has one
/// (the tree carries no derivatives). Some but not all is an error: the shadow tree could not
/// follow the primal one.
pub(super) fn shadows(
    c: &ForwardCall,
    ptrs: &[usize],
    what: &str,
    container: &str,
) -> Result<Option<Vec<Val>>> {
    let got: Vec<Option<Val>> = ptrs.iter().map(|&k| c.tangents[k]).collect();
    if got.iter().all(Option::is_none) {
        return Ok(None);
    }
    if got.iter().any(Option::is_none) {
        let name = c
            .call
            .called_function()
            .map(|f| f.name())
            .unwrap_or_default();
        return Err(Error::at(
            c.src,
            format!(
                "cannot differentiate the call to '{name}': of {what}, some have a shadow and some do not, so the shadow {container} cannot follow the primal one (is the {container} in a global or in memory passed as const?)"
            ),
        ));
    }
    Ok(Some(got.into_iter().flatten().collect()))
}

pub(super) fn callee(c: &ForwardCall) -> Result<Val> {
    c.call.called_function().ok_or_else(|| {
        Error::at(
            c.src,
            "internal error: a container rule at an indirect call",
        )
    })
}

/// Runs `emit` positioned before the primal call, then continues after it.
fn before_call(c: &mut ForwardCall, emit: impl FnOnce(&mut Builder)) {
    let after = c.call.next_instruction();
    let block = c.b.current_block();
    c.b.position_before(c.call);
    emit(c.b);
    match after {
        Some(next) => c.b.position_before(next),
        None => c.b.position_at_end(block),
    }
}

/// Pointer size and the offsets of `_M_parent`, `_M_left`, `_M_right`.
fn offsets(m: Module) -> (Ty, [u64; 3]) {
    let ptr = Ty::ptr(m.context());
    let p = m.store_size(ptr);
    (ptr, [p, 2 * p, 3 * p])
}

/// A field of a node: `*(ptr *)(n + off)`.
fn field(b: &mut Builder, n: Val, off: u64) -> Val {
    let ctx = b.module().context();
    let (i8t, i64t) = (Ty::int(ctx, 8), Ty::int(ctx, 64));
    let at = b.gep(i8t, n, &[i64t.int_const(off)], true);
    b.load(Ty::ptr(ctx), at, 0)
}

/// `void umbra.rbtree.sync_down(ptr n, ptr s, i32 depth)`: copies the colour of node `n` to its
/// shadow `s`, and of their descendants `depth` levels down; stops at null.
fn sync_down_helper(m: Module) -> Val {
    let name = "umbra.rbtree.sync_down";
    if let Some(f) = m.function(name) {
        return f;
    }
    let ctx = m.context();
    let (ptr, [_, left, right]) = offsets(m);
    let i32t = Ty::int(ctx, 32);
    let f = m.add_function(name, Ty::function(Ty::void(ctx), &[ptr, ptr, i32t], false));
    f.set_internal();
    let [n, s, depth] = [f.params()[0], f.params()[1], f.params()[2]];
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let copy = f.append_block("copy");
    let down = f.append_block("down");
    let done = f.append_block("done");
    b.position_at_end(entry);
    let n_null = b.icmp(IntPred::LLVMIntEQ, n, ptr.zero());
    let s_null = b.icmp(IntPred::LLVMIntEQ, s, ptr.zero());
    let either = b.binop(crate::ir::Opcode::LLVMOr, n_null, s_null);
    b.cond_br(either, done, copy);
    b.position_at_end(copy);
    let colour = b.load(i32t, n, 4);
    b.store(colour, s, 4);
    let more = b.icmp(IntPred::LLVMIntSGT, depth, i32t.zero());
    b.cond_br(more, down, done);
    b.position_at_end(down);
    let next = b.sub(depth, i32t.int_const(1));
    for off in [left, right] {
        let nc = field(&mut b, n, off);
        let sc = field(&mut b, s, off);
        b.call_function(f, &[nc, sc, next]);
    }
    b.br(done);
    b.position_at_end(done);
    b.ret_void();
    f
}

/// `void umbra.rbtree.sync_path(ptr n, ptr s, ptr header, i32 depth)`: walks from node `n` (and
/// its shadow `s`) up to the header, copying the colour of each node on the way and of its
/// sibling's subtree `depth` levels down ([`sync_down_helper`]), and the header's.
fn sync_path_helper(m: Module) -> Val {
    let name = "umbra.rbtree.sync_path";
    if let Some(f) = m.function(name) {
        return f;
    }
    let ctx = m.context();
    let (ptr, [parent, left, right]) = offsets(m);
    let i32t = Ty::int(ctx, 32);
    let down = sync_down_helper(m);
    let f = m.add_function(
        name,
        Ty::function(Ty::void(ctx), &[ptr, ptr, ptr, i32t], false),
    );
    f.set_internal();
    let [n0, s0, header, depth] = [f.params()[0], f.params()[1], f.params()[2], f.params()[3]];
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let walk = f.append_block("walk");
    let body = f.append_block("body");
    let done = f.append_block("done");
    b.position_at_end(entry);
    b.br(walk);
    b.position_at_end(walk);
    let n = b.phi(ptr);
    let s = b.phi(ptr);
    let top = b.icmp(IntPred::LLVMIntEQ, n, header);
    b.cond_br(top, done, body);
    b.position_at_end(body);
    let colour = b.load(i32t, n, 4);
    b.store(colour, s, 4);
    let np = field(&mut b, n, parent);
    let sp = field(&mut b, s, parent);
    let nl = field(&mut b, np, left);
    let nr = field(&mut b, np, right);
    let sl = field(&mut b, sp, left);
    let sr = field(&mut b, sp, right);
    let is_left = b.icmp(IntPred::LLVMIntEQ, nl, n);
    let sib = b.select(is_left, nr, nl);
    let ssib = b.select(is_left, sr, sl);
    b.call_function(down, &[sib, ssib, depth]);
    b.br(walk);
    n.add_incoming(n0, entry);
    n.add_incoming(np, body);
    s.add_incoming(s0, entry);
    s.add_incoming(sp, body);
    b.position_at_end(done);
    let colour = b.load(i32t, n, 4);
    b.store(colour, s, 4);
    b.ret_void();
    f
}

/// `void umbra.rbtree.sync_erase(ptr z, ptr zs, ptr header)`: the colours
/// `_Rb_tree_rebalance_for_erase(z, header)` may read: the node it unlinks (`z`, or `z`'s
/// successor when `z` has two children) with its children, the path above it, and the path's
/// siblings two levels down.
fn sync_erase_helper(m: Module) -> Val {
    let name = "umbra.rbtree.sync_erase";
    if let Some(f) = m.function(name) {
        return f;
    }
    let ctx = m.context();
    let (ptr, [_, left, right]) = offsets(m);
    let i32t = Ty::int(ctx, 32);
    let down = sync_down_helper(m);
    let path = sync_path_helper(m);
    let increment = m.get_or_add_function(
        "_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base",
        Ty::function(ptr, &[ptr], false),
    );
    let f = m.add_function(name, Ty::function(Ty::void(ctx), &[ptr, ptr, ptr], false));
    f.set_internal();
    let [z, zs, header] = [f.params()[0], f.params()[1], f.params()[2]];
    let mut b = Builder::new(m);
    b.position_at_end(f.append_block("entry"));
    let zl = field(&mut b, z, left);
    let zr = field(&mut b, z, right);
    let has_l = b.icmp(IntPred::LLVMIntNE, zl, ptr.zero());
    let has_r = b.icmp(IntPred::LLVMIntNE, zr, ptr.zero());
    let two = b.binop(crate::ir::Opcode::LLVMAnd, has_l, has_r);
    // z is a node of the tree, never the header, so its successor exists (it may be the header
    // when z is the last node; then z has no right child and is not replaced).
    let next = b.call_function(increment, &[z]);
    let snext = b.call_function(increment, &[zs]);
    let y = b.select(two, next, z);
    let ys = b.select(two, snext, zs);
    b.call_function(down, &[y, ys, i32t.int_const(1)]);
    b.call_function(path, &[y, ys, header, i32t.int_const(2)]);
    b.ret_void();
    f
}
