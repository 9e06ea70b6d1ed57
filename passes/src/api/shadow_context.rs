//! Enzyme's run-time access to global shadows: `__enzyme_context(width)`,
//! `__enzyme_shadow(ctx, &g, lane)` (or, without a context, `__enzyme_shadow(&g, width,
//! lane)`), `__enzyme_zero_shadows(ctx)`, and the request marker `enzyme_context, ctx`.
//!
//! Umbra keeps one shadow per global, a global of the module (`super::global_shadows`), so it
//! implements the part of this API that one such set of shadows can serve soundly:
//! - one context per program, of width 1: a second `__enzyme_context` call site, or a width or
//!   lane other than 1 and 0, is an error at the call; the one call site executed twice
//!   aborts the program with a message (the two contexts would share their shadows);
//! - `__enzyme_shadow` of a constant address in a global with a shadow becomes the same
//!   address in the shadow (no run-time lookup); anything else is an error at the call;
//! - `__enzyme_zero_shadows` zeroes every shadow Umbra created (not those the program declared
//!   with `enzyme_shadow`, which it owns), including the memory of pointer globals' shadows;
//! - in a program that uses a context, every request whose function reaches a global with a
//!   shadow must pass `enzyme_context` (Enzyme would give the others separate shadows).
//!
//! With the API in use the program owns the shadows, so they are not zeroed before each
//! request as `super::global_shadows` otherwise does, and every mutable global holding
//! floating-point data that the differentiated code refers to, or that a query names, gets
//! one (not only those written): their adjoints accumulate there and their tangents are read
//! from there.
//!
//! Pointer globals (with a context only): a global holding a pointer, set by the program only
//! to null or to what `malloc`, `calloc`, `aligned_alloc` or `realloc` returned (so
//! `malloc_usable_size` may be asked about it), gets a shadow pointing at a zeroed allocation
//! of the same usable size, made when the context is created and before each request that
//! passes it (and grown, keeping its contents, when the global's allocation grew).

use super::names::{classify, ApiName, ShadowFn};
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

/// Lowers the API's calls (module doc). `shadows` are the shadows Umbra created for globals
/// holding data, `pointers` the pointer globals given shadows ([`holds_allocation`]) with
/// their shadows.
pub fn lower(
    module: Module,
    calls: &Calls,
    requests: &[Request],
    rules: &UserRules,
    shadows: &[Val],
    pointers: &[(Val, Val)],
) -> Result<()> {
    if let Some(&second) = calls.context.get(1) {
        return Err(unsupported(
            second,
            "a second __enzyme_context: Umbra keeps one shadow of each global, so a program has one context; derivatives of derivatives through globals (one context each) are not supported",
        ));
    }
    for &c in &calls.context {
        expect_one(
            c,
            c.call_args().first().copied(),
            "the width of __enzyme_context",
        )?;
    }
    for &c in &calls.shadow {
        let Some((p, width, lane)) = queried_address(c) else {
            return Err(Error::user_at(
                c,
                "__enzyme_shadow takes (context, address, lane) or (address, width, lane)",
            ));
        };
        if let Some(w) = width {
            expect_one(c, Some(w), "the width in __enzyme_shadow")?;
        }
        if lane.const_int_value() != Some(0) {
            return Err(unsupported(
                c,
                "__enzyme_shadow of lane other than a constant 0: Umbra keeps one shadow of each global (width 1)",
            ));
        }
        let Some(s) = rules.global_shadow_of(p) else {
            return Err(Error::user_at(
                c,
                format!(
                    "__enzyme_shadow: '{}' is not a constant address in a global with a shadow: those are mutable globals holding floating-point data and, with a context, globals holding a pointer the program sets only from malloc, calloc, aligned_alloc or realloc (not inactive ones)",
                    crate::diag::short(p)
                ),
            ));
        };
        c.replace_all_uses_with(s);
        c.erase();
    }
    let zero = zero_helper(module, shadows, pointers);
    let ready = ready_helper(module, pointers);
    for &c in &calls.zero {
        let mut b = Builder::new(module);
        b.position_before(c);
        b.call_function(zero, &[]);
        c.erase();
    }
    for &c in &calls.context {
        let mut b = Builder::new(module);
        b.position_before(c);
        let handle = b.call_function(context_helper(module, ready), &[]);
        c.replace_all_uses_with(handle);
        c.erase();
    }
    if calls.has_context() {
        for r in requests {
            if r.context.is_none() && rules.reaches_shadowed_global(r.function) {
                return Err(unsupported(
                    r.call,
                    format!(
                        "this request of '{}' passes no enzyme_context, but the program creates one and Umbra keeps one shadow of each global: pass the context to every request that reaches a global",
                        r.function.name()
                    ),
                ));
            }
            if !pointers.is_empty() {
                let mut b = Builder::new(module);
                b.position_before(r.call);
                b.call_function(ready, &[]);
            }
        }
    }
    Ok(())
}

fn unsupported(at: Val, message: impl Into<String>) -> Error {
    Error::user_at(at, message).with_kind(ErrorKind::Unsupported)
}

/// Checks that `v`, `what`, is the constant 1.
fn expect_one(call: Val, v: Option<Val>, what: &str) -> Result<()> {
    match v.and_then(Val::const_int_value) {
        Some(1) => Ok(()),
        Some(n) => Err(unsupported(
            call,
            format!("{what} is {n}: Umbra keeps one shadow of each global (width 1)"),
        )),
        None => Err(unsupported(
            call,
            format!("{what} is not a constant: Umbra keeps one shadow of each global (width 1)"),
        )),
    }
}

/// `void umbra.shadows.zero()`: zeroes `shadows` and the memory pointer globals' shadows
/// point at.
fn zero_helper(m: Module, shadows: &[Val], pointers: &[(Val, Val)]) -> Val {
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = m.add_function(
        "umbra.shadows.zero",
        Ty::function(Ty::void(ctx), &[], false),
    );
    f.set_internal();
    let mut b = Builder::new(m);
    b.position_at_end(f.append_block("entry"));
    for &s in shadows {
        let bytes = m.store_size(s.global_value_type());
        b.memset_zero(s, i64t.int_const(bytes), s.alignment().max(1));
    }
    let usable = usable_size(m);
    for &(_, s) in pointers {
        let mem = b.load(ptr, s, 8);
        let n = b.call_function(usable, &[mem]);
        // malloc_usable_size(NULL) is 0: nothing is written then.
        b.memset_zero(mem, n, 1);
    }
    b.ret_void();
    f
}

/// `void umbra.shadows.ready()`: gives each pointer global's shadow a zeroed allocation at
/// least as large as the global's, keeping what an older, smaller one held.
fn ready_helper(m: Module, pointers: &[(Val, Val)]) -> Val {
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = m.add_function(
        "umbra.shadows.ready",
        Ty::function(Ty::void(ctx), &[], false),
    );
    f.set_internal();
    let usable = usable_size(m);
    let calloc = m.get_or_add_function("calloc", Ty::function(ptr, &[i64t, i64t], false));
    let free = m.get_or_add_function("free", Ty::function(Ty::void(ctx), &[ptr], false));
    let mut b = Builder::new(m);
    b.position_at_end(f.append_block("entry"));
    for &(g, s) in pointers {
        let primal = b.load(ptr, g, 8);
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
    b.ret_void();
    f
}

/// `ptr umbra.shadows.context()`: the context's handle, after making the pointer globals'
/// shadows ready; aborts with a message when called a second time.
fn context_helper(m: Module, ready: Val) -> Val {
    let ctx = m.context();
    let (ptr, i64t, i32t, i8t) = (
        Ty::ptr(ctx),
        Ty::int(ctx, 64),
        Ty::int(ctx, 32),
        Ty::int(ctx, 8),
    );
    let void = Ty::void(ctx);
    let f = m.add_function("umbra.shadows.context", Ty::function(ptr, &[], false));
    f.set_internal();
    let made = m.add_global(i8t, "umbra.shadows.made");
    made.set_initializer(i8t.zero());
    made.set_internal();
    let message = "umbra: __enzyme_context called a second time: Umbra keeps one shadow of each global, so a program has one context\n";
    let text = Val::const_string_in(ctx, message);
    let msg = m.add_global(text.ty(), "umbra.shadows.message");
    msg.set_initializer(text);
    msg.set_global_constant(true);
    msg.set_internal();
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let again = f.append_block("again");
    let first = f.append_block("first");
    b.position_at_end(entry);
    let before = b.load(i8t, made, 1);
    let was = b.icmp(IntPred::LLVMIntNE, before, i8t.zero());
    b.cond_br(was, again, first);
    b.position_at_end(again);
    let write = m.get_or_add_function("write", Ty::function(i64t, &[i32t, ptr, i64t], false));
    b.call_function(
        write,
        &[i32t.int_const(2), msg, i64t.int_const(message.len() as u64)],
    );
    let abort = m.get_or_add_function("abort", Ty::function(void, &[], false));
    b.call_function(abort, &[]);
    b.unreachable();
    b.position_at_end(first);
    b.store(i8t.int_const(1), made, 1);
    b.call_function(ready, &[]);
    // The handle: any address the program may pass back; the flag's is at hand.
    b.ret(made);
    f
}

/// `size_t malloc_usable_size(void *)`.
fn usable_size(m: Module) -> Val {
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    m.get_or_add_function("malloc_usable_size", Ty::function(i64t, &[ptr], false))
}
