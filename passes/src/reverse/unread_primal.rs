//! Primal work no one reads, removed from augmented sweeps once every request is lowered.
//!
//! A gradient request rarely uses the primal result: `__enzyme_autodiff(f, ...)` calls the
//! augmented sweep and drops what it returns. LLVM then deletes most of the primal work on its
//! own, but not a heap block that is only written and freed when its writes are scatters
//! (`llvm.masked.scatter`, which dead-store elimination and InstCombine's removable-allocation
//! check do not know): kron_sum's gradient filled and freed a 5 MB buffer nothing read, and
//! the extra 5 MB made malloc return memory to the system on every call.
//!
//! The same holds for forward-mode functions, which return `{primal, tangent}`: a directional
//! derivative request (`__enzyme_fwddiff`) extracts only the tangent, and kron_sum's tangent
//! filled its primal buffer with 80 scatters per block (nothing read them; they doubled the
//! block the code generator's schedulers, quadratic in its memory operations, work on).
//!
//! What it guarantees: an augmented sweep whose every caller ignores its result returns poison
//! (nothing can observe it); a forward function whose callers only extract some fields of its
//! result returns poison in the others (when the returned value is built by single-use
//! `insertvalue`s on poison); instructions that compute values without side effects (pure
//! arithmetic, GEPs, casts, phis, plain loads) and that nothing live uses are deleted; a block
//! from `malloc`/`calloc`/`operator new` that never escapes and is only written (stores,
//! masked stores and scatters, memset, lifetime markers) and released is deleted with its
//! writes and release. Everything the adjoint reads reaches it through the tape, whose pushes
//! are stores into tape memory and therefore always live.

use crate::analysis::opcodes::is_pure;
use crate::ir::{Opcode, Val};
use crate::rules::Effects;
use std::collections::HashSet;

/// Cleans the augmented sweeps `functions` and the forward-mode functions `forward` (see the
/// module comment).
pub fn remove_unread_primal(functions: &[Val], forward: &[Val]) {
    for &f in functions {
        if f.is_declaration() {
            continue;
        }
        // Only where a block may turn out write-only: elsewhere LLVM removes the unread primal
        // work itself once the sweep is inlined, and the sweep stays readable until then.
        if !result_unread(f) || !has_block_only_read_or_written(f) {
            continue;
        }
        return_poison(f);
        clean(f);
    }
    for &f in forward {
        if f.is_declaration() || !has_block_only_read_or_written(f) {
            continue;
        }
        let Some(read) = fields_read(f) else {
            continue;
        };
        if drop_unread_fields(f, &read) {
            clean(f);
        }
    }
}

/// Deletes the dead values of `f`, then each block only written and released.
fn clean(f: Val) {
    delete_dead_values(f);
    while delete_write_only_blocks(f) {
        delete_dead_values(f);
    }
}

/// The fields of `f`'s struct result its callers read, when every use of `f` is a direct call
/// whose result is only taken apart by `extractvalue`s.
fn fields_read(f: Val) -> Option<HashSet<u32>> {
    if f.function_type().return_type().kind() != crate::ir::TyKind::Struct {
        return None;
    }
    let mut read = HashSet::new();
    for u in f.users() {
        if !(u.is_instruction()
            && (u.is_call() || u.is_invoke())
            && u.called_value() == f
            && !u.call_args().contains(&f))
        {
            return None;
        }
        for e in u.users() {
            if !e.is_instruction() || e.opcode() != Opcode::LLVMExtractValue {
                return None;
            }
            read.insert(*e.aggregate_indices().first()?);
        }
    }
    Some(read)
}

/// Leaves the fields of `f`'s result outside `read` poison, where each returned value is a
/// chain of single-use `insertvalue`s on poison or undef; true when some insertion went.
fn drop_unread_fields(f: Val, read: &HashSet<u32>) -> bool {
    let mut changed = false;
    for b in f.blocks() {
        let Some(t) = b.terminator() else { continue };
        if t.opcode() != Opcode::LLVMRet || t.num_operands() != 1 {
            continue;
        }
        // The chain from the returned value down to its base.
        let mut chain = Vec::new();
        let mut cur = t.operand(0);
        while cur.is_instruction() && cur.opcode() == Opcode::LLVMInsertValue {
            chain.push(cur);
            cur = cur.operand(0);
        }
        let single_use = chain.iter().all(|i| i.users().len() == 1);
        if !cur.is_undef() || !single_use {
            continue;
        }
        for i in chain {
            let unread = i
                .aggregate_indices()
                .first()
                .is_some_and(|k| !read.contains(k));
            if unread {
                i.replace_all_uses_with(i.operand(0));
                i.erase();
                changed = true;
            }
        }
    }
    changed
}

/// True when `f` returns a value and every use of `f` is a direct call whose result is unused,
/// or only returned by a guard ([`crate::tape::owned::guarded`]) whose own result is unread.
fn result_unread(f: Val) -> bool {
    if f.function_type().return_type().is_void() {
        return false;
    }
    f.users().into_iter().all(|u| {
        u.is_instruction()
            && (u.is_call() || u.is_invoke())
            && u.called_value() == f
            && !u.call_args().contains(&f)
            && (!u.has_uses() || returned_by_unread_guard(u))
    })
}

/// True when call `u` stands in a guard, which only returns its result, and nothing reads the
/// guard's result.
fn returned_by_unread_guard(u: Val) -> bool {
    let Some(g) = u.parent_function() else {
        return false;
    };
    g.name().starts_with(crate::tape::owned::GUARD_PREFIX)
        && u.users()
            .iter()
            .all(|r| r.is_instruction() && r.opcode() == Opcode::LLVMRet)
        && result_unread(g)
}

fn return_poison(f: Val) {
    for b in f.blocks() {
        if let Some(t) = b.terminator() {
            if t.opcode() == Opcode::LLVMRet && t.num_operands() == 1 {
                t.set_operand(0, t.operand(0).ty().poison());
            }
        }
    }
}

/// True for instructions deleted when nothing live uses them.
fn removable(i: Val) -> bool {
    use Opcode::*;
    match i.opcode() {
        LLVMLoad => !i.is_volatile() && !i.is_atomic_access(),
        LLVMPHI | LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast | LLVMFreeze
        | LLVMExtractValue | LLVMExtractElement | LLVMInsertValue | LLVMInsertElement
        | LLVMShuffleVector | LLVMSelect | LLVMTrunc | LLVMZExt | LLVMPtrToInt | LLVMIntToPtr
        | LLVMShl | LLVMLShr | LLVMAShr | LLVMOr | LLVMAnd | LLVMXor => true,
        op => is_pure(op),
    }
}

/// Mark and sweep: everything not removable is live, and so is every operand of a live value.
fn delete_dead_values(f: Val) {
    let all: Vec<Val> = f
        .blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .collect();
    let mut live: HashSet<Val> = HashSet::new();
    let mut work: Vec<Val> = all.iter().copied().filter(|&i| !removable(i)).collect();
    while let Some(i) = work.pop() {
        if !live.insert(i) {
            continue;
        }
        for o in i.operands() {
            if o.is_instruction() && !live.contains(&o) {
                work.push(o);
            }
        }
    }
    let dead: Vec<Val> = all.into_iter().filter(|i| !live.contains(i)).collect();
    // Dead values may use one another (a phi and its increment): detach them all first.
    for &i in &dead {
        if i.has_uses() {
            i.replace_all_uses_with(i.ty().poison());
        }
    }
    for i in dead {
        i.erase();
    }
}

/// The effects of the rule of plain call `i`'s callee, if it has one.
fn callee_effects(i: Val) -> Option<Effects> {
    if !i.is_plain_call() {
        return None;
    }
    crate::rules::lookup_call(i).map(|r| r.effects)
}

/// True for a call returning a fresh heap block and doing nothing else (`malloc`, `new`, ...).
fn allocates_only(i: Val) -> bool {
    callee_effects(i).is_some_and(Effects::only_allocates)
}

/// True for a call releasing the block its first argument points to and doing nothing else.
fn frees_only(i: Val) -> bool {
    callee_effects(i).is_some_and(Effects::only_frees)
}

/// True when some block of `f` is only read with plain loads, written and released: once the
/// loads are found dead, it is write-only.
fn has_block_only_read_or_written(f: Val) -> bool {
    f.blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .any(|i| allocates_only(i) && block_uses(i, true).is_some())
}

/// Deletes one block that is only written and released; true when it found one.
fn delete_write_only_blocks(f: Val) -> bool {
    for b in f.blocks() {
        for i in b.instructions() {
            if allocates_only(i) {
                if let Some((writes, addresses)) = block_uses(i, false) {
                    for w in writes {
                        w.erase();
                    }
                    // Later addresses are built on earlier ones: erase users first.
                    for a in addresses.into_iter().rev() {
                        a.erase();
                    }
                    i.erase();
                    return true;
                }
            }
        }
    }
    false
}

/// The writes and releases of the block `alloc` returns, when that is all it is used for
/// (besides plain loads, when `loads` allows them), and the addresses (GEPs and casts) built
/// on it, in the order found.
fn block_uses(alloc: Val, loads: bool) -> Option<(HashSet<Val>, Vec<Val>)> {
    let mut writes = HashSet::new();
    let mut addresses = Vec::new();
    let mut seen = HashSet::from([alloc]);
    let mut work = vec![alloc];
    while let Some(p) = work.pop() {
        for u in p.users() {
            if !u.is_instruction() {
                return None;
            }
            use Opcode::*;
            match u.opcode() {
                LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast if u.operand(0) == p => {
                    if (1..u.num_operands()).any(|k| u.operand(k) == p) {
                        return None;
                    }
                    if seen.insert(u) {
                        work.push(u);
                        addresses.push(u);
                    }
                }
                LLVMLoad if loads && !u.is_volatile() && !u.is_atomic_access() => {}
                LLVMStore if u.operand(1) == p && u.operand(0) != p && !u.is_volatile() => {
                    writes.insert(u);
                }
                LLVMCall if is_write_to(u, p) || (frees_only(u) && u.operand(0) == p) => {
                    writes.insert(u);
                }
                _ => return None,
            }
        }
    }
    Some((writes, addresses))
}

/// True when call `u` only writes through `p` (its address operand) and `p` is nothing else
/// to it: memset, masked stores and scatters (a rule writing through one argument and reading
/// none, [`Effects::writes_arg`]), lifetime markers ([`Effects::lifetime`]).
fn is_write_to(u: Val, p: Val) -> bool {
    let Some(e) = crate::rules::lookup_call(u).map(|r| r.effects) else {
        return false;
    };
    let args = u.call_args();
    let at = match e.writes_arg {
        Some(w) if e.reads_arg.is_none() => w.arg as usize,
        _ if e.lifetime => args.len().saturating_sub(1),
        _ => return false,
    };
    args.get(at) == Some(&p) && args.iter().enumerate().all(|(k, &a)| k == at || a != p)
}
