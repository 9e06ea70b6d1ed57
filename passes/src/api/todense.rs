//! Enzyme's dense views of sparse storage, `__enzyme_todense` and
//! `__enzyme_post_sparse_todense`: `p = __enzyme_todense(load_fn, store_fn, extra...)` is a
//! pointer through which a load of a `T` at byte offset `off` from `p` is
//! `load_fn(off, extra...)` and a store of `v` is `store_fn(v, off, extra...)`. Passed as the
//! shadows of a forward-over-reverse request (`__enzyme_fwddiff(grad_f, enzyme_dup, x,
//! ident_view, enzyme_dupnoneed, 0, accumulate_view)`), the first reads a column of the
//! identity and the second hands every entry of a Hessian row to the user's sparse structure.
//! (Enzyme lowers `__enzyme_post_sparse_todense` after its sparsity optimisation, which Umbra
//! does not have; for Umbra both are the same view.)
//!
//! [`lower`] runs after every request is differentiated, so the derivative code that reads and
//! writes through shadows is there to be rewritten. First the calls that pass a view, or a
//! pointer computed from one, to a function with a body are inlined (call-site `alwaysinline`
//! and LLVM's always-inliner, round after round, since an inlined body may pass the view on);
//! then, in the function that created the view, every pointer computed from it (GEPs, casts,
//! phis, selects) is recomputed as a null-based pointer whose address is the byte offset, and
//! each load and store through one becomes a call of the user's function, scalar by scalar (a
//! vector access is one call per lane, at increasing offsets).
//!
//! Guarantees: every access through a view calls the user's function with the byte offset from
//! the view's base and the view's extra arguments, in the program's order; a use that cannot be
//! lowered so (the view stored to memory, passed to a function without a body or that the
//! inliner refuses, compared with another pointer, given to `memcpy`, ...) is an error naming
//! the instruction and the view. Not done: Enzyme's sparsity optimisation (loops still visit
//! every index, so a Hessian costs as many forward sweeps as it has rows; the accumulation is
//! exact, not asymptotically sparse). `enzyme_sparse_accumulate` on a function changes nothing
//! here.

use crate::diag::{Error, ErrorKind, Result};
use crate::ir::{Builder, Module, Opcode, Ty, TyKind, Val};
use std::collections::{HashMap, HashSet};

/// Rounds of inlining before a view still passed to a function counts as recursion.
const MAX_INLINE_ROUNDS: usize = 16;

/// True when a function named `name` creates a view (as for requests, any name containing an
/// entry point's, C++-mangled ones included).
pub fn is_view_function(name: &str) -> bool {
    super::names::classify(name) == Some(super::names::ApiName::View)
}

/// Lowers every view in `module`; returns how many there were.
pub fn lower(module: Module) -> Result<usize> {
    // At -O0 a view lives in a local variable (stored, then loaded back): in SSA form first,
    // like the functions requests differentiate.
    let holders: HashSet<Val> = view_calls(module)
        .iter()
        .filter_map(|v| v.parent_function())
        .collect();
    for f in holders {
        crate::preprocess::canonicalize(f)?;
    }
    inline_view_callees(module)?;
    let views = view_calls(module);
    for &view in &views {
        lower_view(module, view)?;
    }
    for f in module.functions() {
        if f.is_declaration() && is_view_function(&f.name()) && !f.has_uses() {
            f.delete_global();
        }
    }
    Ok(views.len())
}

/// The instructions using a function that creates views (calls, or anything else, which
/// [`lower_view`] refuses), in module order.
fn view_calls(module: Module) -> Vec<Val> {
    let mut users = HashSet::new();
    for f in module.functions() {
        if is_view_function(&f.name()) {
            users.extend(f.users().into_iter().filter(|u| u.is_instruction()));
        }
    }
    let mut ordered = Vec::with_capacity(users.len());
    if users.is_empty() {
        return ordered;
    }
    for f in module.functions() {
        for b in f.blocks() {
            for i in b.instructions() {
                if users.contains(&i) {
                    ordered.push(i);
                }
            }
        }
    }
    ordered
}

/// The values computed from `view` in its function (itself included) that [`lower_view`]
/// recomputes, and every other instruction using one of them.
fn derived(view: Val) -> (Vec<Val>, Vec<Val>) {
    let mut seen = HashSet::from([view]);
    let mut order = vec![view];
    let mut users = Vec::new();
    let mut used = HashSet::new();
    let mut k = 0;
    while k < order.len() {
        let v = order[k];
        k += 1;
        for u in v.users() {
            let carries = match u.opcode() {
                Opcode::LLVMGetElementPtr => u.operand(0) == v,
                Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast | Opcode::LLVMPHI => true,
                Opcode::LLVMSelect => u.operand(0) != v,
                _ => false,
            };
            if carries && u.ty().is_ptr() {
                if seen.insert(u) {
                    order.push(u);
                }
            } else if used.insert(u) {
                users.push(u);
            }
        }
    }
    (order, users)
}

/// The error for `at`, a use of the view `view` that cannot be lowered.
fn refuse(at: Val, view: Val, why: &str) -> Error {
    let callee = view.called_value().name();
    let id = super::names::api_identifier(&callee).to_string();
    Error::user_at(
        at,
        format!(
            "cannot lower the {id} view created at {}: {why} ('{}'); only loads, stores, address arithmetic, phis and selects of a view, and calls of functions with a body that Umbra inlines, can be lowered",
            view.debug_location().unwrap_or_else(|| format!("'{}'", view.print().trim())),
            at.print().trim()
        ),
    )
    .with_kind(ErrorKind::Unsupported)
}

/// Inlines, round after round, every call that passes a value computed from a view to a
/// function with a body, so that all accesses through views end up beside the views.
fn inline_view_callees(module: Module) -> Result<()> {
    for round in 0..=MAX_INLINE_ROUNDS {
        let mut first = None;
        // A call may pass several views (the shadows of two arguments).
        let mut marked = HashSet::new();
        for view in view_calls(module) {
            if !view.is_call() {
                continue;
            }
            let (_, users) = derived(view);
            for u in users {
                if !u.is_call() {
                    continue;
                }
                let Some(callee) = u.called_function() else {
                    continue;
                };
                if callee.is_declaration()
                    || is_view_function(&callee.name())
                    || marked.contains(&u)
                {
                    continue;
                }
                if u.call_site_fn_attr("alwaysinline") || round == MAX_INLINE_ROUNDS {
                    // Marked in an earlier round and still here: the inliner refused.
                    return Err(refuse(
                        u,
                        view,
                        &format!(
                            "the view is passed to '{}', which cannot be inlined (recursive, or not inlinable)",
                            callee.name()
                        ),
                    ));
                }
                u.set_call_site_fn_attr("alwaysinline", true);
                u.set_call_site_fn_attr("noinline", false);
                first.get_or_insert(u);
                marked.insert(u);
            }
        }
        let Some(first) = first else {
            return Ok(());
        };
        module
            .run_passes("always-inline", std::ptr::null_mut())
            .map_err(|e| {
                Error::internal(first, format!("inlining the callees of sparse views: {e}"))
            })?;
    }
    Ok(())
}

/// The user's load and store functions of `view` and its extra arguments.
struct ViewFns {
    load: Val,
    store: Val,
    extra: Vec<Val>,
}

/// The function a view's argument names, through casts of the constant.
fn function_arg(v: Val) -> Option<Val> {
    let mut v = v;
    loop {
        if v.is_function() {
            return Some(v);
        }
        if v.is_constant_expr() && v.num_operands() == 1 {
            v = v.operand(0);
            continue;
        }
        return None;
    }
}

/// Lowers one view: see the module's documentation.
fn lower_view(module: Module, view: Val) -> Result<()> {
    if !view.is_call() || view.called_function().is_none() {
        return Err(Error::user_at(
            view,
            format!(
                "'{}' is used other than as a direct call ('{}'); create views by calling it",
                view.called_value().name(),
                view.print().trim()
            ),
        ));
    }
    let args = view.call_args();
    let (Some(load), Some(store)) = (
        args.first().copied().and_then(function_arg),
        args.get(1).copied().and_then(function_arg),
    ) else {
        return Err(refuse(
            view,
            view,
            "its first two arguments must be the load and the store functions",
        ));
    };
    let fns = ViewFns {
        load,
        store,
        extra: args[2..].to_vec(),
    };
    let (values, users) = derived(view);
    let ctx = module.context();
    let i64t = Ty::int(ctx, 64);
    let mut b = Builder::new(module);
    // Each derived pointer, recomputed from a null base: its address is the byte offset. Phis
    // first (empty), since a loop's pointer reaches its phi through the values computed from
    // it; then the rest in discovery order, where a GEP's or a cast's base comes earlier; a
    // select may wait for its other operand.
    let mut rep: HashMap<Val, Val> = HashMap::new();
    rep.insert(view, view.ty().zero());
    for &v in &values[1..] {
        if v.opcode() == Opcode::LLVMPHI {
            b.position_before(v);
            let p = b.phi(v.ty());
            p.copy_debug_location(v);
            rep.insert(v, p);
        }
    }
    let mut pending: Vec<Val> = values[1..]
        .iter()
        .copied()
        .filter(|v| v.opcode() != Opcode::LLVMPHI)
        .collect();
    while !pending.is_empty() {
        let before = pending.len();
        let mut later = Vec::new();
        for v in pending {
            let ready = |k: u32| rep.contains_key(&v.operand(k)) || !values.contains(&v.operand(k));
            b.position_before(v);
            let new = match v.opcode() {
                Opcode::LLVMGetElementPtr => {
                    let idx: Vec<Val> = v.operands()[1..].to_vec();
                    // Not inbounds: the null base is no object.
                    let base = resolve(&rep, v.operand(0), view, v)?;
                    b.gep(v.gep_source_type(), base, &idx, false)
                }
                Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => {
                    b.cast(v.opcode(), resolve(&rep, v.operand(0), view, v)?, v.ty())
                }
                _ if ready(1) && ready(2) => {
                    let t = resolve(&rep, v.operand(1), view, v)?;
                    let f = resolve(&rep, v.operand(2), view, v)?;
                    b.select(v.operand(0), t, f)
                }
                _ => {
                    later.push(v);
                    continue;
                }
            };
            if new.is_instruction() {
                new.copy_debug_location(v);
            }
            rep.insert(v, new);
        }
        if later.len() == before {
            return Err(Error::internal(
                later[0],
                "selects of a sparse view depend on each other",
            ));
        }
        pending = later;
    }
    for &v in &values[1..] {
        if v.opcode() == Opcode::LLVMPHI {
            let new = rep[&v];
            for (inc, block) in v.incoming() {
                new.add_incoming(resolve(&rep, inc, view, v)?, block);
            }
        }
    }
    let mut dead = Vec::new();
    for u in users {
        match u.opcode() {
            Opcode::LLVMLoad if !u.is_volatile() && !u.is_atomic_access() => {
                b.position_before(u);
                let offset = b.cast(Opcode::LLVMPtrToInt, rep[&u.operand(0)], i64t);
                let value = lowered_load(&mut b, &fns, u, offset, view)?;
                u.replace_all_uses_with(value);
                dead.push(u);
            }
            Opcode::LLVMStore
                if !u.is_volatile()
                    && !u.is_atomic_access()
                    && !rep.contains_key(&u.operand(0)) =>
            {
                b.position_before(u);
                let offset = b.cast(Opcode::LLVMPtrToInt, rep[&u.operand(1)], i64t);
                lowered_store(&mut b, &fns, u, u.operand(0), offset, view)?;
                dead.push(u);
            }
            Opcode::LLVMStore if rep.contains_key(&u.operand(0)) => {
                return Err(refuse(u, view, "the view itself is stored to memory"));
            }
            Opcode::LLVMCall if u.called_function().is_some_and(|f| f.is_declaration()) => {
                return Err(refuse(
                    u,
                    view,
                    &format!(
                        "the view is passed to '{}', which has no body",
                        u.called_value().name()
                    ),
                ));
            }
            _ => return Err(refuse(u, view, "this use of the view")),
        }
    }
    for d in dead {
        d.erase();
    }
    // The old pointers, users first.
    for &v in values.iter().rev() {
        v.replace_all_uses_with(v.ty().poison());
    }
    for &v in values.iter().rev() {
        v.erase();
    }
    Ok(())
}

/// The replacement of `v`, an operand of `user` (a pointer computed from the view): a pointer
/// that is not computed from the view mixes storage the view cannot describe.
fn resolve(rep: &HashMap<Val, Val>, v: Val, view: Val, user: Val) -> Result<Val> {
    if let Some(&r) = rep.get(&v) {
        return Ok(r);
    }
    if v.is_undef() {
        return Ok(v.ty().poison());
    }
    Err(refuse(
        user,
        view,
        "the view is mixed with a pointer that does not come from it",
    ))
}

/// The scalars of an access of type `ty` whose user function deals in `scalar`: one, or a
/// vector's lanes; `None` when the types do not match.
fn lanes(module: Module, ty: Ty, scalar: Ty) -> Option<u32> {
    if ty == scalar {
        return Some(1);
    }
    if ty.kind() == TyKind::Vector && ty.element() == scalar {
        return Some(ty.vector_len());
    }
    // A copy of a float through integers of its size (`load i64` of a double).
    if ty.is_int() && scalar.is_float() && module.store_size(ty) == module.store_size(scalar) {
        return Some(1);
    }
    None
}

/// Checks the parameters `params[first..]` of the user's `f` against the view's extra
/// arguments.
fn check_extra(
    f: Val,
    params: &[Ty],
    first: usize,
    fns: &ViewFns,
    at: Val,
    view: Val,
) -> Result<()> {
    let want: Vec<Ty> = fns.extra.iter().map(|a| a.ty()).collect();
    if params.len() != first + want.len() || params[first..] != want[..] {
        return Err(refuse(
            at,
            view,
            &format!(
                "'{}' takes ({}), but the view passes {} extra argument(s) ({})",
                f.name(),
                params
                    .iter()
                    .map(|t| t.print())
                    .collect::<Vec<_>>()
                    .join(", "),
                want.len(),
                want.iter()
                    .map(|t| t.print())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    Ok(())
}

/// `load_fn(offset, extra...)` for each scalar that load `u` reads, assembled into its type.
fn lowered_load(b: &mut Builder, fns: &ViewFns, u: Val, offset: Val, view: Val) -> Result<Val> {
    let fty = fns.load.function_type();
    let params = fty.param_types();
    let scalar = fty.return_type();
    let n = lanes(b.module(), u.ty(), scalar).ok_or_else(|| {
        refuse(
            u,
            view,
            &format!(
                "it loads {} but '{}' returns {}",
                u.ty().print(),
                fns.load.name(),
                scalar.print()
            ),
        )
    })?;
    if params.first().is_none_or(|t| !t.is_int()) {
        return Err(refuse(
            u,
            view,
            &format!(
                "'{}' must take the byte offset (an integer) first",
                fns.load.name()
            ),
        ));
    }
    check_extra(fns.load, &params, 1, fns, u, view)?;
    let size = b.module().store_size(scalar);
    let mut out = u.ty().poison();
    for lane in 0..n {
        let at = lane_offset(b, offset, lane, size);
        let mut args = vec![b.zext_or_trunc(at, params[0])];
        args.extend(&fns.extra);
        let call = b.call_function(fns.load, &args);
        call.copy_debug_location(u);
        if u.ty().is_vector() {
            let k = Ty::int(b.module().context(), 32).int_const(lane as u64);
            out = b.insert_element(out, call, k);
        } else if u.ty() != scalar {
            out = b.cast(Opcode::LLVMBitCast, call, u.ty());
        } else {
            out = call;
        }
    }
    Ok(out)
}

/// `store_fn(v, offset, extra...)` for each scalar of `v` that store `u` writes.
fn lowered_store(
    b: &mut Builder,
    fns: &ViewFns,
    u: Val,
    v: Val,
    offset: Val,
    view: Val,
) -> Result<()> {
    let fty = fns.store.function_type();
    let params = fty.param_types();
    let scalar = params.first().copied();
    let n = scalar
        .and_then(|s| lanes(b.module(), v.ty(), s))
        .ok_or_else(|| {
            refuse(
                u,
                view,
                &format!(
                    "it stores {} but '{}' takes {} first",
                    v.ty().print(),
                    fns.store.name(),
                    scalar.map_or("nothing".into(), |s| s.print())
                ),
            )
        })?;
    let scalar = params[0];
    if params.get(1).is_none_or(|t| !t.is_int()) {
        return Err(refuse(
            u,
            view,
            &format!(
                "'{}' must take the value, then the byte offset (an integer)",
                fns.store.name()
            ),
        ));
    }
    check_extra(fns.store, &params, 2, fns, u, view)?;
    let size = b.module().store_size(scalar);
    for lane in 0..n {
        let at = lane_offset(b, offset, lane, size);
        let x = if v.ty().is_vector() {
            b.extract_lane(v, lane)
        } else if v.ty() != scalar {
            b.cast(Opcode::LLVMBitCast, v, scalar)
        } else {
            v
        };
        let mut args = vec![x, b.zext_or_trunc(at, params[1])];
        args.extend(&fns.extra);
        let call = b.call_function(fns.store, &args);
        call.copy_debug_location(u);
    }
    Ok(())
}

/// `offset + lane * size`.
fn lane_offset(b: &mut Builder, offset: Val, lane: u32, size: u64) -> Val {
    if lane == 0 {
        return offset;
    }
    let k = offset.ty().int_const(u64::from(lane) * size);
    b.add(offset, k)
}
