//! Dead shadow zeroing: the stores whose adjoint need not clear the shadow bytes they wrote.
//!
//! The adjoint of `store v, p` takes the adjoint waiting in `p`'s shadow for `v` and then
//! zeroes that shadow, because whatever the memory held before the store was overwritten and
//! must receive no part of it. The zeroing matters only if something reads those shadow bytes
//! later in the adjoint sweep, which runs the primal backwards: the adjoints of accesses that
//! ran *before* the store (a load or store of the same bytes earlier, the same store in an
//! earlier iteration of a loop), or the caller, when the memory outlives the function.
//!
//! # What it proves
//! [`dead_zeroing`] returns stores `s` for which, in the adjoint, no code reads the shadow
//! bytes `s` wrote after `s`'s adjoint has run. It holds when
//! - `s` is a plain (neither volatile nor atomic) store of a fixed size, or a masked store or
//!   scatter (each lane of a scatter one store: which lanes of one scatter share an address is
//!   the adjoint's concern, [`crate::analysis::lanes`]), through a pointer
//!   whose only underlying object is a heap block allocated in `f` that does not escape `f`
//!   (`private`): its shadow is reached only by the derived code of `f`'s own accesses of it,
//!   and nothing outside `f` sees it;
//! - every instruction of `f` that may access that block and may run before `s` is a load or
//!   store whose every execution before a later execution of `s` touches bytes `s` does not
//!   write (`misses`: index reasoning across the loops around both, [`super::indices`]); any
//!   other access (a call taking a pointer into the block, a memory intrinsic, an atomic) keeps
//!   the zeroing.
//!
//! A kept zeroing is only slower; a dropped one that was needed is a wrong gradient, so any
//! doubt keeps it. The common case it removes is a scratch buffer written once per element and
//! then only read (`K[i] = a * b; ... s += K[i]; free(K)`): its adjoint's zeroing stores were
//! dead, and LLVM could not delete them (the shadow is freed in another function or after the
//! loop nest), so they cost code size, compile time and memory traffic.

use super::objects::underlying_objects;
use crate::ir::{Block, Module, Opcode, TyKind, Val};
use crate::rules::{ArgBytes, Extent};
use std::collections::HashSet;

/// One memory access of the function, as the analysis needs it.
struct Access {
    inst: Val,
    ptr: Val,
    /// Bytes accessed; `None` for an access of unknown extent (calls, intrinsics, atomics).
    size: Option<u64>,
    objects: Vec<Val>,
}

/// The stores of `blocks` (the reachable blocks of the function) whose shadow zeroing in the
/// adjoint is dead (see the module doc). `private(o)`: `o` is a heap block allocated in the
/// function that does not escape it. `after(a, s)`: `s` may run after `a`. `misses(a, pa, na,
/// s, ps, ns)`: no execution of store `s` (`ns` bytes at `ps`) after an execution of `a` (`na`
/// bytes at `pa`) overlaps the bytes `a` accessed.
pub fn dead_zeroing(
    m: Module,
    blocks: &[Block],
    mut private: impl FnMut(Val) -> bool,
    after: impl Fn(Val, Val) -> bool,
    mut misses: impl FnMut(Val, Val, u64, Val, Val, u64) -> bool,
) -> HashSet<Val> {
    let mut dead = HashSet::new();
    // Candidate stores first: most functions have none, and then nothing else is computed.
    let mut stores: Vec<(Val, Val, u64)> = Vec::new();
    for &b in blocks {
        for i in b.instructions() {
            let Some((p, size)) = store_access(m, i) else {
                continue;
            };
            if i.operand(0).ty().contains_ptr() {
                continue;
            }
            let objs = underlying_objects(p);
            if objs.len() == 1 && objs.iter().all(|&o| private(o)) {
                stores.push((i, p, size));
            }
        }
    }
    if stores.is_empty() {
        return dead;
    }
    let accesses = accesses(m, blocks);
    for (s, ps, ns) in stores {
        let o = underlying_objects(ps).into_iter().next();
        let clear = accesses
            .iter()
            .filter(|a| o.is_some_and(|o| a.objects.contains(&o)))
            .all(|a| {
                if !after(a.inst, s) {
                    return true;
                }
                match a.size {
                    Some(na) => misses(a.inst, a.ptr, na, s, ps, ns),
                    None => false,
                }
            });
        if clear {
            dead.insert(s);
        }
    }
    dead
}

/// Every instruction of `blocks` that may access memory through a pointer operand.
fn accesses(m: Module, blocks: &[Block]) -> Vec<Access> {
    let mut out = Vec::new();
    for &b in blocks {
        for i in b.instructions() {
            let sized = |ptr: Val, ty: crate::ir::Ty| Access {
                inst: i,
                ptr,
                size: (!ty.is_scalable_vector() && !i.is_volatile() && !i.is_atomic_access())
                    .then(|| m.store_size(ty)),
                objects: underlying_objects(ptr).into_iter().collect(),
            };
            if let Some((ptr, size)) = masked_access(m, i) {
                out.push(Access {
                    inst: i,
                    ptr,
                    size: Some(size),
                    objects: underlying_objects(ptr).into_iter().collect(),
                });
                continue;
            }
            match i.opcode() {
                Opcode::LLVMLoad => out.push(sized(i.operand(0), i.ty())),
                Opcode::LLVMStore => out.push(sized(i.operand(1), i.operand(0).ty())),
                Opcode::LLVMGetElementPtr
                | Opcode::LLVMBitCast
                | Opcode::LLVMAddrSpaceCast
                | Opcode::LLVMPHI
                | Opcode::LLVMSelect
                | Opcode::LLVMICmp
                | Opcode::LLVMFreeze => {}
                _ if is_release(i) => {}
                _ => {
                    // Anything else taking a pointer (calls, memory intrinsics, atomics,
                    // `ptrtoint`) counts as an access of unknown extent of what it points to.
                    for k in 0..i.num_operands() {
                        let p = i.operand(k);
                        if p.ty().contains_ptr() {
                            out.push(Access {
                                inst: i,
                                ptr: p,
                                size: None,
                                objects: underlying_objects(p).into_iter().collect(),
                            });
                        }
                    }
                }
            }
        }
    }
    out
}

/// A plain store or a masked store or scatter: the pointer (a vector of them for a scatter,
/// each lane an access) and the bytes each access writes.
fn store_access(m: Module, i: Val) -> Option<(Val, u64)> {
    if i.opcode() == Opcode::LLVMStore {
        let ty = i.operand(0).ty();
        return (!i.is_volatile() && !i.is_atomic_access() && !ty.is_scalable_vector())
            .then(|| (i.operand(1), m.store_size(ty)));
    }
    if !i.is_call() {
        return None;
    }
    let writes = crate::rules::lookup_call(i)?.effects.writes_arg?;
    matches!(writes.bytes, Extent::VectorOf(_))
        .then(|| masked_access(m, i))
        .flatten()
}

/// A masked load, store, gather or scatter of fixed size: its pointer operand (a vector of
/// pointers for gathers and scatters) and the bytes of one access (the whole vector, or one
/// lane's element). Masked-off lanes count as accessed, which only keeps more zeroing.
fn masked_access(m: Module, i: Val) -> Option<(Val, u64)> {
    if !i.is_call() {
        return None;
    }
    // The rule's effects name the pointer argument and the vector accessed through it.
    let e = crate::rules::lookup_call(i)?.effects;
    let (ptr, vty) = match e.writes_arg.or(e.reads_arg)? {
        ArgBytes {
            arg,
            bytes: Extent::VectorOf(vector),
        } => {
            let args = i.call_args();
            let vty = match vector {
                None => i.ty(),
                Some(k) => args.get(k as usize)?.ty(),
            };
            (*args.get(arg as usize)?, vty)
        }
        _ => return None,
    };
    if vty.is_scalable_vector() || vty.kind() != TyKind::Vector {
        return None;
    }
    let size = if ptr.ty().kind() == TyKind::Vector {
        m.store_size(vty.element())
    } else {
        m.store_size(vty)
    };
    Some((ptr, size))
}

/// Calls that only release a block or mark a lifetime: their adjoints read no shadow bytes.
fn is_release(i: Val) -> bool {
    if !i.is_call() {
        return false;
    }
    let Some(f) = i.called_function() else {
        return false;
    };
    crate::rules::lookup(&f.name()).is_some_and(|r| r.effects.lifetime || r.effects.only_frees())
}
