//! Split mode: Enzyme's `__enzyme_augmentsize`, `__enzyme_augmentfwd` and `__enzyme_reverse`,
//! for programs that run a gradient's forward and reverse sweeps at different times (other work
//! in between, the reverse sweep in another function).
//!
//! Umbra's tape is a growable byte stack, not a struct of fixed size, so what the caller keeps
//! between the sweeps is the tape's *header*: `{ptr data, i64 size, i64 cap}` (the type the tape
//! helpers use) followed by an `i64` key naming the derived pair that filled it, 32 bytes
//! ([`HEADER_BYTES`], what `__enzyme_augmentsize` reports). The augmented sweep pushes onto it as
//! in a combined gradient (the data on the heap); the adjoint sweep pops it and frees the data.
//! Where the header lives follows Enzyme's options:
//! - `enzyme_allocated, size, enzyme_tape, buffer`: in the caller's buffer (`size` >= 32);
//! - `enzyme_tape, slot` alone: on the heap, its address stored in the pointer-sized `slot`;
//! - neither: on the heap, returned by `__enzyme_augmentfwd` (as Enzyme's anonymous tape) and
//!   passed to `__enzyme_reverse` after the arguments (and after the result's adjoint).
//!
//! Guarantees: both sweeps are derived without assuming memory is unchanged in between (the
//! caller may write anything there). A reverse sweep given a tape that the matching forward
//! sweep did not fill (another function or other activities, no forward sweep, or a tape
//! already consumed) stops the program with a message naming the request, instead of
//! reading a wrong tape: the key is checked, and cleared once the tape is consumed.

use super::lower::{
    check_reverse, convert_result, deliver, deliver_gradient, finish, request_args,
};
use super::{Request, Split, Sweep};
use crate::cache::Session;
use crate::diag::{Error, ErrorKind, Result};
use crate::ir::{Builder, IntPred, Module, Ty, TyKind, Val};
use crate::vocab::Activity;

/// Bytes of the tape header the caller keeps between the sweeps.
pub const HEADER_BYTES: u64 = 32;

/// Byte offset of the key in the header, after the tape's `{ptr, i64, i64}`.
const KEY_OFFSET: u64 = 24;

/// Lowers a split-mode request.
pub fn lower_split(session: &mut Session, req: &Request) -> Result<()> {
    let Some(split) = &req.split else {
        return Ok(());
    };
    match split.sweep {
        Sweep::Size => lower_size(req),
        Sweep::Forward | Sweep::Reverse => lower_sweep(session, req, split),
    }
}

/// `__enzyme_augmentsize`: the header's size, whatever the activities.
fn lower_size(req: &Request) -> Result<()> {
    let ty = req.call.ty();
    if req.call.has_uses() {
        if !ty.is_int() {
            return Err(Error::user_at(
                req.call,
                format!(
                    "'{}' is declared to return {}; __enzyme_augmentsize returns an integer (the tape's size in bytes)",
                    req.call.called_value().name(),
                    ty.print()
                ),
            ));
        }
        req.call.replace_all_uses_with(ty.int_const(HEADER_BYTES));
    }
    finish(req);
    Ok(())
}

fn lower_sweep(session: &mut Session, req: &Request, split: &Split) -> Result<()> {
    check_reverse(session, req)?;
    let f = req.function;
    let m = session.module;
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let req_name = req.call.called_value().name();
    if split.allocated.is_some() && split.tape.is_none() {
        return Err(Error::user_at(
            req.call,
            format!("'{req_name}': enzyme_allocated needs enzyme_tape and the buffer of that size (umbra does not return the tape by value)"),
        )
        .with_kind(ErrorKind::Unsupported));
    }
    if let Some(size) = split.allocated {
        if !size.ty().is_int() {
            return Err(Error::user_at(
                req.call,
                format!("'{req_name}': enzyme_allocated must be followed by the buffer's size in bytes (an integer)"),
            ));
        }
        if let Some(n) = size.const_int_value().filter(|&n| n < HEADER_BYTES) {
            return Err(Error::user_at(
                req.call,
                format!(
                    "'{req_name}': the tape buffer has {n} bytes; '{}' needs {HEADER_BYTES} (what __enzyme_augmentsize returns)",
                    f.name()
                ),
            ));
        }
    }
    if let Some(t) = split.tape.filter(|t| !t.ty().is_ptr()) {
        return Err(Error::user_at(
            req.call,
            format!(
                "'{req_name}': enzyme_tape must be followed by a pointer, got {}",
                t.ty().print()
            ),
        ));
    }
    let acts: Vec<Activity> = req.args.iter().map(|a| a.activity).collect();
    // The caller may change memory between the sweeps: nothing read from it may be re-read.
    let tctx = super::lower::request_context(session, req);
    let (aug, adj) = crate::derive::reverse_functions(session, f, &acts, false, tctx)?;
    let key = i64t.int_const(fnv1a(&adj.name()));
    let here = req.call.debug_location().unwrap_or_else(|| "?".into());

    let mut b = Builder::new(m);
    b.position_before(req.call);
    if let Some(size) = split.allocated.filter(|s| s.const_int_value().is_none()) {
        let size = b.zext_or_trunc(size, i64t);
        let ok = b.icmp(IntPred::LLVMIntUGE, size, i64t.int_const(HEADER_BYTES));
        expect(
            &mut b,
            ok,
            &format!(
                "umbra: {here}: {}: the tape buffer (enzyme_allocated) is smaller than the {HEADER_BYTES} bytes __enzyme_augmentsize returns\n",
                split.sweep.entry()
            ),
        );
    }
    let args = request_args(&mut b, req)?;
    let params = f.function_type().param_types();
    match split.sweep {
        Sweep::Forward => {
            let (header, slot, returned) = match (split.allocated, split.tape) {
                (Some(_), Some(buffer)) => (buffer, None, None),
                (None, Some(slot)) => (malloc(&mut b, HEADER_BYTES), Some(slot), None),
                _ => {
                    let h = malloc(&mut b, HEADER_BYTES);
                    (h, None, Some(h))
                }
            };
            b.store(crate::tape::tape_type(m).zero(), header, 8);
            // The key is set once the sweep has returned: a sweep that an exception cut short
            // leaves a tape no reverse sweep accepts. Its guard frees what it allocated (the
            // header too when it is on the heap: the caller never received it).
            let key_p = b.gep(Ty::int(ctx, 8), header, &[i64t.int_const(KEY_OFFSET)], true);
            b.store(i64t.zero(), key_p, 8);
            let mut call_args = vec![header];
            call_args.extend(args);
            let on_heap = split.allocated.is_none();
            let guarded =
                crate::tape::owned::guarded(session.module, session.personality(), aug, on_heap);
            let result = b.call_function(guarded, &call_args);
            result.copy_debug_location(req.call);
            b.store(key, key_p, 8);
            if let Some(slot) = slot {
                b.store(header, slot, 8);
            }
            deliver_forward(&mut b, req, returned, result)?;
        }
        Sweep::Reverse => {
            let ret = f.function_type().return_type();
            let mut trailing = split.trailing.iter().copied();
            let mut call_args = args;
            if crate::reverse::returns_adjoint(f, &session.float_bits_of(f, tctx)) {
                // Enzyme: the result's adjoint comes first after the arguments; without one,
                // 1.0 when the tape is given by marker.
                let dret = match trailing.len() {
                    0 if split.tape.is_some() => ret.float_const(1.0),
                    1 if split.tape.is_none() => {
                        return Err(Error::user_at(
                            req.call,
                            format!(
                                "'{req_name}': '{}' returns {}, so its adjoint comes after the arguments, then the tape __enzyme_augmentfwd returned; only one value is there",
                                f.name(),
                                ret.print()
                            ),
                        ))
                    }
                    _ => {
                        let d = trailing.next().unwrap_or_else(|| ret.float_const(1.0));
                        convert_seed(&mut b, req, d, ret)?
                    }
                };
                call_args.push(dret);
            }
            let (header, owned) = match (split.allocated, split.tape) {
                (Some(_), Some(buffer)) => (buffer, false),
                (None, Some(slot)) => (b.load(ptr, slot, 8), true),
                _ => {
                    let Some(t) = trailing.next() else {
                        return Err(Error::user_at(
                            req.call,
                            format!("'{req_name}' needs the tape: the value __enzyme_augmentfwd returned, after the arguments (or enzyme_tape with the buffer)"),
                        ));
                    };
                    if !t.ty().is_ptr() {
                        return Err(Error::user_at(
                            req.call,
                            format!(
                                "'{req_name}': the tape (after the arguments) must be the pointer __enzyme_augmentfwd returned, got {}",
                                t.ty().print()
                            ),
                        ));
                    }
                    (t, true)
                }
            };
            if let Some(extra) = trailing.next() {
                return Err(Error::user_at(
                    req.call,
                    format!(
                        "too many arguments in '{req_name}' for '{}': {} left over after the arguments, the result's adjoint and the tape",
                        f.name(),
                        extra.print()
                    ),
                ));
            }
            let key_p = b.gep(Ty::int(ctx, 8), header, &[i64t.int_const(KEY_OFFSET)], true);
            let have = b.load(i64t, key_p, 8);
            let ok = b.icmp(IntPred::LLVMIntEQ, have, key);
            expect(
                &mut b,
                ok,
                &format!(
                    "umbra: {here}: __enzyme_reverse of '{}' got a tape its __enzyme_augmentfwd (same function and activities) did not fill, or one already consumed\n",
                    f.name()
                ),
            );
            let mut adj_args = vec![header];
            adj_args.extend(call_args);
            let adjoints = b.call_function(adj, &adj_args);
            adjoints.copy_debug_location(req.call);
            if session.opts.tape_stats {
                crate::reverse::report_stats(&mut b, header);
            }
            crate::reverse::free_tape(&mut b, header);
            b.store(i64t.zero(), key_p, 8);
            if owned {
                let free =
                    m.get_or_add_function("free", Ty::function(Ty::void(ctx), &[ptr], false));
                b.call_function(free, &[header]);
            }
            deliver_gradient(&mut b, req, adjoints, &params)?;
        }
        Sweep::Size => {}
    }
    finish(req);
    Ok(())
}

/// `__enzyme_augmentfwd`'s result, as Enzyme returns it: the tape when the caller did not give
/// one, then `f`'s result, then its shadow (pointer results); one of them alone, or a struct of
/// them when the request is declared to return one.
fn deliver_forward(b: &mut Builder, req: &Request, tape: Option<Val>, result: Val) -> Result<()> {
    let want = req.sret.map_or(req.call.ty(), |(_, ty)| ty);
    if want.is_void() || !(req.call.has_uses() || req.sret.is_some()) {
        return Ok(());
    }
    let mut parts: Vec<Val> = tape.into_iter().collect();
    let ret = req.function.function_type().return_type();
    if crate::reverse::returns_shadow(req.function) {
        parts.push(b.extract_value(result, 0));
        parts.push(b.extract_value(result, 1));
    } else if !ret.is_void() {
        parts.push(result);
    }
    let fields = (want.kind() == TyKind::Struct).then(|| want.struct_fields());
    let value = match (parts.as_slice(), fields) {
        ([one], None) => convert_result(b, req, *one, want)?,
        ([one], Some(f)) if f.len() == 1 && one.ty() == want => *one,
        (_, Some(f)) if f.len() == parts.len() => {
            let mut agg = want.poison();
            for (k, &part) in field_order(&parts, &f).into_iter().zip(&parts) {
                let v = convert_result(b, req, part, f[k])?;
                agg = b.insert_value(agg, v, k as u32);
            }
            agg
        }
        ([one], Some(f)) if f.len() == 1 => {
            let v = convert_result(b, req, *one, f[0])?;
            b.insert_value(want.poison(), v, 0)
        }
        _ => {
            let what: Vec<String> = parts.iter().map(|p| p.ty().print()).collect();
            return Err(Error::user_at(
                req.call,
                format!(
                    "'{}' is declared to return {}, but it returns {} here ({}); declare it to return that, or void",
                    req.call.called_value().name(),
                    want.print(),
                    if parts.is_empty() { "nothing".to_string() } else { format!("{} value(s)", parts.len()) },
                    if parts.is_empty() { "no tape is returned when enzyme_tape is given, and f returns void".to_string() } else { what.join(", ") }
                ),
            ));
        }
    };
    deliver(b, req, value);
    Ok(())
}

/// Which field of the declared struct each part (tape, then result, then its shadow) goes to:
/// in order, unless the fields hold the parts' types in another order, as in Enzyme's
/// `struct { double x; void *tape; }` (`ReverseMode/virtualshadow.cpp`): each part then goes to
/// the first unused field of its own type, so the result is where its type is declared.
fn field_order(parts: &[Val], fields: &[Ty]) -> Vec<usize> {
    let in_order: Vec<usize> = (0..parts.len()).collect();
    if parts.iter().zip(fields).all(|(p, &f)| p.ty() == f) {
        return in_order;
    }
    let mut used = vec![false; fields.len()];
    let mut order = Vec::with_capacity(parts.len());
    for p in parts {
        match (0..fields.len()).find(|&k| !used[k] && fields[k] == p.ty()) {
            Some(k) => {
                used[k] = true;
                order.push(k);
            }
            // No permutation of the same types: in order, converted where they convert.
            None => return in_order,
        }
    }
    order
}

/// The result's adjoint passed to `__enzyme_reverse`, as `f`'s result type.
fn convert_seed(b: &mut Builder, req: &Request, d: Val, ret: Ty) -> Result<Val> {
    if d.ty() == ret {
        return Ok(d);
    }
    if d.ty().is_float() {
        return Ok(b.fp_cast(d, ret));
    }
    Err(Error::user_at(
        req.call,
        format!(
            "'{}': the adjoint of '{}''s result (after the arguments) has type {}, not {}",
            req.call.called_value().name(),
            req.function.name(),
            d.ty().print(),
            ret.print()
        ),
    ))
}

fn malloc(b: &mut Builder, bytes: u64) -> Val {
    let m = b.module();
    let ctx = m.context();
    let i64t = Ty::int(ctx, 64);
    let f = m.get_or_add_function("malloc", Ty::function(Ty::ptr(ctx), &[i64t], false));
    b.call_function(f, &[i64t.int_const(bytes)])
}

/// Emits a check that `ok` holds; otherwise the program writes `message` to standard error and
/// aborts (through an internal helper, so the request's block need not be split).
fn expect(b: &mut Builder, ok: Val, message: &str) {
    let m = b.module();
    let ctx = m.context();
    let text = Val::const_string_in(ctx, message);
    let g = m.add_global(text.ty(), "umbra.split.message");
    g.set_initializer(text);
    g.set_global_constant(true);
    g.set_internal();
    let len = Ty::int(ctx, 64).int_const(message.len() as u64);
    b.call_function(expect_helper(m), &[ok, g, len]);
}

/// `void umbra.split.expect(i1 ok, ptr message, i64 len)`: `write(2, message, len)` and
/// `abort()` unless `ok`.
fn expect_helper(m: Module) -> Val {
    const NAME: &str = "umbra.split.expect";
    if let Some(f) = m.function(NAME) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i64t, i32t) = (Ty::ptr(ctx), Ty::int(ctx, 64), Ty::int(ctx, 32));
    let void = Ty::void(ctx);
    let f = m.add_function(
        NAME,
        Ty::function(void, &[Ty::int(ctx, 1), ptr, i64t], false),
    );
    f.set_internal();
    let (ok, msg, len) = (f.params()[0], f.params()[1], f.params()[2]);
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let fail = f.append_block("fail");
    let done = f.append_block("done");
    b.position_at_end(entry);
    b.cond_br(ok, done, fail);
    b.position_at_end(fail);
    let write = m.get_or_add_function("write", Ty::function(i64t, &[i32t, ptr, i64t], false));
    b.call_function(write, &[i32t.int_const(2), msg, len]);
    let abort = m.get_or_add_function("abort", Ty::function(void, &[], false));
    b.call_function(abort, &[]);
    b.unreachable();
    b.position_at_end(done);
    b.ret_void();
    f
}

/// FNV-1a: a stable 64-bit key for a derived pair's name (never 0, the consumed tape's key).
fn fnv1a(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        h ^= byte as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h.max(1)
}
