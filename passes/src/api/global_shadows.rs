//! Shadows Umbra creates for globals (Enzyme's implicit global shadows).
//!
//! A mutable global into which the differentiated code stores floating-point values gets a
//! shadow global created here, `<name>_shadow` (Enzyme's name), zero-initialised, and entered
//! in [`UserRules::global_shadows`] exactly like a shadow the user declared with
//! `enzyme_shadow`: from then on the engine treats the global as it treats a user-shadowed one
//! (loads from it are active, stores into it write their derivative into the shadow, calls
//! reaching it carry derivatives). The decision is made once, on the canonical code of every
//! function the requests reach and before any derived function exists, so a load visited
//! before the store that gives the global its shadow sees the same answer as the store.
//!
//! Which globals (an over-approximation: a shadow too many costs time, never correctness):
//! - a `store` of a non-constant value whose type holds floating-point data, to an address
//!   whose underlying objects include the global, in a function the requests reach, or to a
//!   pointer parameter of such a function that a call there passes an address in the global
//!   (transitively);
//! - never a global the user declared inactive (`enzyme_inactive`, `__enzyme_inactive_global`),
//!   gave a shadow, a constant, an LLVM or API global (`llvm.*`, `__enzyme_*`, `__umbra_*`),
//!   nor one whose type holds a pointer (its zeroed shadow would hold null where the global
//!   points somewhere: a store of a derivative there stays an error).
//!
//! A global that is only read by the differentiated code (a table of coefficients, a value
//! set up by `main`) gets no shadow: within the request its value is a constant, and its
//! loads are inactive. Globals holding integers get none either. With Enzyme's API of global
//! shadows in use ([`super::shadow_context`]), every float global the reached code refers to
//! or a query names gets one, and so do a global holding pointers to such globals that the
//! program only reads (its shadow points at theirs, [`shadow_sets::initialised_pointers`]) and,
//! with a context, a pointer global holding an allocation; the shadows the program can see
//! belong to it and are not zeroed here.
//!
//! Each chosen global gets one shadow per set and lane ([`super::shadow_sets`]: one set per
//! context call site and per width of the requests without one); the first set's shadows have
//! the plain `<name>_shadow` names, and each request is derived with its own set's.
//!
//! Inactive globals that the differentiated code reaches get a zero-filled *sink*
//! ([`UserRules::inactive_sinks`]): the stand-in shadow where a pointer into one meets
//! pointers with shadows (`select(c, @tmp, %x)` at `-O1`), so what goes there is dropped.
//!
//! Semantics across calls: the created shadows the program cannot see (of the request's set)
//! and the sinks are zeroed right before every request call (a `memset` inserted before it). A derivative therefore is that of the one
//! call, with each global's value at entry a constant, as the derivative of a function of its
//! arguments should be; what a gradient accumulates into a created shadow (the adjoint of a
//! global's value at entry) is not visible to the program. Enzyme leaves such shadows as they
//! are between calls, so a shadow left nonzero by one gradient (a global read before it is
//! written) corrupts the next; a program that wants the adjoints of its globals declares the
//! shadows itself (`enzyme_shadow`), and Umbra then neither creates nor zeroes them.

use super::shadow_context;
use super::shadow_sets::{self, Sets};
use crate::analysis::objects::underlying_objects;
use crate::api::Request;
use crate::diag::Result;
use crate::ir::{Builder, Module, Opcode, TyKind, Val};
use crate::rules::user::UserRules;
use std::collections::{BTreeMap, HashSet};

/// Creates the shadows and sinks of the globals the `reached` functions need (module doc),
/// one set per context and width ([`super::shadow_sets`]), records the sinks in `rules`, and
/// zeroes the shadows the program cannot see before each request of their set; with Enzyme's
/// API of global shadows in use, lowers its calls ([`super::shadow_context`]). The sets are
/// returned for [`Sets::select`] before each request is lowered.
pub fn create(
    module: Module,
    reached: &HashSet<Val>,
    requests: &[Request],
    rules: &mut UserRules,
) -> Result<Sets> {
    let api = shadow_context::find(module)?;
    // Only functions still in the module: `checkpoint::state::cover_all` replaces the loop
    // functions it rebuilds and deletes the old ones, which `reached` may still name.
    let live: HashSet<Val> = module
        .functions()
        .into_iter()
        .filter(|f| reached.contains(f))
        .collect();
    let reached = &live;
    // Sorted by name, so the shadows are created in the same order on every run.
    let mut shadowed: BTreeMap<String, Val> = BTreeMap::new();
    let mut inactive: BTreeMap<String, Val> = BTreeMap::new();
    // With the API, globals holding pointers to shadowed globals, only read.
    let mut pointing: BTreeMap<String, Val> = BTreeMap::new();
    // With the API, the program sees the shadows: every global holding data the code refers
    // to gets one, and with a context so do pointer globals holding allocations.
    let allocation = |o: Val, rules: &UserRules| {
        api.has_context()
            && o.is_global_variable()
            && may_shadow(o, rules)
            && shadow_context::holds_allocation(o)
    };
    let note = |o: Val,
                rules: &UserRules,
                shadowed: &mut BTreeMap<String, Val>,
                pointing: &mut BTreeMap<String, Val>| {
        if (needs_shadow(o, rules) && o.global_value_type().contains_float())
            || allocation(o, rules)
        {
            shadowed.insert(o.name(), o);
        } else if o.is_global_variable()
            && may_shadow(o, rules)
            && o.global_value_type().contains_ptr()
        {
            pointing.insert(o.name(), o);
        }
    };
    for g in written_globals(reached) {
        if needs_shadow(g, rules) {
            shadowed.insert(g.name(), g);
        }
    }
    for &f in reached {
        for b in f.blocks() {
            for i in b.instructions() {
                let mixes = mixes_pointers(i);
                if !mixes && api.is_empty() {
                    continue;
                }
                for k in 0..i.num_operands() {
                    for o in underlying_objects(i.operand(k)) {
                        if mixes && is_sinkable(o, rules) {
                            inactive.insert(o.name(), o);
                        }
                        if !api.is_empty() {
                            note(o, rules, &mut shadowed, &mut pointing);
                        }
                    }
                }
            }
        }
    }
    for o in api.queried_globals() {
        note(o, rules, &mut shadowed, &mut pointing);
    }
    let mut data: Vec<Val> = Vec::new();
    let mut pointers: Vec<Val> = Vec::new();
    for g in shadowed.values() {
        if g.global_value_type().is_ptr() && allocation(*g, rules) {
            pointers.push(*g);
        } else {
            data.push(*g);
        }
    }
    let candidates: Vec<Val> = pointing.values().copied().collect();
    let initialised = shadow_sets::initialised_pointers(&candidates, &mut data, |t| {
        needs_shadow(t, rules) && t.global_value_type().contains_float()
    });
    data.sort_by_key(|g| g.name());
    let mut sets = shadow_sets::plan(&api.contexts(), &api.plain_queries(), requests)?;
    sets.user = rules.global_shadows.clone();
    shadow_sets::create(module, &mut sets, &data, &initialised, &pointers)?;
    let mut sinks = Vec::new();
    for (name, g) in &inactive {
        let s = shadow_sets::zero_global_like(module, *g, &format!("{name}.umbra_sink"));
        rules.inactive_sinks.insert(name.clone(), s);
        sinks.push(s);
    }
    if !api.is_empty() {
        shadow_context::lower(module, &api, &sets, requests, rules)?;
    }
    // Before each request: the sinks, and the shadows of its set unless the program owns them.
    for (k, r) in requests.iter().enumerate() {
        let set = &sets.sets[sets.of_request[k]];
        let mut zeroed = sinks.clone();
        if !set.owned {
            zeroed.extend(set.data());
            zeroed.extend(set.initialised.iter().copied());
            zeroed.extend(shadow_sets::shadows_of_set(&sets, sets.of_request[k]));
        }
        if !zeroed.is_empty() {
            zero_before(module, r.call, &zeroed);
        }
    }
    // The first set's shadows, until the first request selects its own.
    if let Some(first) = sets.sets.first() {
        for (n, s) in &first.lanes[0] {
            rules.global_shadows.insert(n.clone(), *s);
        }
    }
    Ok(sets)
}

/// The globals the `reached` functions store floating-point values into: directly, or
/// through a pointer parameter (of a reached function, transitively) that a call passes an
/// address in the global to, as `fill(4, scratch, x)` at `-O0`.
fn written_globals(reached: &HashSet<Val>) -> HashSet<Val> {
    let mut globals = HashSet::new();
    // (function, parameter index) of the parameters written through.
    let mut params: HashSet<(Val, usize)> = HashSet::new();
    let note = |p: Val, globals: &mut HashSet<Val>, params: &mut HashSet<(Val, usize)>| {
        let mut new = false;
        for o in underlying_objects(p) {
            if o.is_global_variable() {
                new |= globals.insert(o);
            } else if let Some(f) = o.parent_function().filter(|_| o.is_argument()) {
                if let Some(k) = f.params().iter().position(|&q| q == o) {
                    new |= params.insert((f, k));
                }
            }
        }
        new
    };
    let insts: Vec<Val> = reached
        .iter()
        .flat_map(|f| f.blocks())
        .flat_map(|b| b.instructions())
        .collect();
    for &i in &insts {
        if i.opcode() == Opcode::LLVMStore && stores_floats(i) {
            note(i.operand(1), &mut globals, &mut params);
        }
    }
    loop {
        let mut changed = false;
        for &i in &insts {
            if !i.is_call() {
                continue;
            }
            let Some(g) = i.called_function().filter(|g| reached.contains(g)) else {
                continue;
            };
            for (k, a) in i.call_args().into_iter().enumerate() {
                if a.ty().is_ptr() && params.contains(&(g, k)) {
                    changed |= note(a, &mut globals, &mut params);
                }
            }
        }
        if !changed {
            return globals;
        }
    }
}

/// True for an instruction where a pointer may meet pointers with shadows and so need one
/// itself: a `select` or `phi` of pointers, a pointer stored as a value or put into an
/// aggregate, a pointer passed to a call.
fn mixes_pointers(i: Val) -> bool {
    use Opcode::*;
    match i.opcode() {
        LLVMSelect | LLVMPHI => i.ty().is_ptr(),
        LLVMStore => i.operand(0).ty().is_ptr(),
        LLVMInsertValue | LLVMInsertElement => i.operand(1).ty().carries_derivative(),
        LLVMCall | LLVMInvoke => i.call_args().iter().any(|a| a.ty().is_ptr()),
        _ => false,
    }
}

/// True when store `st` writes a value that may carry a derivative into memory: a non-constant
/// value whose type holds floating-point data.
fn stores_floats(st: Val) -> bool {
    let v = st.operand(0);
    v.ty().contains_float() && !v.is_constant()
}

/// True for a global variable that would need a shadow Umbra may create: mutable, neither
/// inactive nor already shadowed, not one of LLVM's or the API's own globals, and holding no
/// pointer (a zeroed shadow would hold null where the global points somewhere, and derivative
/// code reading through it would fault: such a global stays an error at the store; the one
/// exception, with a context, is [`shadow_context::holds_allocation`]).
fn needs_shadow(g: Val, rules: &UserRules) -> bool {
    g.is_global_variable() && !g.global_value_type().contains_ptr() && may_shadow(g, rules)
}

/// The conditions of [`needs_shadow`] but the one on pointers.
fn may_shadow(g: Val, rules: &UserRules) -> bool {
    !g.is_global_constant()
        && !rules.inactive_globals.contains(&g.name())
        && !rules.global_shadows.contains_key(&g.name())
        && !is_reserved(&g.name())
}

/// True for a mutable global the user declared inactive.
fn is_sinkable(g: Val, rules: &UserRules) -> bool {
    g.is_global_variable()
        && !g.is_global_constant()
        && rules.inactive_globals.contains(&g.name())
        && !rules.inactive_sinks.contains_key(&g.name())
}

/// Names of LLVM's globals and of the API's registrations, which hold no program data.
fn is_reserved(name: &str) -> bool {
    name.starts_with("llvm.") || name.contains("__enzyme_") || name.contains("__umbra_")
}

/// Resets each of `shadows` right before `call` ([`shadow_sets::emit_reset`]).
fn zero_before(module: Module, call: Val, shadows: &[Val]) {
    let mut b = Builder::new(module);
    b.position_before(call);
    for &s in shadows {
        shadow_sets::emit_reset(&mut b, module, s);
    }
}

/// Enzyme's registration of an inactive global the module only declares
/// (`__enzyme_inactive_global_... = ptr @host_mem_type`, from `extern T g` marked
/// `enzyme_inactive`) would make the object refer to that global even where nothing else does,
/// and the link fail; Enzyme erases its registrations once read. Their entries naming
/// declarations become null here, after `rules::user::collect` read them.
pub fn unlink_inactive_registrations(module: Module) {
    let declared = |v: Val| v.is_global_variable() && v.is_declaration();
    for g in module.globals() {
        if !g.name().contains("__enzyme_inactive_global") {
            continue;
        }
        let Some(init) = g.initializer() else {
            continue;
        };
        if declared(init) {
            g.set_initializer(init.ty().zero());
        } else if matches!(init.ty().kind(), TyKind::Array | TyKind::Struct)
            && init.operands().into_iter().any(declared)
        {
            let parts: Vec<Val> = init
                .operands()
                .into_iter()
                .map(|v| if declared(v) { v.ty().zero() } else { v })
                .collect();
            g.set_initializer(Val::const_aggregate(init.ty(), &parts));
        }
    }
}
