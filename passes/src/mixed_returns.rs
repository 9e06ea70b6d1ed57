//! Structs holding both pointers and floating-point data, returned by value, become memory
//! before differentiation. The x86-64 ABI returns a 16-byte struct of a double and a pointer
//! as the value `{ double, ptr }`; at `-O0` C++ returns its small classes that way
//! (`std::valarray`'s expression closures, expression-template nodes holding a reference and
//! a scalar). Reverse mode gives a value either an adjoint or a shadow, not both, and refuses
//! such a value; in memory, its double and its pointer are two slots, each with its own kind.
//!
//! A call, in a function the requests reach, of a function with a body that returns such a
//! struct, whose result only `extractvalue` reads (what clang emits), becomes a call of a
//! copy of the callee that stores what it returned into a slot of the caller's frame
//! ([`crate::ir::copy_returning_through_memory`]); each `extractvalue` becomes a load of that
//! slot. A load of such a struct that only `extractvalue` reads becomes loads of its fields.
//! A phi or select of such structs that only `extractvalue` reads (at -O1 and above clang
//! merges two calls' results, `c ? f(a) : g(b)`, before taking the fields) becomes one phi or
//! select per field read, of fields taken where the merged values come from; the calls merged
//! are then rewritten as above.
//!
//! Guarantees: the program computes what it computed (the same callee body, the same values
//! read back); the original functions stay as they are for every other caller; calls whose
//! result is used any other way, calls of functions without a body or with a rule (the
//! user's, or inactive: rules go by name, which a copy does not have), and callees the copy
//! cannot reproduce ([`crate::ir::copyable`], [`crate::ir::copyable_with_another_signature`]:
//! no `musttail` call, which must stay the last thing before `ret`) are left alone, and reverse
//! mode still refuses what is left of such values with its message.

use crate::ir::{
    copy_returning_through_memory, copyable, copyable_with_another_signature, fresh_name,
    path_alignment, Builder, Opcode, Ty, TyKind, Val, WRITES_NO_MEMORY,
};
use crate::rules::user::UserRules;
use crate::rules::Callee;
use std::collections::HashMap;

/// True for a struct or array type holding both floating-point data and pointers.
fn mixed(t: Ty) -> bool {
    matches!(t.kind(), TyKind::Struct | TyKind::Array) && t.contains_float() && t.contains_ptr()
}

/// The copies made so far, by original callee, so that each callee is copied once.
#[derive(Default)]
pub struct Copies(HashMap<Val, Val>);

/// Rewrites `f`'s calls and loads of mixed structs (module doc). True when `f` changed.
pub fn split_mixed_values(f: Val, copies: &mut Copies, rules: &UserRules) -> bool {
    // Merges first, so that the calls they merged are then read by `extractvalue` alone.
    let mut changed = split_merges(f);
    for b in f.blocks() {
        for i in b.instructions() {
            let rewritten = if i.is_call() {
                returns_through_memory(i, copies, rules)
            } else {
                i.opcode() == Opcode::LLVMLoad && load_fields(i)
            };
            changed |= rewritten;
        }
    }
    changed
}

/// Splits `f`'s phis and selects of mixed structs read only by `extractvalue` into one per
/// field read, until none is left (a phi merging another phi qualifies once that one is
/// split). True when `f` changed.
fn split_merges(f: Val) -> bool {
    let mut changed = false;
    // One at a time, looking again after each: splitting a phi may rebuild the other phis of
    // its block (`incoming_on_own_edges`), so a list made beforehand could name erased ones.
    while let Some(m) = f
        .blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .find(|i| {
            matches!(i.opcode(), Opcode::LLVMPHI | Opcode::LLVMSelect)
                && mixed(i.ty())
                && only_extracted(*i)
        })
    {
        split_merge(m);
        changed = true;
    }
    changed
}

/// Phi `m` (perhaps rebuilt) and its incoming values and blocks, after giving each value an
/// `invoke` defines on its normal edge (C++ with a cleanup: `c ? f(a) : g(b)` merges the two
/// invokes' results straight in the phi) a block of its own on that edge, where its fields can
/// be taken: the invoke's block ends in the invoke, which defines it. The phis of `m`'s block,
/// `m` among them, are rebuilt for the new edge ([`crate::unwind::rewrite_phi_edges`]: the C
/// API cannot change a phi's incoming block).
fn incoming_on_own_edges(m: Val, b: &mut Builder) -> (Val, Vec<(Val, crate::ir::Block)>) {
    let join = m.parent_block();
    let f = join.parent();
    let invoked: Vec<(Val, crate::ir::Block)> = m
        .incoming()
        .into_iter()
        .filter_map(|(v, pred)| {
            let t = pred.terminator().filter(|&t| t == v)?;
            Some((t, pred))
        })
        .collect();
    let mut m = m;
    for (invoke, pred) in invoked {
        let edge = f.append_block("umbra.invoke.cont");
        b.position_at_end(edge);
        b.br(join);
        // Successor 0 of an invoke is its normal destination.
        invoke.set_successor(0, edge);
        for (old, new) in crate::unwind::rewrite_phi_edges(join, pred, &[edge]) {
            if old == m {
                m = new;
            }
        }
    }
    (m, m.incoming())
}

/// Field `path` of aggregate `v`, taken by `b` where it stands (a constant folds).
fn field_of(b: &mut Builder, v: Val, path: &[u32]) -> Val {
    path.iter().fold(v, |agg, &k| b.extract_value(agg, k))
}

/// Replaces phi or select `m` (only `extractvalue` reads it) by one phi or select per field
/// path read: a phi's fields are taken at the end of each incoming block (once per block: a
/// block reaching the phi by several edges gives one value; an invoke's result on a block of
/// its own on the edge), a select's before it.
fn split_merge(m: Val) {
    let mut b = Builder::new(m.parent_block().parent().module());
    let mut by_path: HashMap<Vec<u32>, Val> = HashMap::new();
    // A phi's incoming values and blocks, once every invoke feeding it has its own edge (the
    // phi rebuilt for it).
    let (m, incoming) = if m.opcode() == Opcode::LLVMPHI {
        incoming_on_own_edges(m, &mut b)
    } else {
        (m, Vec::new())
    };
    for u in m.users() {
        let path = u.aggregate_indices();
        let field = match by_path.get(&path) {
            Some(&v) => v,
            None => {
                let v = if m.opcode() == Opcode::LLVMPHI {
                    b.position_before(m);
                    let phi = b.phi(u.ty());
                    let mut taken: HashMap<crate::ir::Block, Val> = HashMap::new();
                    for &(v, pred) in incoming.iter() {
                        if v == m {
                            // A loop carrying the struct unchanged carries each field.
                            phi.add_incoming(phi, pred);
                            continue;
                        }
                        let field = *taken.entry(pred).or_insert_with(|| {
                            // A block with a phi always ends in a terminator.
                            if let Some(t) = pred.terminator() {
                                b.position_before(t);
                            }
                            field_of(&mut b, v, &path)
                        });
                        phi.add_incoming(field, pred);
                    }
                    phi
                } else {
                    b.position_before(m);
                    let (x, y) = (
                        field_of(&mut b, m.operand(1), &path),
                        field_of(&mut b, m.operand(2), &path),
                    );
                    let v = b.select(m.operand(0), x, y);
                    v.copy_debug_location(m);
                    v
                };
                by_path.insert(path, v);
                v
            }
        };
        u.replace_all_uses_with(field);
        u.erase();
    }
    m.erase();
}

/// True when every user of `v` is an `extractvalue` of it.
fn only_extracted(v: Val) -> bool {
    let users = v.users();
    !users.is_empty()
        && users
            .iter()
            .all(|u| u.opcode() == Opcode::LLVMExtractValue && u.operand(0) == v)
}

/// Replaces each `extractvalue` user of `v` (of type `ty`) by a load from `slot`, memory laid
/// out as `ty` and aligned for it.
fn extracts_to_loads(b: &mut Builder, v: Val, ty: Ty, slot: Val) {
    let m = b.module();
    let i32_ty = Ty::int(m.context(), 32);
    for u in v.users() {
        let path = u.aggregate_indices();
        b.position_before(u);
        let mut idx = vec![i32_ty.int_const(0)];
        idx.extend(path.iter().map(|&k| i32_ty.int_const(k as u64)));
        let at = b.gep(ty, slot, &idx, true);
        let field = b.load(u.ty(), at, path_alignment(m, ty, &path));
        field.copy_debug_location(u);
        u.replace_all_uses_with(field);
        u.erase();
    }
}

/// Rewrites call `call` to return through a slot of its caller's frame, when it qualifies.
fn returns_through_memory(call: Val, copies: &mut Copies, rules: &UserRules) -> bool {
    let ty = call.ty();
    let Some(callee) = call.called_function() else {
        return false;
    };
    // Only a callee differentiated from its body: a rule (the user's, or inactive) is looked
    // up by the callee's name, which the copy does not have.
    let qualifies = mixed(ty)
        && matches!(crate::rules::classify(call, rules), Callee::Defined(_))
        && callee.function_type().return_type() == ty
        && !call.is_musttail()
        && copyable(callee)
        && copyable_with_another_signature(callee)
        && only_extracted(call);
    let f = call.parent_block().parent();
    let Some(first) = f.entry_block().first_instruction() else {
        return false;
    };
    if !qualifies {
        return false;
    }
    let copy = *copies.0.entry(callee).or_insert_with(|| {
        let name = fresh_name(callee, &format!("{}.umbra.out", callee.name()));
        copy_returning_through_memory(callee, &name)
    });
    let m = f.module();
    let mut b = Builder::new(m);
    b.position_before(first);
    let slot = b.alloca(ty, "umbra.returned");
    slot.set_alignment(m.abi_alignment(ty));
    b.position_before(call);
    let mut args = vec![slot];
    args.extend(call.call_args());
    let new_call = b.call_like(call, copy, &args);
    new_call.copy_call_site_shifted(call, 1);
    for attr in WRITES_NO_MEMORY {
        new_call.remove_call_fn_attr(attr);
    }
    // Loads after the call: each `extractvalue` is where the value was read, past the call
    // (and, for an `invoke`, in or below its normal destination).
    extracts_to_loads(&mut b, call, ty, slot);
    call.erase();
    true
}

/// Splits load `ld` of a mixed struct that only `extractvalue` reads into loads of the
/// fields read.
fn load_fields(ld: Val) -> bool {
    let ty = ld.ty();
    if !mixed(ty) || ld.is_volatile() || ld.is_atomic_access() || !only_extracted(ld) {
        return false;
    }
    let mut b = Builder::new(ld.parent_block().parent().module());
    // The fields are read where the struct was: the memory may change after it.
    let i32_ty = Ty::int(b.module().context(), 32);
    let m = b.module();
    let whole = ld.alignment();
    for u in ld.users() {
        let path = u.aggregate_indices();
        b.position_before(ld);
        let mut idx = vec![i32_ty.int_const(0)];
        idx.extend(path.iter().map(|&k| i32_ty.int_const(k as u64)));
        let at = b.gep(ty, ld.operand(0), &idx, true);
        let align = path_alignment(m, ty, &path).min(whole.max(1));
        let field = b.load(u.ty(), at, align);
        field.copy_debug_location(ld);
        u.replace_all_uses_with(field);
        u.erase();
    }
    ld.erase();
    true
}
