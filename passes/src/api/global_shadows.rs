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
//!   whose underlying objects include the global, in a function the requests reach;
//! - never a global the user declared inactive (`enzyme_inactive`, `__enzyme_inactive_global`),
//!   gave a shadow, a constant, or an LLVM or API global (`llvm.*`, `__enzyme_*`, `__umbra_*`).
//!
//! A global that is only read by the differentiated code (a table of coefficients, a value
//! set up by `main`) gets no shadow: within the request its value is a constant, and its
//! loads are inactive. Globals holding integers or pointers only get none either; a pointer
//! global through which differentiable data is stored stays an error (its shadow would have
//! to point at shadow memory the pass cannot allocate).
//!
//! Inactive globals that the differentiated code reaches get a zero-filled *sink*
//! ([`UserRules::inactive_sinks`]): the stand-in shadow where a pointer into one meets
//! pointers with shadows (`select(c, @tmp, %x)` at `-O1`), so what goes there is dropped.
//!
//! Semantics across calls: the created shadows and the sinks are zeroed right before every
//! request call (a `memset` inserted before it). A derivative therefore is that of the one
//! call, with each global's value at entry a constant, as the derivative of a function of its
//! arguments should be; what a gradient accumulates into a created shadow (the adjoint of a
//! global's value at entry) is not visible to the program. Enzyme leaves such shadows as they
//! are between calls, so a shadow left nonzero by one gradient (a global read before it is
//! written) corrupts the next; a program that wants the adjoints of its globals declares the
//! shadows itself (`enzyme_shadow`), and Umbra then neither creates nor zeroes them.

use crate::analysis::objects::underlying_objects;
use crate::api::Request;
use crate::ir::{Builder, Module, Opcode, Ty, TyKind, Val};
use crate::rules::user::UserRules;
use std::collections::{BTreeMap, HashSet};

/// Creates the shadows and sinks of the globals the `reached` functions need (module doc),
/// records them in `rules`, and zeroes them before each of `requests`.
pub fn create(module: Module, reached: &HashSet<Val>, requests: &[Request], rules: &mut UserRules) {
    // Sorted by name, so the shadows are created in the same order on every run.
    let mut written: BTreeMap<String, Val> = BTreeMap::new();
    let mut inactive: BTreeMap<String, Val> = BTreeMap::new();
    for &f in reached {
        for b in f.blocks() {
            for i in b.instructions() {
                if i.opcode() == Opcode::LLVMStore && stores_floats(i) {
                    for o in underlying_objects(i.operand(1)) {
                        if needs_shadow(o, rules) {
                            written.insert(o.name(), o);
                        }
                    }
                }
                if mixes_pointers(i) {
                    for k in 0..i.num_operands() {
                        for o in underlying_objects(i.operand(k)) {
                            if is_sinkable(o, rules) {
                                inactive.insert(o.name(), o);
                            }
                        }
                    }
                }
            }
        }
    }
    let mut created = Vec::new();
    for (name, g) in &written {
        let s = zero_global_like(module, *g, &format!("{name}_shadow"));
        rules.global_shadows.insert(name.clone(), s);
        created.push(s);
    }
    for (name, g) in &inactive {
        let s = zero_global_like(module, *g, &format!("{name}.umbra_sink"));
        rules.inactive_sinks.insert(name.clone(), s);
        created.push(s);
    }
    if !created.is_empty() {
        for r in requests {
            zero_before(module, r.call, &created);
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
/// inactive nor already shadowed, not one of LLVM's or the API's own globals.
fn needs_shadow(g: Val, rules: &UserRules) -> bool {
    g.is_global_variable()
        && !g.is_global_constant()
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

/// A new internal zero-initialised global with `g`'s type, alignment and thread-locality,
/// named `name` (LLVM renames it if the program has a global of that name). Internal even for
/// a global other objects see: all the derivative code of a request lives in the module of
/// the request, and a weak symbol could silently be replaced by a program's own `g_shadow`.
fn zero_global_like(module: Module, g: Val, name: &str) -> Val {
    let ty = g.global_value_type();
    let s = module.add_global(ty, name);
    s.set_initializer(ty.zero());
    s.set_internal();
    s.set_alignment(g.alignment());
    if g.is_thread_local() {
        s.set_thread_local();
    }
    s
}

/// Zeroes each of `shadows` right before `call`.
fn zero_before(module: Module, call: Val, shadows: &[Val]) {
    let mut b = Builder::new(module);
    b.position_before(call);
    let i64t = Ty::int(module.context(), 64);
    for &s in shadows {
        let bytes = module.store_size(s.global_value_type());
        b.memset_zero(s, i64t.int_const(bytes), s.alignment().max(1));
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
