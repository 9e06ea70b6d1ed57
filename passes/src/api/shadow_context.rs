//! Enzyme's run-time access to global shadows: `__enzyme_context(width)`,
//! `__enzyme_shadow(ctx, &g, lane)` (or, without a context, `__enzyme_shadow(&g, width,
//! lane)`), `__enzyme_zero_shadows(ctx)`, and the request marker `enzyme_context, ctx`.
//!
//! Each `__enzyme_context` call site has a set of shadows of its own, one per lane
//! ([`super::shadow_sets`]); requests without a context use the set of their width. So:
//! - `__enzyme_shadow` of a constant address in a global with a shadow becomes the same
//!   address in the shadow of the context's (or width's) set and lane (no run-time lookup);
//!   anything else, or a context Umbra cannot trace to its call, is an error at the call;
//! - each run of a context call makes a new context: it resets the call site's shadows
//!   (floats zero, pointers to their initial shadows, heap shadows zeroed), and those of them
//!   in other sets (their derivatives: the reset values are constants). A context used after
//!   its call ran again (two contexts of one call site alive at once, which would share their
//!   shadows) aborts the program with a message at the query, reset or request using it;
//! - `__enzyme_zero_shadows(ctx)` resets the context's shadows the same way (not those the
//!   program declared with `enzyme_shadow`, which it owns);
//! - the run-time helpers run in the primal only (they are inactive), also inside derived code
//!   of an outer request.
//!
//! With the API in use the program owns the shadows it can see (contexts, and the widths it
//! queries without one), so those are not zeroed before each request as
//! `super::global_shadows` otherwise does, and every mutable global holding floating-point
//! data that the differentiated code refers to, or that a query names, gets one (not only
//! those written): their adjoints accumulate there and their tangents are read from there.
//!
//! Pointer globals (with a context only): a global holding a pointer, set by the program only
//! to null or to what `malloc`, `calloc`, `aligned_alloc` or `realloc` returned (so
//! `malloc_usable_size` may be asked about it), gets a shadow pointing at a zeroed allocation
//! of the same usable size, made when the context is created and before each request that
//! passes it (and grown, keeping its contents, when the global's allocation grew).

use super::names::{classify, ApiName, ShadowFn};
use super::shadow_sets::{context_of, shadow_at, Owner, Sets};
use super::Request;
use crate::diag::{Error, ErrorKind, Result};
use crate::ir::{Builder, IntPred, Module, Opcode, Ty, Val};
use crate::rules::user::UserRules;

/// The calls of the API in a module.
#[derive(Default)]
pub struct Calls {
    context: Vec<Val>,
    shadow: Vec<Val>,
    zero: Vec<Val>,
}

impl Calls {
    /// True when the module uses none of the API.
    pub fn is_empty(&self) -> bool {
        self.context.is_empty() && self.shadow.is_empty() && self.zero.is_empty()
    }

    /// True when the module creates a context.
    pub fn has_context(&self) -> bool {
        !self.context.is_empty()
    }

    /// The `__enzyme_context` calls.
    pub fn contexts(&self) -> Vec<Val> {
        self.context.clone()
    }

    /// The queries without a context, `__enzyme_shadow(&g, width, lane)`, with their width
    /// (0 when not a constant).
    pub fn plain_queries(&self) -> Vec<(Val, u32)> {
        self.shadow
            .iter()
            .filter_map(|&c| match queried_address(c) {
                Some((_, Some(w), _)) => Some((c, w.const_int_value().unwrap_or(0) as u32)),
                _ => None,
            })
            .collect()
    }

    /// The globals the queries name (`__enzyme_shadow(ctx, &g, 0)`), so that they get shadows
    /// even where the differentiated code only reads them, or not at all.
    pub fn queried_globals(&self) -> Vec<Val> {
        self.shadow
            .iter()
            .filter_map(|&c| queried_address(c).map(|(p, _, _)| p))
            .flat_map(crate::analysis::objects::underlying_objects)
            .filter(|g| g.is_global_variable())
            .collect()
    }
}

/// The calls of the API's functions in `module`, which must be direct calls.
pub fn find(module: Module) -> Result<Calls> {
    let mut calls = Calls::default();
    for f in module.functions() {
        let Some(ApiName::GlobalShadows(which)) = classify(&f.name()) else {
            continue;
        };
        for u in f.users() {
            if !u.is_call() || u.called_value() != f {
                return Err(Error::user_at(
                    u,
                    format!("'{}' is used other than as a direct call", f.name()),
                ));
            }
            match which {
                ShadowFn::Context => calls.context.push(u),
                ShadowFn::Shadow => calls.shadow.push(u),
                ShadowFn::ZeroShadows => calls.zero.push(u),
            }
        }
    }
    Ok(calls)
}

/// Refuses the API in a module without requests: the shadows live in the module whose
/// requests use them (the calls would otherwise be undefined references at link time).
pub fn refuse_without_requests(module: Module) -> Result<()> {
    let calls = find(module)?;
    let first = [&calls.context, &calls.shadow, &calls.zero]
        .into_iter()
        .find_map(|v| v.first().copied());
    match first {
        Some(c) => Err(unsupported(
            c,
            "Enzyme's global-shadow API in a module without derivative requests: Umbra's global shadows live in the module of the requests that use them; call __enzyme_context, __enzyme_shadow and __enzyme_zero_shadows there",
        )),
        None => Ok(()),
    }
}

/// True for a global holding one pointer that the program sets only to null or to the result
/// of `malloc`, `calloc`, `aligned_alloc` or `realloc`, so that `malloc_usable_size` may be
/// asked about its value; its other uses are loads and queries of its shadow.
pub fn holds_allocation(g: Val) -> bool {
    if !g.global_value_type().is_ptr() || !g.initializer().is_some_and(|i| i.is_null_constant()) {
        return false;
    }
    g.users().into_iter().all(|u| {
        if !u.is_instruction() {
            return false;
        }
        if u.opcode() == Opcode::LLVMLoad {
            return true;
        }
        if u.opcode() == Opcode::LLVMStore && u.operand(1) == g && u.operand(0) != g {
            let v = u.operand(0);
            return v.is_null_constant()
                || (v.is_call()
                    && v.called_function().is_some_and(|f| {
                        matches!(
                            f.name().as_str(),
                            "malloc" | "calloc" | "aligned_alloc" | "realloc"
                        )
                    }));
        }
        u.is_call()
            && u.called_function().is_some_and(|f| {
                classify(&f.name()) == Some(ApiName::GlobalShadows(ShadowFn::Shadow))
            })
    })
}

/// The queried address of an `__enzyme_shadow` call, its width and lane: `(ctx, p, lane)` with
/// the context's width, or `(p, width, lane)`.
fn queried_address(call: Val) -> Option<(Val, Option<Val>, Val)> {
    match call.call_args()[..] {
        [ctx, p, lane] if ctx.ty().is_ptr() && p.ty().is_ptr() => Some((p, None, lane)),
        [p, width, lane] if p.ty().is_ptr() => Some((p, Some(width), lane)),
        _ => None,
    }
}

/// The run-time helpers of one context's set.
struct Helpers {
    /// `ptr umbra.shadows.context.<i>(i32 width)`: a new context (the width, unused, keeps
    /// the call readable as the context call by the request decoder).
    context: Val,
    /// `void umbra.shadows.check.<i>(ptr)`: aborts unless the context is the latest.
    check: Val,
    /// `void umbra.shadows.reset.<i>()`: the set's shadows to their initial values.
    reset: Val,
    /// `void umbra.shadows.ready.<i>()`: heap shadows as large as the primal's heap memory.
    ready: Val,
}

/// Lowers the API's calls (module doc) with the shadows of `sets`, and inserts what the
/// requests of each set need before them (the context check, heap shadows made ready). The
/// helpers are named in `rules.inactive`: they run in the primal only.
pub fn lower(
    module: Module,
    calls: &Calls,
    sets: &Sets,
    requests: &[Request],
    rules: &mut UserRules,
) -> Result<()> {
    // Per set: helpers for contexts; resets for the others are only needed by zeroing, done
    // inline by `super::global_shadows`.
    let mut helpers: Vec<Option<Helpers>> = Vec::new();
    for i in 0..sets.sets.len() {
        if matches!(sets.sets[i].owner, Owner::Context(_)) {
            let h = context_helpers(module, sets, i);
            for f in [h.context, h.check, h.reset, h.ready] {
                rules.inactive.push(f.name());
            }
            helpers.push(Some(h));
        } else {
            helpers.push(None);
        }
    }
    let context_set = |ctx: Val, at: Val| -> Result<usize> {
        let call = context_of(ctx, at)?;
        sets.of_context(call).ok_or_else(|| {
            Error::user_at(
                at,
                "the context is not made by an __enzyme_context call of this module",
            )
        })
    };
    for &c in &calls.shadow {
        let Some((p, width, lane)) = queried_address(c) else {
            return Err(Error::user_at(
                c,
                "__enzyme_shadow takes (context, address, lane) or (address, width, lane)",
            ));
        };
        let i = match width {
            None => context_set(c.call_args()[0], c)?,
            Some(w) => {
                let w = w.const_int_value().unwrap_or(0) as u32;
                sets.of_width(w)
                    .ok_or_else(|| Error::internal(c, "no set of shadows for this width"))?
            }
        };
        let set = &sets.sets[i];
        let lane = match lane.const_int_value() {
            Some(l) if l < u64::from(set.width) => l as usize,
            Some(l) => {
                return Err(Error::user_at(
                    c,
                    format!("__enzyme_shadow of lane {l}, but the width is {}", set.width),
                ))
            }
            None => {
                return Err(unsupported(
                    c,
                    "__enzyme_shadow of a lane that is not a constant: Umbra turns each query into the address of one shadow when it compiles the program",
                ))
            }
        };
        let found = shadow_at(&set.lanes[lane], p).or_else(|| {
            // The user's own shadows (`enzyme_shadow`) have one lane.
            (lane == 0 && set.width == 1)
                .then(|| {
                    let user = UserRules {
                        global_shadows: sets.user.clone(),
                        ..UserRules::default()
                    };
                    user.global_shadow_of(p)
                })
                .flatten()
        });
        let Some(s) = found else {
            return Err(Error::user_at(
                c,
                format!(
                    "__enzyme_shadow: '{}' is not a constant address in a global with a shadow: those are mutable globals holding floating-point data, globals holding pointers to them that the program only reads and, with a context, globals holding a pointer the program sets only from malloc, calloc, aligned_alloc or realloc (not inactive ones)",
                    crate::diag::short(p)
                ),
            ));
        };
        if let Some(h) = &helpers[i] {
            let mut b = Builder::new(module);
            b.position_before(c);
            b.call_function(h.check, &[c.call_args()[0]]);
        }
        c.replace_all_uses_with(s);
        c.erase();
    }
    for &c in &calls.zero {
        let Some(&ctx) = c.call_args().first() else {
            return Err(Error::user_at(c, "__enzyme_zero_shadows takes the context"));
        };
        let i = context_set(ctx, c)?;
        let Some(h) = &helpers[i] else {
            return Err(Error::internal(c, "a context without helpers"));
        };
        let mut b = Builder::new(module);
        b.position_before(c);
        b.call_function(h.check, &[ctx]);
        b.call_function(h.reset, &[]);
        c.erase();
    }
    for (k, r) in requests.iter().enumerate() {
        let Some(h) = &helpers[sets.of_request[k]] else {
            continue;
        };
        let Some(ctx) = r.context else {
            continue;
        };
        let mut b = Builder::new(module);
        b.position_before(r.call);
        b.call_function(h.check, &[ctx]);
        b.call_function(h.ready, &[]);
    }
    for &c in &calls.context {
        let Some(i) = sets.of_context(c) else {
            return Err(Error::internal(c, "a context call without a set"));
        };
        let Some(h) = &helpers[i] else {
            return Err(Error::internal(c, "a context without helpers"));
        };
        let mut b = Builder::new(module);
        b.position_before(c);
        let width = Ty::int(module.context(), 32).int_const(u64::from(sets.sets[i].width));
        let handle = b.call_function(h.context, &[width]);
        c.replace_all_uses_with(handle);
        c.erase();
    }
    Ok(())
}

fn unsupported(at: Val, message: impl Into<String>) -> Error {
    Error::user_at(at, message).with_kind(ErrorKind::Unsupported)
}

/// The helpers of context set `i` (see [`Helpers`]). The context's handle is its generation,
/// a count of the runs of its call, as a pointer.
fn context_helpers(m: Module, sets: &Sets, i: usize) -> Helpers {
    let ctx = m.context();
    let (ptr, i64t, i32t) = (Ty::ptr(ctx), Ty::int(ctx, 64), Ty::int(ctx, 32));
    let void = Ty::void(ctx);
    let set = &sets.sets[i];
    let generation = m.add_global(i64t, &format!("umbra.shadows.generation.{i}"));
    generation.set_initializer(i64t.zero());
    generation.set_internal();
    let ready = ready_helper(m, i, &set.pointers);
    // reset: data shadows zero (this set's, and other sets' shadows of them), pointer
    // shadows their initializer, heap shadows zeroed, then ready.
    let reset = m.add_function(
        &format!("umbra.shadows.reset.{i}"),
        Ty::function(void, &[], false),
    );
    reset.set_internal();
    let mut b = Builder::new(m);
    b.position_at_end(reset.append_block("entry"));
    let mut reset_now = set.data();
    reset_now.extend(set.initialised.iter().copied());
    reset_now.extend(super::shadow_sets::shadows_of_set(sets, i));
    for s in reset_now {
        super::shadow_sets::emit_reset(&mut b, m, s);
    }
    let usable = usable_size(m);
    for (_, lanes) in &set.pointers {
        for &s in lanes {
            let mem = b.load(ptr, s, 8);
            let n = b.call_function(usable, &[mem]);
            // malloc_usable_size(NULL) is 0: nothing is written then.
            b.memset_zero(mem, n, 1);
        }
    }
    b.call_function(ready, &[]);
    b.ret_void();
    // check(ctx): the latest context of this call site, or abort.
    let check = m.add_function(
        &format!("umbra.shadows.check.{i}"),
        Ty::function(void, &[ptr], false),
    );
    check.set_internal();
    let message = "umbra: a context of global shadows used after its __enzyme_context call ran again: each run makes a new context, and Umbra keeps the shadows of the latest one of each call\n";
    let text = Val::const_string_in(ctx, message);
    let msg = m.add_global(text.ty(), &format!("umbra.shadows.message.{i}"));
    msg.set_initializer(text);
    msg.set_global_constant(true);
    msg.set_internal();
    let entry = check.append_block("entry");
    let stale = check.append_block("stale");
    let fine = check.append_block("fine");
    b.position_at_end(entry);
    let now = b.load(i64t, generation, 8);
    let given = b.cast(Opcode::LLVMPtrToInt, check.params()[0], i64t);
    let same = b.icmp(IntPred::LLVMIntEQ, now, given);
    b.cond_br(same, fine, stale);
    b.position_at_end(stale);
    let write = m.get_or_add_function("write", Ty::function(i64t, &[i32t, ptr, i64t], false));
    b.call_function(
        write,
        &[i32t.int_const(2), msg, i64t.int_const(message.len() as u64)],
    );
    let abort = m.get_or_add_function("abort", Ty::function(void, &[], false));
    b.call_function(abort, &[]);
    b.unreachable();
    b.position_at_end(fine);
    b.ret_void();
    // context(): the next generation, with fresh shadows.
    let context = m.add_function(
        &format!("umbra.shadows.context.{i}"),
        Ty::function(ptr, &[i32t], false),
    );
    context.set_internal();
    b.position_at_end(context.append_block("entry"));
    let before = b.load(i64t, generation, 8);
    let next = b.add(before, i64t.int_const(1));
    b.store(next, generation, 8);
    b.call_function(reset, &[]);
    let handle = b.cast(Opcode::LLVMIntToPtr, next, ptr);
    b.ret(handle);
    Helpers {
        context,
        check,
        reset,
        ready,
    }
}

/// `void umbra.shadows.ready.<i>()`: gives each pointer global's shadow a zeroed allocation at
/// least as large as the global's, keeping what an older, smaller one held.
fn ready_helper(m: Module, i: usize, pointers: &[(Val, Vec<Val>)]) -> Val {
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = m.add_function(
        &format!("umbra.shadows.ready.{i}"),
        Ty::function(Ty::void(ctx), &[], false),
    );
    f.set_internal();
    let usable = usable_size(m);
    let calloc = m.get_or_add_function("calloc", Ty::function(ptr, &[i64t, i64t], false));
    let free = m.get_or_add_function("free", Ty::function(Ty::void(ctx), &[ptr], false));
    let mut b = Builder::new(m);
    b.position_at_end(f.append_block("entry"));
    for (g, lanes) in pointers {
        for &s in lanes {
            let primal = b.load(ptr, *g, 8);
            let need = b.call_function(usable, &[primal]);
            let old = b.load(ptr, s, 8);
            let have = b.call_function(usable, &[old]);
            let grow = b.icmp(IntPred::LLVMIntUGT, need, have);
            let more = f.append_block("grow");
            let next = f.append_block("next");
            b.cond_br(grow, more, next);
            b.position_at_end(more);
            let new = b.call_function(calloc, &[i64t.int_const(1), need]);
            b.memcpy(new, 1, old, 1, have);
            b.call_function(free, &[old]);
            b.store(new, s, 8);
            b.br(next);
            b.position_at_end(next);
        }
    }
    b.ret_void();
    f
}

/// `size_t malloc_usable_size(void *)`.
fn usable_size(m: Module) -> Val {
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    m.get_or_add_function("malloc_usable_size", Ty::function(i64t, &[ptr], false))
}
