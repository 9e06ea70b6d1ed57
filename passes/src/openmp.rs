//! What both modes share about OpenMP parallel regions (clang `-fopenmp`, libomp): recognising
//! `__kmpc_fork_call`, the functions that run inside a parallel region, variables captured by
//! value ([`captured_float`]), the runtime calls that order a region's threads ([`Sync`]:
//! barriers, critical sections, blocking reductions) and what the adjoint emits for them (the
//! tickets that order the adjoints of critical sections and reductions), which runtime calls
//! reverse mode can mirror, and which captured variables a region only reads
//! ([`read_only_capture`]).
//!
//! A region is `__kmpc_fork_call(loc, argc, outlined, captured...)`: every thread of the team
//! runs `outlined(&gtid, &btid, captured...)`, the captured variables passed by address, or by
//! value in pointer-sized integers. The derivatives of a region run through `__kmpc_fork_call`
//! again, with the outlined function's derivative (`forward/openmp.rs`, `reverse/openmp.rs`).
//!
//! Guarantees: a function that may run on several threads at once (an outlined function and
//! everything it calls, [`parallel_functions`]) accumulates adjoints into memory other threads
//! may share with atomic adds, unless `reverse/partial_sums.rs` proves no other thread adds to
//! the same adjoint meanwhile; a barrier of the primal is a barrier of the adjoint; critical sections,
//! also those of reductions, are reversed one at a time in the reverse of the order the
//! threads ran them; any other OpenMP runtime call
//! in a reverse-mode region is an error ([`check_reverse`]), and so is a capture by value whose
//! float bits cannot travel whole, never a silently unsynchronised or dropped adjoint.

use crate::diag::{Error, Result};
use crate::ir::{Builder, IntPred, Module, Opcode, Ty, TyKind, Val};
use std::collections::HashSet;

/// The runtime entry that runs a parallel region.
pub const FORK: &str = "__kmpc_fork_call";

/// The outlined function a call to `__kmpc_fork_call` runs, if `call` is one.
pub fn outlined(call: Val) -> Option<Val> {
    if !is_fork(call) {
        return None;
    }
    let f = *call.call_args().get(2)?;
    (f.is_function() && !f.is_declaration()).then_some(f)
}

/// What the type analysis knows of a variable captured by value: the float type whose bits the
/// caller's argument and the outlined function's parameter carry whole, and whether either
/// holds float data in part (`Session::capture_bits` fills it).
#[derive(Clone, Copy, Debug, Default)]
pub struct CaptureBits {
    pub caller: Option<Ty>,
    pub callee: Option<Ty>,
    pub partly_float: bool,
}

/// The floating-point type that argument `k` of the `__kmpc_fork_call` `call`, a variable
/// captured by value (`firstprivate`, or a scalar clang passes in a pointer-sized integer),
/// carries into the region: `None` for integer data, which never has a derivative, however
/// the activity analysis reached it (an `int` loaded from differentiable memory). `bits` asks
/// the type analysis about the argument and the outlined function's parameter.
///
/// A `double` travels as the bits of an `i64` (the type analysis finds them on both sides:
/// the caller's `bitcast` or spill, the outlined function's reload); the derivative then
/// travels the same way, in the same slot. A `float` in the low half of an `i64` was widened to
/// a `double` before ([`crate::openmp_float`]). Anything else carrying float bits (a
/// `_Float16`, a value the analysis cannot place) is refused: dropping its derivative would be
/// a silently wrong result.
pub fn captured_float(
    m: Module,
    call: Val,
    k: usize,
    active: bool,
    bits: impl FnOnce(Val, Val) -> CaptureBits,
) -> Result<Option<Ty>> {
    let a = call.call_args()[k];
    if !active || a.ty().is_ptr() {
        return Ok(None);
    }
    let Some(f) = outlined(call) else {
        return Ok(None);
    };
    let refuse = |what: &str| {
        Err(Error::at(
            call,
            format!(
                "cannot differentiate this OpenMP parallel region: it captures '{}' by value, {what} (captures by value are supported for integers, `float`s and `double`s; capture it by address, e.g. `shared`, or as a `double`)",
                crate::diag::short(a)
            ),
        ))
    };
    if !a.ty().is_int() {
        return refuse("a value that is not passed in a pointer-sized integer");
    }
    let b = bits(a, f.params()[k - 1]);
    let whole = |t: Ty| t.kind() == TyKind::Float && m.alloc_size(t) == m.alloc_size(a.ty());
    match (b.caller, b.callee) {
        (Some(t), Some(u)) if t == u && whole(t) => Ok(Some(t)),
        // Integer data on both sides, unless either holds float bits only in part.
        (None, None) if b.partly_float => refuse(
            "floating-point data that does not fill the pointer-sized integer it travels in (a `_Float16`?)",
        ),
        (None, None) => Ok(None),
        _ => refuse("floating-point data the region and its caller do not agree on"),
    }
}

/// True when `call` is a call to `__kmpc_fork_call`.
pub fn is_fork(call: Val) -> bool {
    call.is_call() && call.called_function().is_some_and(|f| f.name() == FORK)
}

/// The functions of `m` that may run on several threads at once: the outlined functions of its
/// parallel regions and every function they call directly, transitively.
pub fn parallel_functions(m: Module) -> HashSet<Val> {
    let mut todo: Vec<Val> = Vec::new();
    for f in m.functions() {
        for b in f.blocks() {
            todo.extend(b.instructions().into_iter().filter_map(outlined));
        }
    }
    let mut seen = HashSet::new();
    while let Some(f) = todo.pop() {
        if f.is_declaration() || !seen.insert(f) {
            continue;
        }
        for b in f.blocks() {
            for i in b.instructions() {
                if i.is_call() || i.is_invoke() {
                    if let Some(g) = i.called_function() {
                        todo.push(g);
                    }
                }
            }
        }
    }
    seen
}

/// OpenMP runtime calls reverse mode mirrors inside a parallel region: scheduling and thread
/// queries (primal only: the adjoint replays the same iterations from the tape), `single`,
/// `master` and `masked` (primal only: the adjoint follows the branches the primal took, on
/// the same thread's tape), barriers (a barrier in the adjoint, [`Sync`]), `critical`
/// sections (reversed one at a time, in the reverse of the order the threads ran them) and
/// reductions (their critical sections reversed like `critical` ones).
const REVERSE_SUPPORTED: &[&str] = &[
    "__kmpc_barrier",
    "__kmpc_critical",
    "__kmpc_critical_with_hint",
    "__kmpc_end_critical",
    "__kmpc_single",
    "__kmpc_end_single",
    "__kmpc_master",
    "__kmpc_end_master",
    "__kmpc_masked",
    "__kmpc_end_masked",
    "__kmpc_reduce",
    "__kmpc_end_reduce",
    "__kmpc_for_static_init_4",
    "__kmpc_for_static_init_4u",
    "__kmpc_for_static_init_8",
    "__kmpc_for_static_init_8u",
    "__kmpc_for_static_fini",
    // Dynamic and guided schedules: the thread is handed chunks of iterations, writing only
    // the loop's bound variables; the augmented sweep keeps the bounds of each chunk it ran
    // (memory the next chunk overwrites), and the thread's adjoint runs them in reverse.
    "__kmpc_dispatch_init_4",
    "__kmpc_dispatch_init_4u",
    "__kmpc_dispatch_init_8",
    "__kmpc_dispatch_init_8u",
    "__kmpc_dispatch_next_4",
    "__kmpc_dispatch_next_4u",
    "__kmpc_dispatch_next_8",
    "__kmpc_dispatch_next_8u",
    "__kmpc_dispatch_deinit",
    "__kmpc_reduce_nowait",
    "__kmpc_end_reduce_nowait",
    "__kmpc_global_thread_num",
    "__kmpc_push_num_threads",
    "omp_get_thread_num",
    "omp_get_num_threads",
    "omp_get_max_threads",
    "omp_get_wtime",
    FORK,
];

/// Reverse mode refuses OpenMP runtime calls it does not mirror: an `ordered` section or a
/// task orders the primal's threads, and the adjoint would run without that order (a data
/// race, so a wrong gradient).
pub fn check_reverse(call: Val) -> Result<()> {
    let Some(name) = call.called_function().map(|f| f.name()) else {
        return Ok(());
    };
    let runtime = name.starts_with("__kmpc_") || name.starts_with("omp_");
    if runtime && !REVERSE_SUPPORTED.contains(&name.as_str()) {
        return Err(Error::at(
            call,
            format!("reverse mode cannot differentiate the OpenMP construct that calls '{name}' yet: parallel regions are differentiated with static, dynamic and guided schedules, barriers, critical, single, master and masked sections and reductions only (no ordered sections, tasks, copyprivate or locks)"),
        ));
    }
    Ok(())
}

/// A runtime call that orders the threads of a region, and what the adjoint does in its place.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Sync {
    /// `__kmpc_barrier`: a barrier, at the mirrored point.
    Barrier,
    /// `__kmpc_critical(loc, gtid, lock)`: going backwards the section ends here; the thread
    /// passes the turn on ([`release_turn`]).
    Critical,
    /// `__kmpc_end_critical`: going backwards the section starts here, once it is this
    /// thread's turn ([`wait_turn`]).
    EndCritical,
    /// `__kmpc_end_reduce` (a blocking reduction): it released the reduction's lock and waited
    /// at a barrier; the adjoint waits at a barrier, then for its turn.
    EndReduce,
}

/// What `i` is, if it is a runtime call that orders the threads of a region.
pub fn sync_kind(i: Val) -> Option<Sync> {
    if i.opcode() != Opcode::LLVMCall {
        return None;
    }
    match i.called_function()?.name().as_str() {
        "__kmpc_barrier" => Some(Sync::Barrier),
        // `critical` with a `hint` clause: the same arguments, then the hint.
        "__kmpc_critical" | "__kmpc_critical_with_hint" => Some(Sync::Critical),
        "__kmpc_end_critical" => Some(Sync::EndCritical),
        "__kmpc_end_reduce" => Some(Sync::EndReduce),
        _ => None,
    }
}

/// True when a thread of a region running `f` may wait for the others (a barrier, a critical
/// section whose adjoint waits for its turn, a blocking reduction), in `f` or a function it
/// calls: the adjoint then needs a team of the primal's size, every thread on its own tape.
pub fn waits_for_others(f: Val) -> bool {
    let mut todo = vec![f];
    let mut seen = HashSet::new();
    while let Some(g) = todo.pop() {
        if g.is_declaration() || !seen.insert(g) {
            continue;
        }
        for b in g.blocks() {
            for i in b.instructions() {
                if sync_kind(i).is_some() || ends_critical(i) {
                    return true;
                }
                if i.is_call() || i.is_invoke() {
                    todo.extend(i.called_function());
                }
            }
        }
    }
    false
}

/// `__kmpc_barrier(loc, gtid)` with the calling thread's own global id.
pub fn barrier(b: &mut Builder, loc: Val) {
    let m = b.module();
    let ctx = m.context();
    let (ptr, i32t) = (Ty::ptr(ctx), Ty::int(ctx, 32));
    let thread = m.get_or_add_function(
        "__kmpc_global_thread_num",
        Ty::function(i32t, &[ptr], false),
    );
    let gtid = b.call_function(thread, &[loc]);
    let f = m.get_or_add_function(
        "__kmpc_barrier",
        Ty::function(Ty::void(ctx), &[ptr, i32t], false),
    );
    b.call_function(f, &[loc, gtid]);
}

/// The counter of the critical sections run under `lock` (a `kmp_critical_name` global): the
/// augmented sweep takes a ticket from it inside each section; the adjoint reverses the
/// sections from the last ticket down, each giving its ticket back.
fn ticket_counter(m: Module, lock: Val) -> Result<Val> {
    if !lock.is_global_variable() {
        return Err(Error::internal(
            lock,
            "an OpenMP critical section whose lock is not a global variable",
        ));
    }
    let name = format!("umbra.omp.turn.{}", lock.name());
    if let Some(g) = m.global(&name) {
        return Ok(g);
    }
    let i64t = Ty::int(m.context(), 64);
    let g = m.add_global(i64t, &name);
    g.set_initializer(i64t.zero());
    g.set_internal();
    g.set_alignment(8);
    Ok(g)
}

/// Inside the critical section `enter` (a `__kmpc_critical`) began, the thread's ticket: the
/// number of sections under the same lock before this one, as a pointer-sized tape entry.
pub fn take_ticket(b: &mut Builder, enter: Val) -> Result<Val> {
    let m = b.module();
    let counter = ticket_counter(m, enter.call_args()[2])?;
    let i64t = Ty::int(m.context(), 64);
    let t = b.atomic_int_add(counter, i64t.int_const(1), false);
    Ok(b.cast(Opcode::LLVMIntToPtr, t, Ty::ptr(m.context())))
}

/// Going backwards into the critical section `end` (a `__kmpc_end_critical`) ended: waits until
/// every section under its lock with a later ticket than `ticket` is reversed.
pub fn wait_turn(b: &mut Builder, end: Val, ticket: Val) -> Result<()> {
    const NAME: &str = "umbra.omp.wait.turn";
    let m = b.module();
    let counter = ticket_counter(m, end.call_args()[2])?;
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let helper = match m.function(NAME) {
        Some(f) => f,
        None => {
            // while (*counter != ticket + 1) sched_yield();
            let f = m.add_function(NAME, Ty::function(Ty::void(ctx), &[ptr, ptr], false));
            f.set_internal();
            let mut h = Builder::new(m);
            let (entry, spin, done) = (
                f.append_block("entry"),
                f.append_block("spin"),
                f.append_block("done"),
            );
            let p = f.params();
            h.position_at_end(entry);
            let t = h.cast(Opcode::LLVMPtrToInt, p[1], i64t);
            let want = h.add(t, i64t.int_const(1));
            h.br(spin);
            h.position_at_end(spin);
            let now = h.load_seq_cst(i64t, p[0]);
            let mine = h.icmp(IntPred::LLVMIntEQ, now, want);
            let wait = f.append_block("wait");
            h.cond_br(mine, done, wait);
            h.position_at_end(wait);
            let yield_ =
                m.get_or_add_function("sched_yield", Ty::function(Ty::int(ctx, 32), &[], false));
            h.call_function(yield_, &[]);
            h.br(spin);
            h.position_at_end(done);
            h.ret_void();
            f
        }
    };
    b.call_function(helper, &[counter, ticket]);
    Ok(())
}

/// Going backwards out of the critical section `enter` began: the next ticket down may go.
pub fn release_turn(b: &mut Builder, enter: Val) -> Result<()> {
    let m = b.module();
    let counter = ticket_counter(m, enter.call_args()[2])?;
    let i64t = Ty::int(m.context(), 64);
    b.atomic_int_add(counter, i64t.int_const(1), true);
    Ok(())
}

/// Going backwards out of a reduction's critical section (the `__kmpc_reduce[_nowait]` call
/// under `lock` that returned `result`): when the section ran (`result == 1`; also `2`, its
/// atomic method, for a blocking reduction, `blocking`, which ends with `__kmpc_end_reduce`
/// either way and so took a ticket), the next ticket down may go ([`release_turn`]). Through
/// an internal helper so the adjoint sweep's own control flow is left alone.
pub fn reduction_turn_end(b: &mut Builder, lock: Val, result: Val, blocking: bool) -> Result<()> {
    let name = if blocking {
        "umbra.omp.reduce.release.blocking"
    } else {
        "umbra.omp.reduce.release"
    };
    let m = b.module();
    let ctx = m.context();
    let counter = ticket_counter(m, lock)?;
    let helper = match m.function(name) {
        Some(f) => f,
        None => {
            let (ptr, i32t, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 32), Ty::int(ctx, 64));
            let f = m.add_function(name, Ty::function(Ty::void(ctx), &[ptr, i32t], false));
            f.set_internal();
            let mut h = Builder::new(m);
            let (entry, release, done) = (
                f.append_block("entry"),
                f.append_block("release"),
                f.append_block("done"),
            );
            let p = f.params();
            h.position_at_end(entry);
            let ran = if blocking {
                // 1 or 2: (result - 1) <u 2.
                let r = h.sub(p[1], i32t.int_const(1));
                h.icmp(IntPred::LLVMIntULT, r, i32t.int_const(2))
            } else {
                h.icmp(IntPred::LLVMIntEQ, p[1], i32t.int_const(1))
            };
            h.cond_br(ran, release, done);
            h.position_at_end(release);
            h.atomic_int_add(p[0], i64t.int_const(1), true);
            h.br(done);
            h.position_at_end(done);
            h.ret_void();
            f
        }
    };
    b.call_function(helper, &[counter, result]);
    Ok(())
}

/// True when `i` ends a reduction's critical section (`__kmpc_end_reduce_nowait`).
pub fn ends_critical(i: Val) -> bool {
    i.opcode() == Opcode::LLVMCall
        && i.called_function()
            .is_some_and(|f| f.name() == "__kmpc_end_reduce_nowait")
}

/// True when alloca `a` holds no derivative: it is only loaded, given inactive pointers (a
/// constant pointer argument, the runtime's thread-id pointers that clang -O0 spills), and
/// passed to `__kmpc_fork_call`s whose outlined functions only read it. Such a variable needs
/// no shadow (a constant pointer stored there has none to give).
pub fn inactive_capture(a: Val, is_active: impl Fn(Val) -> bool) -> bool {
    let mut written = false;
    for u in a.users() {
        match u.opcode() {
            Opcode::LLVMLoad => {}
            Opcode::LLVMStore => {
                let v = u.operand(0);
                if u.operand(1) != a || is_active(v) || !v.ty().is_ptr() {
                    return false;
                }
                written = true;
            }
            Opcode::LLVMCall if is_fork(u) => {
                let Some(f) = outlined(u) else {
                    return false;
                };
                let args = u.call_args();
                let params = f.params();
                for (k, &x) in args.iter().enumerate() {
                    if x == a && (k < 3 || !params.get(k - 1).is_some_and(|&p| only_read(p, 0))) {
                        return false;
                    }
                }
            }
            _ => return false,
        }
    }
    written
}

/// True when the variable pointer `p` points to is only read: `p` is loaded from, spilled once
/// to a local slot whose reloads are again only read (clang -O0 spills every parameter), or
/// passed on to a function that only reads it (with -g, the outlined function forwards its
/// arguments to `outlined_debug__`).
fn only_read(p: Val, depth: u32) -> bool {
    only_read_at(p, depth, false)
}

/// [`only_read`], also through GEPs and comparisons of `p` when `geps` (the fields and
/// elements of the variable are only read too).
fn only_read_at(p: Val, depth: u32, geps: bool) -> bool {
    if depth > 4 {
        return false;
    }
    p.users().into_iter().all(|u| match u.opcode() {
        Opcode::LLVMLoad => u.operand(0) == p && !u.is_volatile(),
        Opcode::LLVMGetElementPtr if geps => u.operand(0) == p && only_read_at(u, depth, geps),
        // Comparing addresses reads no memory (the vectoriser's run-time alias checks).
        Opcode::LLVMICmp if geps => true,
        Opcode::LLVMCall => {
            let Some(g) = u.called_function().filter(|g| !g.is_declaration()) else {
                return false;
            };
            let params = g.params();
            let args = u.call_args();
            args.len() == params.len()
                && args
                    .iter()
                    .zip(&params)
                    .all(|(&a, &q)| a != p || only_read_at(q, depth + 1, geps))
        }
        Opcode::LLVMStore if u.operand(0) == p => {
            let slot = u.operand(1);
            slot.is_instruction()
                && slot.opcode() == Opcode::LLVMAlloca
                && slot.users().into_iter().all(|s| {
                    s == u || (s.opcode() == Opcode::LLVMLoad && only_read_at(s, depth + 1, geps))
                })
        }
        _ => false,
    })
}

/// True when `p` addresses a local variable of the function it is in (through GEPs and casts),
/// or a parameter every caller passes such an address in (`float B[3][8]` of an outlined
/// function, filled by a helper it calls): memory only the thread running that function uses,
/// whose adjoints need no atomic add.
pub fn thread_private(p: Val) -> bool {
    private_at(p, 0)
}

fn private_at(p: Val, depth: u32) -> bool {
    let mut v = p;
    for _ in 0..32 {
        if v.is_argument() {
            return depth < 4 && private_parameter(v, depth);
        }
        if !v.is_instruction() {
            return false;
        }
        match v.opcode() {
            Opcode::LLVMAlloca => return true,
            Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => {
                v = v.operand(0)
            }
            _ => return false,
        }
    }
    false
}

/// True when parameter `p` of a function whose every use is a direct call receives a
/// thread-private address from every call site (callers in other modules do not matter: they
/// never call its derivatives, which only derived callers in this module do). An outlined
/// function's parameters come from `__kmpc_fork_call`, which is not a direct call of it: never
/// private.
fn private_parameter(p: Val, depth: u32) -> bool {
    let Some(f) = p.parent_function() else {
        return false;
    };
    let Some(k) = f.params().iter().position(|&q| q == p) else {
        return false;
    };
    let users = f.users();
    !users.is_empty()
        && users.into_iter().all(|c| {
            (c.is_call() || c.is_invoke())
                && c.called_value() == f
                && c.call_args()
                    .get(k)
                    .is_some_and(|&a| private_at(a, depth + 1))
        })
}

/// The parameter of an outlined function that `p` is (directly, or reloaded from the one slot
/// clang -O0 spills it to), and the constant offset `p` adds to it, when the region only reads the variable behind it and nothing
/// else can reach that variable: every `__kmpc_fork_call` of the function passes there, once,
/// a local variable of its caller whose address goes nowhere else (loaded, stored to, and
/// given to parallel regions), and the function and everything it passes the parameter to
/// only load from it ([`only_read`]). The variable then keeps its value during the region,
/// so no adjoint in the region reads its shadow: every thread may sum its adjoints privately
/// and add the sum once (a scalar every iteration reads: a coefficient, a time step).
pub fn read_only_capture(p: Val) -> Option<(Val, u64)> {
    read_only_capture_at(p, 0)
}

fn read_only_capture_at(p: Val, depth: u32) -> Option<(Val, u64)> {
    if depth > 2 {
        return None;
    }
    // A field or element at a constant offset (`w[1]` of a shared `double w[2]`).
    let (base, offset) = match p.is_instruction() && p.opcode() == Opcode::LLVMGetElementPtr {
        true => {
            let m = p.parent_function()?.module();
            let off = crate::analysis::types::bytes::const_offset(m, p)?;
            (p.operand(0), off)
        }
        false => (p, 0),
    };
    let param = spilled_param(base).or_else(|| base.is_argument().then_some(base))?;
    let f = param.parent_function()?;
    let k = f.params().iter().position(|&q| q == param)?;
    // The runtime's two thread-id pointers come first (in an outlined function).
    if k < 2 || !param.ty().is_ptr() {
        return None;
    }
    let users = f.users();
    let once = |c: Val, a: Val| c.call_args().iter().filter(|&&x| x == a).count() == 1;
    let forks_only = !users.is_empty()
        && users.into_iter().all(|c| {
            if outlined(c) == Some(f) {
                return c
                    .call_args()
                    .get(k + 1)
                    .is_some_and(|&a| once(c, a) && local_unescaped(a));
            }
            // A function the outlined one calls with its own parameter (clang -g forwards
            // every argument to `.omp_outlined_debug__`): that parameter must be one.
            (c.is_call() || c.is_invoke())
                && c.called_value() == f
                && c.call_args().get(k).is_some_and(|&a| {
                    once(c, a) && read_only_capture_at(a, depth + 1).is_some_and(|(_, o)| o == 0)
                })
        });
    (forks_only && only_read_at(param, 0, true)).then_some((param, offset))
}

/// The parameter `p` reloads, when `p` is a load of a pointer from a local slot whose one
/// store is of that parameter (clang -O0's spill of every parameter).
fn spilled_param(p: Val) -> Option<Val> {
    if !p.is_instruction() || p.opcode() != Opcode::LLVMLoad {
        return None;
    }
    let slot = p.operand(0);
    if !slot.is_instruction() || slot.opcode() != Opcode::LLVMAlloca {
        return None;
    }
    let stores: Vec<Val> = slot
        .users()
        .into_iter()
        .filter(|u| u.opcode() != Opcode::LLVMLoad)
        .collect();
    match stores.as_slice() {
        [s] if s.opcode() == Opcode::LLVMStore && s.operand(1) == slot => {
            let v = s.operand(0);
            v.is_argument().then_some(v)
        }
        _ => None,
    }
}

/// True when `a` is a local variable (an `alloca`) whose address goes nowhere but to
/// parallel regions ([`address_kept`]).
pub fn local_unescaped(a: Val) -> bool {
    a.is_instruction() && a.opcode() == Opcode::LLVMAlloca && address_kept(a, 0)
}

/// True when the address `a` (of a local variable, or of a field or element of one) is only
/// loaded from, stored to, offset into addresses of the same kind, marked live or dead, and
/// (the variable's own) passed to parallel regions.
fn address_kept(a: Val, depth: u32) -> bool {
    depth < 8
        && a.users().into_iter().all(|u| match u.opcode() {
            Opcode::LLVMLoad => !u.is_volatile(),
            Opcode::LLVMStore => u.operand(1) == a && u.operand(0) != a,
            Opcode::LLVMGetElementPtr => u.operand(0) == a && address_kept(u, depth + 1),
            Opcode::LLVMICmp => true,
            Opcode::LLVMCall => {
                // Only the variable's own address goes to a region (once per region, checked
                // there): a field's would alias it under another parameter.
                (is_fork(u) && depth == 0)
                    || u.called_function().is_some_and(|g| {
                        let n = g.name();
                        n.starts_with("llvm.lifetime.") || n.starts_with("llvm.dbg.")
                    })
            }
            _ => false,
        })
}
