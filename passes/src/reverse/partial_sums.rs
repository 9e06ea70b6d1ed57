//! How the adjoint of a load inside a parallel region adds into the shadow of the memory it
//! read (issue 28's scaling item, [`load_adjoint`]): atomically, unless a private sum, a plain
//! add or a per-thread table is provably safe. The tables are per-thread partial sums of
//! adjoints for memory a region never writes: a protein's coordinates every pose reads, a table
//! every iteration looks up.
//! Atomic adds of every thread into the same shadow elements serialise on their cache lines;
//! instead each thread adds into a table of its own, keyed by shadow address, and adds the
//! table's sums atomically into the shadows once, when its adjoint of the outlined function
//! ends.
//!
//! Guarantee: only loads of memory nothing in the region writes use the table
//! ([`unwritten_memory`]), so no adjoint in the region reads those shadows before the sums
//! arrive (a shadow is only read by the adjoint of a write to its memory) and the sums may
//! arrive in any order (additions, as the atomic adds they replace). A table entry another
//! address needs is added into its shadow first (direct-mapped, so the table stays small).

use crate::diag::Result;
use crate::ir::{Builder, IntPred, Module, Opcode, Ty, Val};
use crate::openmp::{is_fork, local_unescaped, outlined, thread_private};
use crate::rules::user::UserRules;
use std::collections::HashSet;

/// How the adjoint of a load inside a parallel region adds into the shadow of the memory it
/// read (issue 28's scaling item): atomically unless one of the two proofs below holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LoadAdjoint {
    /// Other threads may add to the same adjoint at the same time: `atomicrmw fadd`.
    Atomic,
    /// No other thread touches the adjoint while this thread adds to it ([`overwritten_here`]):
    /// a plain load, add and store.
    Plain,
    /// The variable the caller shares with the region through this parameter of the outlined
    /// function, which the region only reads ([`crate::openmp::read_only_capture`]): the thread adds into a
    /// private sum, added atomically into the shared adjoint once, when its adjoint ends.
    Private(Val, u64),
}

/// How the adjoint of `load`, in a function that runs on several threads at once, adds into
/// the shadow of the memory it read (`rules`: which calls are known math).
pub fn load_adjoint(load: Val, rules: &UserRules) -> LoadAdjoint {
    if let Some((p, offset)) = crate::openmp::read_only_capture(load.operand(0)) {
        return LoadAdjoint::Private(p, offset);
    }
    if overwritten_here(load, rules) {
        return LoadAdjoint::Plain;
    }
    LoadAdjoint::Atomic
}

/// True when the thread that runs `load` also stores to the same address (the same SSA
/// pointer, as many bytes) in the same block, with nothing between the two that could order
/// it with other threads (only arithmetic, memory accesses that are not atomic, and calls of
/// math functions and intrinsics): the read-modify-write `x[i] = x[i] * k + ...` of a loop
/// whose iterations write disjoint slices. Then no other thread reads or writes those bytes
/// while this one is between the two (that would be a data race in the primal), and
/// synchronisation outside that stretch is mirrored by the adjoint (barriers, critical
/// sections in reverse ticket order), so this thread's adjoint of the load (like that of the
/// store, which already clears the shadow without an atomic) is alone on the shadow.
pub fn overwritten_here(load: Val, rules: &UserRules) -> bool {
    if load.opcode() != Opcode::LLVMLoad || load.is_volatile() || load.is_atomic_access() {
        return false;
    }
    let Some(m) = load.parent_function().map(|f| f.module()) else {
        return false;
    };
    let p = load.operand(0);
    let insts = load.parent_block().instructions();
    let Some(at) = insts.iter().position(|&i| i == load) else {
        return false;
    };
    let same_store = |s: Val| {
        s.opcode() == Opcode::LLVMStore
            && s.operand(1) == p
            && !s.is_volatile()
            && !s.is_atomic_access()
            && m.store_size(s.operand(0).ty()) == m.store_size(load.ty())
    };
    let harmless = |i: Val| match i.opcode() {
        Opcode::LLVMFence | Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg => false,
        Opcode::LLVMLoad | Opcode::LLVMStore => !i.is_atomic_access(),
        Opcode::LLVMInvoke | Opcode::LLVMCallBr => false,
        Opcode::LLVMCall => math_call(i, rules),
        _ => true,
    };
    // After the load, up to the store; else before it, back to the store.
    let found = |range: &mut dyn Iterator<Item = &Val>| {
        for &i in range {
            if same_store(i) {
                return true;
            }
            if !harmless(i) {
                return false;
            }
        }
        false
    };
    found(&mut insts[at + 1..].iter()) || found(&mut insts[..at].iter().rev())
}

/// True when `call` runs a math function or an intrinsic (a declarative math rule, an
/// inactive `llvm.*` intrinsic): nothing that orders the threads.
fn math_call(call: Val, rules: &UserRules) -> bool {
    use crate::rules::{Callee, RuleKind};
    match crate::rules::classify(call, rules) {
        Callee::Rule(r) => match r.kind {
            RuleKind::Math(_) => !r.effects.synchronises,
            RuleKind::Inactive => r.name.starts_with("llvm.") && !r.effects.synchronises,
            _ => false,
        },
        _ => false,
    }
}

/// Entries per table (a power of two): 4,096 consecutive floats or doubles map to distinct
/// entries.
const ENTRIES: u64 = 4096;
/// Bytes per entry: the shadow address, then the sum.
const ENTRY: u64 = 16;

/// When `f` is an outlined function (every use a `__kmpc_fork_call` of it) whose region
/// (`f` and everything it calls) writes no memory but the thread's own (its local variables,
/// [`thread_private`]) and variables of the caller captured by address that nothing else can
/// reach ([`local_unescaped`] at every fork), those parameters of `f`: every other load in
/// `f` then reads memory the region never writes. `None` when the region may write anything
/// else (a store through a pointer the region was given, a call of unknown effect).
pub fn unwritten_memory(f: Val, rules: &UserRules) -> Option<HashSet<Val>> {
    let users = f.users();
    if users.is_empty() || users.iter().any(|&c| outlined(c) != Some(f)) {
        return None;
    }
    let params = f.params();
    let captured = |p: Val| -> Option<Val> {
        let k = params.iter().position(|&q| q == p)?;
        let ok = k >= 2
            && users.iter().all(|&c| {
                c.call_args().get(k + 1).is_some_and(|&a| {
                    local_unescaped(a) && c.call_args().iter().filter(|&&x| x == a).count() == 1
                })
            });
        ok.then_some(p)
    };
    let mut written = HashSet::new();
    let mut todo = vec![f];
    let mut seen = HashSet::new();
    while let Some(g) = todo.pop() {
        if !seen.insert(g) {
            continue;
        }
        for b in g.blocks() {
            for i in b.instructions() {
                let dest = match i.opcode() {
                    Opcode::LLVMStore => Some(i.operand(1)),
                    Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg => Some(i.operand(0)),
                    Opcode::LLVMCall | Opcode::LLVMInvoke => {
                        match call_writes(i, rules, &mut todo) {
                            Writes::Nothing => None,
                            Writes::Args => {
                                for a in i.call_args() {
                                    if a.ty().is_ptr() && !a.is_constant() {
                                        writes_to(a, g == f, &captured, &mut written)?;
                                    }
                                }
                                None
                            }
                            Writes::Anything => return None,
                        }
                    }
                    _ => None,
                };
                if let Some(p) = dest {
                    writes_to(p, g == f, &captured, &mut written)?;
                }
            }
        }
    }
    Some(written)
}

/// What a call may write.
enum Writes {
    /// No memory the region's loads read (math, intrinsics without memory effects, a body
    /// the walk visits itself).
    Nothing,
    /// Through its pointer arguments only (memory intrinsics, the OpenMP runtime).
    Args,
    /// Anything.
    Anything,
}

fn call_writes(i: Val, rules: &UserRules, todo: &mut Vec<Val>) -> Writes {
    use crate::rules::{Callee, Hidden, RuleKind};
    let Some(g) = i.called_function() else {
        return Writes::Anything;
    };
    if is_fork(i) {
        return Writes::Anything;
    }
    if !g.is_declaration() {
        todo.push(g);
        return Writes::Nothing;
    }
    let name = g.name();
    if name.starts_with("__kmpc_") || name.starts_with("omp_") {
        return Writes::Args;
    }
    const INERT: &[&str] = &[
        "llvm.lifetime.",
        "llvm.dbg.",
        "llvm.assume",
        "llvm.experimental.noalias.scope.decl",
        "llvm.invariant.",
        "llvm.pseudoprobe",
        "llvm.prefetch",
    ];
    // `memory(none)` on the call or the callee (integer intrinsics: `llvm.umin`, ...).
    let none = |v: Option<u64>| v == Some(0);
    if INERT.iter().any(|p| name.starts_with(p))
        || none(i.call_attr_value(u32::MAX, "memory"))
        || none(g.fn_attr_value(u32::MAX, "memory"))
    {
        return Writes::Nothing;
    }
    match crate::rules::classify(i, rules) {
        // libm's errno is no memory a load of the region reads.
        Callee::Rule(r) if matches!(r.kind, RuleKind::Math(_)) => Writes::Nothing,
        Callee::Rule(r) => {
            let e = r.effects;
            if e.inert || e.lifetime || !(e.writes || e.frees) {
                Writes::Nothing
            } else if e.captures || e.frees || e.hidden != Hidden::None {
                Writes::Anything
            } else {
                Writes::Args
            }
        }
        _ => Writes::Anything,
    }
}

/// Records a write through `p`: thread-private memory and the OpenMP runtime's globals
/// (source locations, critical sections' locks) are fine, a captured variable of `f` (`in_f`:
/// the write is in `f` itself) is noted; anything else fails.
fn writes_to(
    p: Val,
    in_f: bool,
    captured: &impl Fn(Val) -> Option<Val>,
    written: &mut HashSet<Val>,
) -> Option<()> {
    if thread_private(p) {
        return Some(());
    }
    let mut base = p;
    for _ in 0..16 {
        if base.is_instruction()
            && matches!(
                base.opcode(),
                Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast
            )
        {
            base = base.operand(0);
        } else {
            break;
        }
    }
    if base.is_global_variable() && base.name().starts_with(".gomp_critical_user_") {
        return Some(());
    }
    if in_f && base.is_argument() {
        written.insert(captured(base)?);
        return Some(());
    }
    None
}

/// True when `load`'s address is not one of the written captured variables (`written`, from
/// [`unwritten_memory`]), through GEPs.
pub fn reads_unwritten(load: Val, written: &HashSet<Val>) -> bool {
    let mut base = load.operand(0);
    for _ in 0..16 {
        if base.is_instruction()
            && matches!(
                base.opcode(),
                Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast
            )
        {
            base = base.operand(0);
        } else {
            break;
        }
    }
    !written.contains(&base)
}

/// A zeroed table for sums of type `t` (`float` or `double`), allocated where `b` is.
pub fn new_table(b: &mut Builder) -> Val {
    let m = b.module();
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let calloc = m.get_or_add_function("calloc", Ty::function(ptr, &[i64t, i64t], false));
    b.call_function(calloc, &[i64t.int_const(ENTRIES), i64t.int_const(ENTRY)])
}

/// True for the element types the tables sum.
pub fn summable(t: Ty) -> bool {
    matches!(t.print().as_str(), "float" | "double")
}

/// `sp += d` through `table` (`d` a float or double): the entry of `sp` sums it, after the
/// entry's previous address, if another, got its sum atomically.
pub fn add(b: &mut Builder, table: Val, sp: Val, d: Val) -> Result<()> {
    let m = b.module();
    let helper = add_helper(m, d.ty());
    b.call_function(helper, &[table, sp, d]);
    Ok(())
}

/// `void umbra.omp.sum.add.T(ptr table, ptr sp, T d)`.
fn add_helper(m: Module, t: Ty) -> Val {
    let name = format!("umbra.omp.sum.add.{}", t.print());
    if let Some(f) = m.function(&name) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = m.add_function(&name, Ty::function(Ty::void(ctx), &[ptr, ptr, t], false));
    f.set_internal();
    f.set_fn_attr("alwaysinline", true);
    let p = f.params();
    let (table, sp, d) = (p[0], p[1], p[2]);
    let mut b = Builder::new(m);
    let (entry, hit, miss, evict, fill) = (
        f.append_block("entry"),
        f.append_block("hit"),
        f.append_block("miss"),
        f.append_block("evict"),
        f.append_block("fill"),
    );
    b.position_at_end(entry);
    let shift = i64t.int_const(m.alloc_size(t).trailing_zeros() as u64);
    let addr = b.cast(Opcode::LLVMPtrToInt, sp, i64t);
    let h = b.binop(Opcode::LLVMLShr, addr, shift);
    let h = b.binop(Opcode::LLVMAnd, h, i64t.int_const(ENTRIES - 1));
    let off = b.mul(h, i64t.int_const(ENTRY));
    let e = b.gep(Ty::int(ctx, 8), table, &[off], true);
    let s = b.gep(Ty::int(ctx, 8), e, &[i64t.int_const(8)], true);
    let key = b.load(ptr, e, 8);
    let same = b.icmp(IntPred::LLVMIntEQ, key, sp);
    b.cond_br(same, hit, miss);
    b.position_at_end(hit);
    let cur = b.load(t, s, 8);
    let sum = b.fadd(cur, d);
    b.store(sum, s, 8);
    b.ret_void();
    b.position_at_end(miss);
    let empty = b.icmp(IntPred::LLVMIntEQ, key, ptr.zero());
    b.cond_br(empty, fill, evict);
    b.position_at_end(evict);
    let old = b.load(t, s, 8);
    b.atomic_fadd(key, old);
    b.br(fill);
    b.position_at_end(fill);
    b.store(sp, e, 8);
    b.store(d, s, 8);
    b.ret_void();
    f
}

/// Adds every sum of `table` (of type `t`) atomically into its shadow, then frees the table.
pub fn flush(b: &mut Builder, table: Val, t: Ty) {
    let m = b.module();
    let name = format!("umbra.omp.sum.flush.{}", t.print());
    let helper = match m.function(&name) {
        Some(f) => f,
        None => {
            let ctx = m.context();
            let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
            let f = m.add_function(&name, Ty::function(Ty::void(ctx), &[ptr], false));
            f.set_internal();
            let table = f.params()[0];
            let mut h = Builder::new(m);
            let (entry, head, body, add, next, done) = (
                f.append_block("entry"),
                f.append_block("head"),
                f.append_block("body"),
                f.append_block("add"),
                f.append_block("next"),
                f.append_block("done"),
            );
            h.position_at_end(entry);
            h.br(head);
            h.position_at_end(head);
            let k = h.phi(i64t);
            k.add_incoming(i64t.zero(), entry);
            let more = h.icmp(IntPred::LLVMIntULT, k, i64t.int_const(ENTRIES));
            h.cond_br(more, body, done);
            h.position_at_end(body);
            let off = h.mul(k, i64t.int_const(ENTRY));
            let e = h.gep(Ty::int(ctx, 8), table, &[off], true);
            let key = h.load(ptr, e, 8);
            let empty = h.icmp(IntPred::LLVMIntEQ, key, ptr.zero());
            h.cond_br(empty, next, add);
            h.position_at_end(add);
            let s = h.gep(Ty::int(ctx, 8), e, &[i64t.int_const(8)], true);
            let sum = h.load(t, s, 8);
            h.atomic_fadd(key, sum);
            h.br(next);
            h.position_at_end(next);
            let k1 = h.add(k, i64t.int_const(1));
            k.add_incoming(k1, next);
            h.br(head);
            h.position_at_end(done);
            let free = m.get_or_add_function("free", Ty::function(Ty::void(ctx), &[ptr], false));
            h.call_function(free, &[table]);
            h.ret_void();
            f
        }
    };
    b.call_function(helper, &[table]);
}
