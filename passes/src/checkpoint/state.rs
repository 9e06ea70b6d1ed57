//! What a checkpointed step carries from one step to the next, and whether the snapshots hold
//! it: run on the canonical module (after mem2reg), before any derivative is built.
//!
//! A snapshot must hold every piece of memory a step writes that a step reads: a recomputed
//! step reads what the snapshot restored, and anything else as the reverse sweep finds it
//! (after the last step), which is a silently wrong gradient (and a primal that the recomputed
//! steps changed again). [`cover_all`] looks at each call of a loop function or fixed-point
//! function in a function that requests reach: it follows the step's pointers (and those of
//! the functions it calls with a body and of its OpenMP regions, through parameters, pointers
//! held in memory at constant offsets, and pointers kept in the step's own local slots) back
//! to the call's arguments ([`Place`]), collects where the step tree writes and reads, and
//! compares what it both writes and reads with the marked regions. A global passed
//! to the step (its size is known) that no region holds becomes a region of its own; anything
//! else left uncovered (heap memory reached through a parameter or through a loaded pointer,
//! memory the analysis cannot trace) makes the call refuse reverse mode with one line naming
//! the step, the store and its source location, and saying to mark the region
//! ([`REFUSE_ATTR`], read by [`super::refusal`]).
//!
//! Guarantees: unsure means covered-or-refused, never silently wrong, for memory reached
//! through pointers; two different arguments are taken to point to different objects (as the
//! user marks them), and memory written by calls of functions without a body beyond their
//! pointer arguments (I/O state, a library's hidden state) is not tracked (the guide says so).
//! Memory the step writes but never reads (a trajectory it records) needs no snapshot, and
//! memory the step both writes and reads needs one even when each step writes it before
//! reading it (a scratch buffer passed in): mark it, or allocate it inside the step.

use std::collections::{HashMap, HashSet};

use crate::analysis::objects::underlying_objects;
use crate::diag::{Error, Result};
use crate::ir::{Builder, Module, Opcode, Ty, Val};
use crate::rules::user::UserRules;

use super::{CHECKED_ATTR, FIXED_PARAMS, REFUSE_ATTR};

/// How many pointers loaded from memory are followed before a place counts as unknown.
const MAX_DEREF: usize = 4;

/// Where a pointer of the step's call tree may point, seen from the loop function's call
/// site.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Place {
    /// An underlying object at the call site: a parameter of the calling function, a global,
    /// an allocation, ...
    Object(Val),
    /// Memory a pointer loaded from a place points into; the byte offset of the load from the
    /// place's object when constant.
    Loaded(Box<Place>, Option<i64>),
    /// Memory the analysis cannot trace (`inttoptr`, a call's result, loads nested too deep).
    Unknown,
    /// A stack slot or an allocation of the step tree: new in every step, never state; a
    /// pointer loaded from it is what the step tree stored there.
    Local(Val),
}

impl Place {
    /// How many pointers loaded from memory lead to it.
    fn depth(&self) -> usize {
        match self {
            Place::Loaded(inner, _) => 1 + inner.depth(),
            _ => 0,
        }
    }

    /// Whether an access to `self` may touch memory an access to `other` touches.
    fn may_meet(&self, other: &Place) -> bool {
        match (self, other) {
            (Place::Unknown, _) | (_, Place::Unknown) => true,
            (Place::Object(a), Place::Object(b)) | (Place::Local(a), Place::Local(b)) => a == b,
            (Place::Loaded(a, x), Place::Loaded(b, y)) => {
                a.may_meet(b) && (x.is_none() || y.is_none() || x == y)
            }
            _ => false,
        }
    }
}

/// A place, and the byte offset in its object a pointer points to (`None`: unknown).
type Located = (Place, Option<i64>);

/// The places of a function's parameters (`None`: the calling function, whose parameters are
/// their own places).
type Env = HashMap<Val, HashSet<Located>>;

/// At most this many places per parameter; past it their offsets are forgotten, so a recursion
/// that moves a pointer on each call cannot grow the sets for ever.
const MAX_PLACES: usize = 16;

/// Passes over the step tree before the places of its parameters are taken as not settling.
const MAX_ROUNDS: usize = 64;

/// The places pointer `p` of function `env`'s owner may point into, each with the offset of
/// `p` in it: allocas and allocations made in the step tree (`fresh`) are skipped, they are
/// new in every step.
fn places(m: Module, p: Val, env: Option<&Env>, fresh: bool) -> HashSet<Located> {
    places_in(m, p, env, fresh, &mut Vec::new())
}

fn places_in(
    m: Module,
    p: Val,
    env: Option<&Env>,
    fresh: bool,
    visiting: &mut Vec<Val>,
) -> HashSet<Located> {
    let mut out = HashSet::new();
    let (base, off) = base_offset(m, p);
    let objects = underlying_objects(base);
    // Through a phi or a select the offset from each object is unknown.
    let off = if objects.len() == 1 && objects.contains(&base) {
        off
    } else {
        None
    };
    for o in objects {
        if o.is_undef() || o.is_function() || (o.is_constant() && o.is_null_constant()) {
            continue;
        }
        if o.is_global_variable() {
            if !o.is_global_constant() {
                out.insert((Place::Object(o), off));
            }
            continue;
        }
        if o.is_argument() {
            match env {
                Some(env) => {
                    for (pl, at) in env.get(&o).into_iter().flatten() {
                        let at = at.zip(off).and_then(|(a, b)| a.checked_add(b));
                        out.insert((pl.clone(), at));
                    }
                }
                None => {
                    out.insert((Place::Object(o), off));
                }
            }
            continue;
        }
        if !o.is_instruction() {
            out.insert((Place::Unknown, None));
            continue;
        }
        match o.opcode() {
            Opcode::LLVMAlloca if fresh => {
                out.insert((Place::Local(o), off));
            }
            Opcode::LLVMLoad => {
                for (b, field) in places_in(m, o.operand(0), env, fresh, visiting) {
                    match b {
                        // A pointer kept in a local slot: what the step tree stored there.
                        Place::Local(slot) if !visiting.contains(&slot) => {
                            visiting.push(slot);
                            for v in stored_into(slot) {
                                let found = match v {
                                    Some(v) => places_in(m, v, env, fresh, visiting),
                                    None => [(Place::Unknown, None)].into_iter().collect(),
                                };
                                for (pl, at) in found {
                                    let at = at.zip(off).and_then(|(a, b)| a.checked_add(b));
                                    out.insert((pl, at));
                                }
                            }
                            visiting.pop();
                        }
                        Place::Local(_) => {}
                        b if b.depth() >= MAX_DEREF => {
                            out.insert((Place::Unknown, None));
                        }
                        b => {
                            out.insert((Place::Loaded(Box::new(b), field), off));
                        }
                    }
                }
            }
            Opcode::LLVMCall | Opcode::LLVMInvoke if allocation(o) => {
                let pl = if fresh {
                    Place::Local(o)
                } else {
                    Place::Object(o)
                };
                out.insert((pl, off));
            }
            _ => {
                out.insert((Place::Unknown, None));
            }
        }
    }
    out
}

/// The pointers stored into local slot `slot` (an alloca or a fresh allocation of the step
/// tree): by stores in its function, and by stores in the bodies it is passed to (a function
/// with a body, an OpenMP region) through the parameter it is bound to; `None` for a write
/// the analysis cannot see (the slot passed on further, or to a function without a body).
fn stored_into(slot: Val) -> Vec<Option<Val>> {
    let mut out = Vec::new();
    let mut holders = vec![slot];
    let mut seen = HashSet::new();
    while let Some(h) = holders.pop() {
        if !seen.insert(h) || seen.len() > 64 {
            if seen.len() > 64 {
                out.push(None);
            }
            continue;
        }
        let Some(f) = h.parent_function() else {
            out.push(None);
            continue;
        };
        for i in f.blocks().into_iter().flat_map(|b| b.instructions()) {
            match i.opcode() {
                Opcode::LLVMStore
                    if i.operand(0).ty().contains_ptr()
                        && underlying_objects(i.operand(1)).contains(&h) =>
                {
                    out.push(Some(i.operand(0)));
                }
                Opcode::LLVMCall | Opcode::LLVMInvoke => {
                    let holds = |a: &Val| a.ty().is_ptr() && underlying_objects(*a).contains(&h);
                    let args = i.call_args();
                    let passed = args.iter().filter(|a| holds(a)).count();
                    if passed == 0 {
                        continue;
                    }
                    match callee_binding(i) {
                        Some((_, params, bound)) => {
                            // The callee's parameter bound to the slot holds it in turn.
                            let mut found = 0;
                            for (p, a) in params.into_iter().zip(bound) {
                                if holds(&a) {
                                    holders.push(p);
                                    found += 1;
                                }
                            }
                            if found < passed {
                                out.push(None);
                            }
                        }
                        None => {
                            let rule = crate::rules::lookup_call(i);
                            let writes_slot = match rule {
                                Some(r) if r.effects.inert || !r.effects.writes => false,
                                Some(r) => r
                                    .effects
                                    .writes_arg
                                    .is_none_or(|w| args.get(w.arg as usize).is_none_or(holds)),
                                None => true,
                            };
                            if writes_slot {
                                out.push(None);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The places alone.
fn bare(located: HashSet<Located>) -> HashSet<Place> {
    located.into_iter().map(|(p, _)| p).collect()
}

/// Whether call `c` returns a fresh block (a rule that allocates and neither writes nor frees).
fn allocation(c: Val) -> bool {
    c.ty().is_ptr()
        && crate::rules::lookup_call(c)
            .is_some_and(|r| r.effects.allocates && !r.effects.writes && !r.effects.frees)
}

/// `p` as (base, constant byte offset) through constant GEPs and casts; a variable GEP keeps
/// its base with no offset.
fn base_offset(m: Module, p: Val) -> (Val, Option<i64>) {
    let mut v = p;
    let mut off = Some(0i64);
    loop {
        let op = if v.is_instruction() {
            v.opcode()
        } else if v.is_constant_expr() {
            v.const_opcode()
        } else {
            return (v, off);
        };
        match op {
            Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => v = v.operand(0),
            Opcode::LLVMGetElementPtr => {
                off = off
                    .zip(m.const_gep_offset(v))
                    .and_then(|(a, b)| a.checked_add(b));
                v = v.operand(0);
            }
            _ => return (v, off),
        }
    }
}

/// One access of the step tree: the instruction and where it may reach.
struct Access {
    inst: Val,
    places: HashSet<Located>,
}

/// Where the step tree writes and reads, its pointer parameters bound to the call's arguments.
struct Accesses {
    writes: Vec<Access>,
    reads: Vec<Access>,
}

/// The places of every parameter of the step tree's functions, context-insensitively (the
/// union over the calls), to a fixed point; then every write and read with its places.
fn accesses(step: Val, step_args: &[Val], rules: &UserRules) -> Accesses {
    let m = step.module();
    // Parameters are values of their own: one map serves every function of the tree.
    let mut env = Env::new();
    for (p, a) in step.params().into_iter().skip(1).zip(step_args) {
        if p.ty().is_ptr() {
            env.insert(p, places(m, *a, None, false));
        }
    }
    let mut walked: Vec<Val> = vec![step];
    let mut rounds = 0;
    loop {
        let mut changed = false;
        for k in 0..walked.len() {
            let f = walked[k];
            for i in f.blocks().into_iter().flat_map(|b| b.instructions()) {
                let Some((g, params, args)) = callee_binding(i) else {
                    continue;
                };
                if !walked.contains(&g) {
                    walked.push(g);
                    changed = true;
                }
                for (p, a) in params.into_iter().zip(args) {
                    if !p.ty().is_ptr() {
                        continue;
                    }
                    let found = places(m, a, Some(&env), true);
                    let set = env.entry(p).or_default();
                    for (pl, at) in found {
                        let at = if set.len() >= MAX_PLACES { None } else { at };
                        changed |= set.insert((pl, at));
                    }
                }
            }
        }
        if !changed {
            break;
        }
        rounds += 1;
        if rounds > MAX_ROUNDS {
            // Not settled: everything the step touches is unknown, which refuses.
            let first = step
                .blocks()
                .into_iter()
                .flat_map(|b| b.instructions())
                .next();
            let Some(first) = first else {
                break;
            };
            let unknown = || Access {
                inst: first,
                places: [(Place::Unknown, None)].into_iter().collect(),
            };
            return Accesses {
                writes: vec![unknown()],
                reads: vec![unknown()],
            };
        }
    }
    let mut acc = Accesses {
        writes: Vec::new(),
        reads: Vec::new(),
    };
    for f in &walked {
        for i in f.blocks().into_iter().flat_map(|b| b.instructions()) {
            let at = |p: Val| places(m, p, Some(&env), true);
            let write = |p: Val, acc: &mut Accesses| {
                acc.writes.push(Access {
                    inst: i,
                    places: at(p),
                })
            };
            match i.opcode() {
                Opcode::LLVMStore => write(i.operand(1), &mut acc),
                Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg => {
                    write(i.operand(0), &mut acc);
                    acc.reads.push(Access {
                        inst: i,
                        places: at(i.operand(0)),
                    });
                }
                Opcode::LLVMLoad => acc.reads.push(Access {
                    inst: i,
                    places: at(i.operand(0)),
                }),
                Opcode::LLVMCall | Opcode::LLVMInvoke => {
                    if callee_binding(i).is_some() {
                        continue; // its body is walked with its parameters' places
                    }
                    let (ptrs, _hidden) = crate::analysis::overwrite::call_write_pointers(i, rules);
                    for p in ptrs {
                        write(p, &mut acc);
                    }
                    for p in call_reads(i) {
                        acc.reads.push(Access {
                            inst: i,
                            places: at(p),
                        });
                    }
                }
                _ => {}
            }
        }
    }
    acc
}

/// The body call `i` runs with its parameters and the arguments bound to them: a function with
/// a body, or the outlined body of an OpenMP parallel region (`__kmpc_fork_call(loc, n, body,
/// captured...)` runs `body(gtid, btid, captured...)`).
fn callee_binding(i: Val) -> Option<(Val, Vec<Val>, Vec<Val>)> {
    if !i.is_call() {
        return None;
    }
    if let Some(g) = crate::openmp::outlined(i) {
        let params = g.params().into_iter().skip(2).collect();
        let args = i.call_args().into_iter().skip(3).collect();
        return Some((g, params, args));
    }
    let g = i.called_function().filter(|g| !g.is_declaration())?;
    Some((g, g.params(), i.call_args()))
}

/// The pointer arguments a call of a function without a body may read through: the one its
/// rule names, none for a rule that reads nothing, every pointer argument otherwise.
fn call_reads(call: Val) -> Vec<Val> {
    let args = call.call_args();
    let rule = crate::rules::lookup_call(call);
    if rule.is_some_and(|r| r.effects.inert || r.effects.lifetime) {
        return Vec::new();
    }
    if let Some(r) = rule {
        if let Some(a) = r.effects.reads_arg {
            return args.get(a.arg as usize).copied().into_iter().collect();
        }
        if !r.effects.reads {
            return Vec::new();
        }
    }
    args.into_iter()
        .filter(|a| a.ty().is_ptr_or_ptr_vector())
        .collect()
}

/// What one call of a loop function leaves uncovered.
enum Verdict {
    /// Every piece of state is in a region.
    Covered,
    /// Globals passed to the step that no region holds: regions of their own.
    Add(Vec<Val>),
    /// State no region holds and whose size is unknown: the error for reverse mode.
    Refuse(Error, Vec<Val>),
}

/// The shape of a call of a loop function or a fixed-point function: where the memory its
/// snapshots hold is passed, and where the step's arguments start.
#[derive(Clone, Copy)]
struct Shape {
    /// Parameters before the memory's pointers.
    fixed: usize,
    /// Pieces of memory (regions; for a fixed point, states and regions).
    memory: usize,
    /// A fixed point (`__enzyme_fixed_point`) rather than a checkpointed loop.
    fixed_point: bool,
}

impl Shape {
    fn args(self) -> usize {
        self.fixed + 2 * self.memory
    }
}

/// Judges call `call` (of shape `shape`) of `step`.
fn judge(call: Val, step: Val, shape: Shape, rules: &UserRules) -> Verdict {
    let args = call.call_args();
    let m = step.module();
    let regions: HashSet<Place> = args[shape.fixed..shape.fixed + shape.memory]
        .iter()
        .flat_map(|p| bare(places(m, *p, None, false)))
        .collect();
    let step_args = &args[shape.args()..];
    let acc = accesses(step, step_args, rules);
    let mut add: Vec<Val> = Vec::new();
    let mut refuse: Option<Error> = None;
    for w in &acc.writes {
        for place in &bare(w.places.clone()) {
            if matches!(place, Place::Local(_)) {
                continue; // new in every step
            }
            // Memory the steps only write (a trajectory they record) is written again, the
            // same, by the recomputed steps: only what they also read is state.
            let read = || {
                acc.reads
                    .iter()
                    .any(|rd| rd.places.iter().any(|(p, _)| p.may_meet(place)))
            };
            if regions.contains(place) || !read() {
                continue;
            }
            if let Place::Object(g) = place {
                if g.is_global_variable() {
                    if !add.contains(g) {
                        add.push(*g);
                    }
                    continue;
                }
            }
            if refuse.is_some() {
                continue;
            }
            let outlined = step.name().starts_with(super::outline::STEP_PREFIX);
            let (what, later, entry, otherwise) = if outlined {
                (
                    "checkpointed loop",
                    "later iterations",
                    "umbra_checkpoint_next_loop",
                    "the recomputed iterations read it as the reverse sweep finds it",
                )
            } else if shape.fixed_point {
                (
                    "fixed-point step",
                    "later iterations",
                    "__enzyme_fixed_point",
                    "the derivative's iterations read it as the previous one left it",
                )
            } else {
                (
                    "checkpointed step",
                    "later steps",
                    "__enzyme_checkpoint_for",
                    "the recomputed steps read it as the reverse sweep finds it",
                )
            };
            refuse = Some(Error::at(
                w.inst,
                if outlined {
                    format!(
                        "{what} '{}' writes memory that {later} read and no snapshot holds ({}): mark it with umbra_checkpoint_region, pointer, bytes in a call of {entry} just before the loop (in place of a loop attribute), or {otherwise}",
                        step.name(),
                        describe(m, place, step_args, true)
                    )
                } else {
                    format!(
                        "{what} '{}' writes memory that {later} read and no snapshot holds ({}): mark it with enzyme_checkpoint_region, pointer, bytes in the call of {entry}, or {otherwise}",
                        step.name(),
                        describe(m, place, step_args, false)
                    )
                },
            ));
        }
    }
    match refuse {
        Some(e) => Verdict::Refuse(e, add),
        None if add.is_empty() => Verdict::Covered,
        None => Verdict::Add(add),
    }
}

/// The place in the user's words, by the step's argument (numbered from the index, 0) that
/// leads to it.
/// For a loop the outliner made (`outlined`), the arguments are the function's own values,
/// named as such.
fn describe(m: Module, p: &Place, step_args: &[Val], outlined: bool) -> String {
    let root = |mut q: &Place| {
        let mut through = 0;
        while let Place::Loaded(inner, _) = q {
            q = inner;
            through += 1;
        }
        (q.clone(), through)
    };
    let (base, through) = root(p);
    let arg = step_args
        .iter()
        .position(|a| bare(places(m, *a, None, false)).contains(&base))
        .map(|k| k + 1);
    match (base, arg) {
        (Place::Unknown, _) => "memory the analysis cannot trace to the step's arguments".into(),
        (_, Some(k)) if outlined => {
            let a = step_args[k - 1];
            let name = if a.is_argument() {
                crate::diag::describe_parameter(a)
            } else {
                crate::diag::short(a)
            };
            let how = if through == 0 {
                "the memory"
            } else {
                "memory reached through a pointer stored where"
            };
            format!("{how} {name} points to")
        }
        (_, Some(k)) if through == 0 => format!("the memory its argument {k} points to"),
        (_, Some(k)) => {
            format!("memory reached through a pointer stored where its argument {k} points")
        }
        (Place::Object(o), None) => format!("memory of {}", crate::diag::short(o)),
        (_, None) => "memory reached through a pointer stored in memory".into(),
    }
}

/// Checks every call of a loop function or a fixed-point function in `canonical` (the
/// functions requests reach) and covers or marks it ([`REFUSE_ATTR`]).
pub fn cover_all(module: Module, canonical: &HashSet<Val>, rules: &UserRules) -> Result<()> {
    let targets: Vec<Val> = module
        .functions()
        .into_iter()
        .filter(|f| !f.is_declaration() && (super::is_loop(*f) || super::fixed::is_fixed_point(*f)))
        .collect();
    for f in targets {
        let Some(step) = super::step_of(f) else {
            continue;
        };
        let shape = if super::is_loop(f) {
            Shape {
                fixed: FIXED_PARAMS,
                memory: super::regions_of(f, step),
                fixed_point: false,
            }
        } else {
            let (s, r) = super::fixed_emit::counts(f);
            Shape {
                fixed: super::fixed_emit::FIXED,
                memory: s + r,
                fixed_point: true,
            }
        };
        let mut all_judged = true;
        for call in f.users() {
            let inside = call.is_call()
                && call.called_value() == f
                && call
                    .parent_function()
                    .is_some_and(|g| canonical.contains(&g));
            if !inside {
                all_judged = false;
                continue;
            }
            match judge(call, step, shape, rules) {
                Verdict::Covered => {}
                Verdict::Add(globals) => {
                    let g = rebuild(module, call, f, step, shape, &globals, None);
                    g.set_string_fn_attr(CHECKED_ATTR, "");
                }
                Verdict::Refuse(e, globals) => {
                    rebuild(module, call, f, step, shape, &globals, Some(e.to_string()));
                }
            }
        }
        if !f.has_uses() {
            f.delete_global();
        } else if all_judged && f.string_fn_attr(REFUSE_ATTR).is_none() {
            f.set_string_fn_attr(CHECKED_ATTR, "");
        }
    }
    Ok(())
}

/// Replaces `call` of `f` by a call of a function of the same kind with `globals` as regions
/// too; with `refusal`, a function of its own carrying it.
fn rebuild(
    module: Module,
    call: Val,
    f: Val,
    step: Val,
    shape: Shape,
    globals: &[Val],
    refusal: Option<String>,
) -> Val {
    let args = call.call_args();
    let (fixed, m) = (shape.fixed, shape.memory);
    let i64t = Ty::int(module.context(), 64);
    let mut b = Builder::new(module);
    b.position_before(call);
    let sizes: Vec<Val> = globals
        .iter()
        .map(|g| i64t.int_const(module.alloc_size(g.global_value_type())))
        .collect();
    let mut new_args = args[..fixed].to_vec();
    if !shape.fixed_point {
        // The number of regions and their total size.
        new_args[4] = i64t.int_const((m + globals.len()) as u64);
        for s in &sizes {
            new_args[5] = b.add(new_args[5], *s);
        }
    }
    new_args.extend(&args[fixed..fixed + m]);
    new_args.extend(globals.iter().copied());
    new_args.extend(&args[fixed + m..fixed + 2 * m]);
    new_args.extend(sizes);
    new_args.extend(&args[shape.args()..]);
    let fresh = refusal.is_some();
    let target = if shape.fixed_point {
        let (s, r) = super::fixed_emit::counts(f);
        let ptys: Vec<Ty> = new_args.iter().map(|a| a.ty()).collect();
        super::fixed::fixed_point_function(module, step, (s, r + globals.len()), &ptys, fresh)
    } else {
        let step_arg_tys: Vec<Ty> = args[shape.args()..].iter().map(|a| a.ty()).collect();
        let nr = m + globals.len();
        super::loop_function(module, step, super::is_while(f), nr, &step_arg_tys, fresh)
    };
    if let Some(msg) = refusal {
        target.set_string_fn_attr(REFUSE_ATTR, &msg);
    }
    let new_call = b.call_function(target, &new_args);
    new_call.copy_debug_location(call);
    call.erase();
    target
}
