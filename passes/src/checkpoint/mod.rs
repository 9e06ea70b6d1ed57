//! Checkpointed time loops (`__enzyme_checkpoint_for`, `runtime/include/umbra/checkpoint.h`).
//!
//! Before anything else runs, [`lower_calls`] turns each call
//! `__enzyme_checkpoint_for(step, start, n, enzyme_scheme, scheme, config,
//! [enzyme_checkpoint_region, ptr, bytes]..., args...)` into a call of a *loop function*
//! `umbra.ckpt.for.<R>.<step>(start, n, scheme, config, R, bytes, region pointers...,
//! region sizes..., args...)` whose body is the plain loop `for j in 0..n: step(start + j,
//! args...)`: the primal, and what forward mode differentiates (the tangent of each step in
//! turn). `bytes` is the regions' total size; the scheme and its configuration pass as integers
//! (no derivative flows through them).
//!
//! Reverse mode does not differentiate that body: [`reverse::generate`] gives the loop
//! function's augmented sweep and adjoint their own bodies, which drive the scheme through the
//! action protocol of the header. The augmented sweep runs steps untaped and takes the snapshots
//! the scheme asks for, up to the first turn; it keeps only the scheme's state on the tape. The
//! adjoint runs the rest of the schedule, differentiating one step at a time with the step's
//! reverse pair (augmented then adjoint, back to back, on a tape of its own that is freed
//! before the next action), so the memory held is the snapshots plus one step's tape.
//!
//! `__enzyme_checkpoint_while(step, markers..., args...)` becomes a loop function of the same
//! parameters (`start` 0, `n` -1) whose body is `j = 0; while (step(j++, args...));`; its
//! forward sweep tells the scheme the number of steps when a step returns 0.
//!
//! Guarantees: a call whose arguments cannot be decoded is refused naming the call site; a
//! step taking a floating-point value (which would need an `out` adjoint per step) is refused,
//! and so is memory in the calling function's locals (gone when the reverse sweep reruns the
//! steps). A snapshot holds the marked regions and the mutable globals the step's call tree
//! refers to that some code may write ([`written_globals`]); once the module is canonical,
//! [`state::cover_all`] adds the globals passed to the step that it writes and reads, and makes
//! reverse mode refuse a call whose step writes and reads other memory no region holds.

pub mod counted;
pub mod fixed;
pub mod fixed_emit;
pub mod fixed_reverse;
pub mod loops;
pub mod marks;
pub mod outline;
pub mod reverse;
pub mod state;

use crate::diag::{Error, Result};
use crate::ir::{Builder, Module, Opcode, Ty, Val};

/// Name prefix of the loop functions [`lower_calls`] creates.
pub const LOOP_PREFIX: &str = "umbra.ckpt.for.";

/// Name prefix of the loop functions of `__enzyme_checkpoint_while` (same parameters; `start`
/// is 0 and `n` is -1).
pub const WHILE_PREFIX: &str = "umbra.ckpt.while.";

/// Parameters of a loop function before the regions: start, n, scheme and config (as
/// integers), the number of regions, their total bytes. Then each region's pointer, each
/// region's size, and the step's arguments after its index.
pub const FIXED_PARAMS: usize = 6;

/// String attribute of a loop function whose call leaves state uncovered: the error, rendered.
pub const REFUSE_ATTR: &str = "umbra-ckpt-uncovered";

/// String attribute of a loop function every call of which [`state::cover_all`] judged covered.
pub(crate) const CHECKED_ATTR: &str = "umbra-ckpt-covered";

/// The refusal [`state::cover_all`] left on loop function `f`, if any; a function whose calls
/// it did not all judge (none should reach here) is refused too, rather than trusted.
pub fn refusal(f: Val) -> Result<()> {
    match f.string_fn_attr(REFUSE_ATTR) {
        Some(msg) => Err(Error {
            kind: crate::diag::ErrorKind::Unsupported,
            location: crate::diag::Location::default(),
            message: msg,
        }),
        None if f.string_fn_attr(CHECKED_ATTR).is_none() => Err(Error::in_function(
            f,
            "the memory this checkpointed loop or fixed point carries from step to step was not checked against its snapshots (its call is not in a function a request reaches directly)",
        )),
        None => Ok(()),
    }
}

/// The number of regions of loop function `f` calling `step`.
pub fn regions_of(f: Val, step: Val) -> usize {
    let params = f.function_type().param_types().len();
    let step_params = step.function_type().param_types().len();
    (params - FIXED_PARAMS - (step_params - 1)) / 2
}

const FOR_NAMES: [&str; 2] = ["__enzyme_checkpoint_for", "__umbra_checkpoint_for"];
const WHILE_NAMES: [&str; 2] = ["__enzyme_checkpoint_while", "__umbra_checkpoint_while"];

/// Whether `f` is a loop function made by [`lower_calls`].
pub fn is_loop(f: Val) -> bool {
    let name = f.name();
    name.starts_with(LOOP_PREFIX) || name.starts_with(WHILE_PREFIX)
}

/// The error for differentiating `f` again when it is a derivative of a checkpointed loop or
/// a fixed point (a Hessian-vector product through one, say): their derivatives drive schemes
/// and iterate to convergence, which Umbra does not differentiate.
pub fn refuse_higher_order(f: Val) -> Option<Error> {
    let name = f.name();
    let derived = ["augfwd.", "adjoint.", "fwddiffe."].iter().any(|d| {
        [LOOP_PREFIX, WHILE_PREFIX, fixed::FP_PREFIX]
            .iter()
            .any(|p| name.contains(&format!("{d}{p}")))
    });
    derived.then(|| {
        Error::in_function(
            f,
            "a derivative of a checkpointed loop or a fixed point cannot be differentiated again (higher-order derivatives through __enzyme_checkpoint_for / __enzyme_fixed_point are not supported)",
        )
    })
}

/// Whether `f` is the loop function of a while loop.
pub fn is_while(f: Val) -> bool {
    f.name().starts_with(WHILE_PREFIX)
}

/// The step function a loop function calls.
pub fn step_of(f: Val) -> Option<Val> {
    f.blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .filter(|i| i.is_call())
        .find_map(|i| i.called_function())
}

/// Rewrites every checkpointed-loop call of `module` into a call of its loop function, and
/// every fixed-point loop into a call of its fixed-point function ([`fixed`]).
pub fn lower_calls(module: Module) -> Result<()> {
    fixed::lower_calls(module)?;
    for name in FOR_NAMES.iter().chain(&WHILE_NAMES) {
        let Some(f) = module.function(name) else {
            continue;
        };
        for call in f.users() {
            if call.is_call() && call.called_value() == f {
                lower_one(module, call)?;
            } else {
                return Err(Error::at_value(
                    call,
                    format!("{name} is used other than by calling it"),
                ));
            }
        }
        if !f.has_uses() {
            f.delete_global();
        }
    }
    Ok(())
}

/// What a call says, decoded.
struct Decoded {
    step: Val,
    is_while: bool,
    start: Val,
    n: Val,
    scheme: Val,
    config: Val,
    regions: Vec<(Val, Val)>,
    args: Vec<Val>,
    markers: Vec<Val>,
}

/// The marker an argument names (`enzyme_scheme`, `umbra_checkpoint_region`, `enzyme_dup`...):
/// a global of that name (C++ may mangle it around the name), its address, a load or a cast of
/// it, or a metadata string. `None` for an ordinary argument.
pub(crate) fn marker_name(arg: Val) -> Option<String> {
    let name = if let Some(text) = arg.metadata_string() {
        text
    } else {
        let global = if arg.is_global_variable() {
            arg
        } else if arg.is_instruction()
            && matches!(arg.opcode(), Opcode::LLVMLoad | Opcode::LLVMPtrToInt)
            && arg.operand(0).is_global_variable()
        {
            arg.operand(0)
        } else {
            return None;
        };
        global.name()
    };
    const KNOWN: [&str; 13] = [
        "scheme",
        "fp_state",
        "fp_reduction",
        "fp_max_iters",
        "fp_control",
        "checkpoint_region",
        "dup",
        "const",
        "out",
        "dupnoneed",
        "width",
        "dupv",
        "dupnoneedv",
    ];
    ["enzyme_", "umbra_"].iter().find_map(|p| {
        let at = name.find(p)?;
        let id: String = name[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        // Only the markers' own names: a user's global `umbra_state` is data.
        KNOWN.contains(&&id[p.len()..]).then_some(id)
    })
}

fn decode_call(call: Val, is_while: bool) -> Result<Decoded> {
    let args = call.call_args();
    let fname = call.called_value().name();
    if args.len() < if is_while { 1 } else { 3 } {
        return Err(Error::user_at(
            call,
            format!("{fname} needs the step function, the first step and the number of steps"),
        ));
    }
    let step = strip_casts(args[0]);
    if !step.is_function() || step.is_declaration() {
        return Err(Error::user_at(
            call,
            format!("{fname}: the step must be a function with a body, given directly"),
        ));
    }
    let i64t = Ty::int(call.ty().context(), 64);
    let mut k = if is_while { 1 } else { 3 };
    let (mut scheme, mut config) = (None, None);
    let mut regions = Vec::new();
    let mut markers = Vec::new();
    while k < args.len() {
        let Some(id) = marker_name(args[k]) else {
            break;
        };
        let kind = id
            .strip_prefix("enzyme_")
            .or_else(|| id.strip_prefix("umbra_"))
            .unwrap_or("");
        markers.push(args[k]);
        match kind {
            "scheme" if k + 2 < args.len() => {
                scheme = Some(args[k + 1]);
                config = Some(args[k + 2]);
                k += 3;
            }
            "checkpoint_region" if k + 2 < args.len() => {
                regions.push((args[k + 1], args[k + 2]));
                k += 3;
            }
            _ => {
                return Err(Error::user_at(
                    call,
                    format!(
                        "{fname}: marker {} is not one of enzyme_scheme, enzyme_checkpoint_region (followed by their two arguments); the step's arguments take no activity markers",
                        id
                    ),
                ))
            }
        }
    }
    let (Some(scheme), Some(config)) = (scheme, config) else {
        return Err(Error::user_at(
            call,
            format!(
                "{fname} needs enzyme_scheme, &scheme, &config (for example &EnzymeCkptRevolve)"
            ),
        ));
    };
    let rest = args[k..].to_vec();
    let params = step.function_type().param_types();
    if is_while && !step.function_type().return_type().is_int() {
        return Err(Error::user_at(
            call,
            format!(
                "{fname}: the step {} must return an integer (nonzero: another step)",
                step.name()
            ),
        ));
    }
    if params.len() != rest.len() + 1 || !params[0].is_int() {
        return Err(Error::user_at(
            call,
            format!(
                "{fname}: the step {} takes {} parameters, but the call passes the step index and {} arguments",
                step.name(),
                params.len(),
                rest.len()
            ),
        ));
    }
    for (a, p) in rest.iter().zip(&params[1..]) {
        if a.ty() != *p {
            return Err(Error::user_at(
                call,
                format!(
                    "{fname}: an argument of type {} is passed for the step's parameter of type {}",
                    a.ty().print(),
                    p.print()
                ),
            ));
        }
    }
    // Globals the steps write, or read while other code writes them, are kept too (as Enzyme
    // does): a recomputed step must see them as they were.
    let i64t_regions = Ty::int(call.ty().context(), 64);
    for g in written_globals(step) {
        if !regions.iter().any(|r| strip_casts(r.0) == g) {
            let bytes = step.module().alloc_size(g.global_value_type());
            regions.push((g, i64t_regions.int_const(bytes)));
        }
    }
    for (k, a) in rest.iter().chain(regions.iter().map(|r| &r.0)).enumerate() {
        if let Some(local) = local_object(*a) {
            let what = if k < rest.len() {
                format!("the step's argument {}", k + 1)
            } else {
                "a checkpoint region".to_string()
            };
            return Err(Error::user_at(
                call,
                format!(
                    "{fname}: {what} points into a local variable ({}) of the function calling it; in reverse mode the steps run again after that function's forward sweep has returned, when its locals are gone: pass memory that outlives the gradient (a parameter, a global or the heap)",
                    crate::diag::short(local)
                ),
            ));
        }
    }
    Ok(Decoded {
        step,
        start: if is_while { i64t.zero() } else { args[1] },
        n: if is_while {
            i64t.int_const(u64::MAX)
        } else {
            args[2]
        },
        is_while,
        scheme,
        config,
        regions,
        args: rest,
        markers,
    })
}

/// The mutable globals the step and the functions it calls (directly, with a body) refer to
/// and that some code may write: a use other than as the address of a load, anywhere.
pub(crate) fn written_globals(step: Val) -> Vec<Val> {
    let mut seen = std::collections::HashSet::new();
    let mut work = vec![step];
    let mut found = Vec::new();
    while let Some(f) = work.pop() {
        if !seen.insert(f) {
            continue;
        }
        for i in f.blocks().into_iter().flat_map(|b| b.instructions()) {
            if let Some(g) = i.is_call().then(|| i.called_function()).flatten() {
                if !g.is_declaration() {
                    work.push(g);
                }
            }
            for op in i.operands() {
                let g = strip_address(op);
                if g.is_global_variable()
                    && !g.is_global_constant()
                    && marker_name(g).is_none()
                    && !found.contains(&g)
                    && may_be_written(g)
                {
                    found.push(g);
                }
            }
        }
    }
    found
}

/// The global (or other base) a constant address is computed from.
fn strip_address(v: Val) -> Val {
    let mut v = v;
    while v.is_constant_expr()
        && matches!(
            v.const_opcode(),
            Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast
        )
    {
        v = v.operand(0);
    }
    v
}

/// Whether some use of address `p` (through address arithmetic) may write what it points to:
/// anything but being the address of a load.
fn may_be_written(p: Val) -> bool {
    p.users().into_iter().any(|u| {
        let arith = if u.is_instruction() {
            matches!(u.opcode(), Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast)
        } else if u.is_constant_expr() {
            matches!(
                u.const_opcode(),
                Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast
            )
        } else {
            false
        };
        if arith {
            return may_be_written(u);
        }
        !(u.is_instruction() && u.opcode() == Opcode::LLVMLoad && u.operand(0) == p)
    })
}

/// Erases the loads of marker globals left unused once their call is gone (at -O0 they would
/// keep undefined symbols alive). One load may stand for several markers of a call.
pub(crate) fn erase_marker_loads(mut markers: Vec<Val>) {
    markers.sort();
    markers.dedup();
    for m in markers {
        if m.is_instruction() && m.opcode() == Opcode::LLVMLoad && !m.has_uses() {
            m.erase();
        }
    }
}

/// The alloca `p` points into, when it is one (through GEPs and casts).
pub(crate) fn local_object(p: Val) -> Option<Val> {
    let mut v = p;
    loop {
        let op = if v.is_instruction() {
            v.opcode()
        } else if v.is_constant_expr() {
            v.const_opcode()
        } else {
            return None;
        };
        match op {
            Opcode::LLVMAlloca => return Some(v),
            Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => {
                v = v.operand(0)
            }
            _ => return None,
        }
    }
}

pub(crate) fn strip_casts(v: Val) -> Val {
    let mut v = v;
    while v.is_constant_expr()
        && matches!(
            v.const_opcode(),
            Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast
        )
    {
        v = v.operand(0);
    }
    v
}

fn lower_one(module: Module, call: Val) -> Result<()> {
    let is_while = WHILE_NAMES.contains(&call.called_value().name().as_str());
    let d = decode_call(call, is_while)?;
    let ctx = module.context();
    let i64t = Ty::int(ctx, 64);
    let arg_tys: Vec<Ty> = d.args.iter().map(|a| a.ty()).collect();
    let looped = loop_function(module, d.step, d.is_while, d.regions.len(), &arg_tys, false);
    let mut b = Builder::new(module);
    b.position_before(call);
    // The scheme and its configuration pass as integers: they carry no derivative, and as
    // pointers the activity analysis would have to prove that of the memory they point to
    // (a configuration holding a pointer to a global statistics block, say).
    let start = b.sext_or_trunc(d.start, i64t);
    let n = b.sext_or_trunc(d.n, i64t);
    let scheme = b.cast(Opcode::LLVMPtrToInt, d.scheme, i64t);
    let config = b.cast(Opcode::LLVMPtrToInt, d.config, i64t);
    let mut sizes = Vec::new();
    let mut total = i64t.zero();
    for (_, bytes) in &d.regions {
        let size = b.sext_or_trunc(*bytes, i64t);
        total = b.add(total, size);
        sizes.push(size);
    }
    let nregions = i64t.int_const(d.regions.len() as u64);
    let mut args = vec![start, n, scheme, config, nregions, total];
    args.extend(d.regions.iter().map(|r| r.0));
    args.extend(sizes);
    args.extend(d.args.iter().copied());
    let new_call = b.call_function(looped, &args);
    new_call.copy_debug_location(call);
    call.erase();
    erase_marker_loads(d.markers);
    Ok(())
}

/// The loop function of `step` with `r` regions and the step's arguments of types `arg_tys`:
/// `for j in 0..n: step(start + j, args)`, or for a while loop `j = 0; while (step(j++,
/// args));`. One per step and signature, unless `fresh` (a call whose reverse mode
/// [`state::cover_all`] refuses gets its own).
pub(crate) fn loop_function(
    module: Module,
    step: Val,
    is_while: bool,
    r: usize,
    arg_tys: &[Ty],
    fresh: bool,
) -> Val {
    let ctx = module.context();
    let (i64t, ptr) = (Ty::int(ctx, 64), Ty::ptr(ctx));
    let mut params = vec![i64t; FIXED_PARAMS];
    params.extend(std::iter::repeat_n(ptr, r));
    params.extend(std::iter::repeat_n(i64t, r));
    params.extend(arg_tys.iter().copied());
    let fty = Ty::function(Ty::void(ctx), &params, false);
    let prefix = if is_while { WHILE_PREFIX } else { LOOP_PREFIX };
    let name = format!("{prefix}{r}.{}", step.name());
    // One per step and signature; another signature (or a fresh one) gets a suffixed name.
    if let Some(f) = module.function(&name) {
        if !fresh && f.function_type() == fty && f.string_fn_attr(REFUSE_ATTR).is_none() {
            return f;
        }
    }
    let f = module.add_function(&name, fty);
    f.set_internal();
    // Inlined into its caller, the loop would be differentiated as a plain loop, taping every
    // step: the very thing checkpointing is for.
    f.set_fn_attr("noinline", true);
    // Its adjoint runs the steps on the regions again: the caller's frees of them must wait.
    f.set_string_fn_attr(crate::analysis::overwrite::ADJOINT_READS_ARGUMENTS, "");
    crate::signature::copy_target_attributes(step, f);
    let p = f.params();
    for (k, name) in ["start", "n", "scheme", "config", "nregions", "bytes"]
        .iter()
        .enumerate()
    {
        p[k].set_name(name);
    }
    let entry = f.append_block("entry");
    let body = f.append_block("step");
    let exit = f.append_block("exit");
    let mut b = Builder::new(module);
    b.position_at_end(entry);
    if is_while {
        b.br(body);
    } else {
        let any = b.icmp(crate::ir::IntPred::LLVMIntSGT, p[1], i64t.zero());
        b.cond_br(any, body, exit);
    }
    b.position_at_end(body);
    let j = b.phi(i64t);
    let i = b.add(p[0], j);
    let step_ty = step.function_type();
    let i = b.sext_or_trunc(i, step_ty.param_types()[0]);
    let mut args = vec![i];
    args.extend(p[FIXED_PARAMS + 2 * r..].iter().copied());
    let result = b.call_function(step, &args);
    let next = b.add(j, i64t.int_const(1));
    // for: while steps remain; while: while the step says so.
    let more = if is_while {
        b.icmp(crate::ir::IntPred::LLVMIntNE, result, result.ty().zero())
    } else {
        b.icmp(crate::ir::IntPred::LLVMIntSLT, next, p[1])
    };
    b.cond_br(more, body, exit);
    j.add_incoming(i64t.zero(), entry);
    j.add_incoming(next, body);
    b.position_at_end(exit);
    b.ret_void();
    f
}
