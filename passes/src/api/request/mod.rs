//! Finding derivative requests and decoding their arguments into an [`ArgPlan`] per parameter of
//! the function to differentiate.

pub mod batch_args;

use super::markers::{self, Marker};
use super::names::{self, ApiName, Sweep};
use crate::diag::{Error, ErrorKind, Result};
use crate::ir::{Module, TyKind, Val};
use crate::vocab::{Activity, Mode};
use std::collections::HashSet;

/// The split-mode part of a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// Which sweep.
    pub sweep: Sweep,
    /// `enzyme_allocated, size`: the size of the caller's tape buffer.
    pub allocated: Option<Val>,
    /// `enzyme_tape, pointer`: the caller's tape buffer (with `allocated`), or where the
    /// pointer to the tape is kept (without).
    pub tape: Option<Val>,
    /// `__enzyme_reverse`: the values after the last parameter's (the result's adjoint, then
    /// the tape `__enzyme_augmentfwd` returned when no `enzyme_tape` is given).
    pub trailing: Vec<Val>,
}

/// One parameter of the differentiated function: its activity and the request's values for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgPlan {
    /// How the parameter is differentiated.
    pub activity: Activity,
    /// The primal value the request passes.
    pub primal: Val,
    /// The shadow (tangent or shadow memory) for `Dup`/`DupNoNeed`; batched, lane 0's.
    pub shadow: Option<Val>,
    /// Batched forward mode: the shadows of lanes 1.. (empty for `enzyme_dupv`).
    pub more_shadows: Vec<Val>,
    /// `enzyme_dupv`: the byte stride between the lanes' shadows, all computed from `shadow`.
    pub stride: Option<Val>,
}

/// A decoded derivative request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The request call instruction.
    pub call: Val,
    /// Forward or reverse.
    pub mode: Mode,
    /// The function to differentiate.
    pub function: Val,
    /// One plan per parameter of `function`.
    pub args: Vec<ArgPlan>,
    /// Marker loads consumed by this request (deleted once dead).
    pub marker_loads: Vec<Val>,
    /// Where the result goes when the request returns a struct through memory (`sret`): the
    /// pointer and the struct type.
    pub sret: Option<(Val, crate::ir::Ty)>,
    /// Tangents per call (`enzyme_width`, forward mode); 1 otherwise.
    pub width: u32,
    /// Split mode (`mode` is then `Reverse`).
    pub split: Option<Split>,
    /// `__enzyme_batch`: the values of each parameter (`args` is then empty, `mode` unused).
    pub batch: Option<Vec<batch_args::BatchArg>>,
    /// `enzyme_context, ctx`: the context of global shadows the request uses.
    pub context: Option<Val>,
}

impl Request {
    /// The request as a call of the function it differentiates, for the type analysis: its
    /// values for the function's pointer parameters ([`crate::analysis::types::requests`]).
    /// `None` for batch requests, whose lanes each pass their own, and requests passing no
    /// pointer.
    pub fn type_site(&self) -> Option<crate::analysis::types::RequestSite> {
        if self.batch.is_some() {
            return None;
        }
        let params = self.function.params();
        let args = self
            .args
            .iter()
            .zip(&params)
            .enumerate()
            .filter(|(_, (a, p))| p.ty().is_ptr() && a.primal.ty().is_ptr())
            .map(|(k, (a, _))| crate::analysis::types::RequestArg {
                param: k,
                primal: a.primal,
                shadow: a.shadow.filter(|s| s.ty().is_ptr()),
            })
            .collect::<Vec<_>>();
        if args.is_empty() {
            // Nothing to see: no site, and the function's context 0.
            return None;
        }
        // Integer constants of the parameter's own type (varargs promote smaller ones).
        let constants = self
            .args
            .iter()
            .zip(&params)
            .enumerate()
            .filter(|(_, (a, p))| a.primal.ty() == p.ty())
            .filter_map(|(k, (a, _))| Some((k, a.primal.const_int_value()?)))
            .collect();
        Some(crate::analysis::types::RequestSite {
            call: self.call,
            function: self.function,
            args,
            constants,
        })
    }
}

/// Finds and decodes every request call in `module`, in module order (functions, then blocks,
/// then instructions), so every host lowers them identically.
pub fn find_requests(module: Module) -> Result<Vec<Request>> {
    let mut requests: Vec<(Val, Kind)> = Vec::new();
    for f in module.functions() {
        let name = f.name();
        let kind = match names::classify(&name) {
            None => continue,
            Some(ApiName::Request(mode)) => Kind::Derivative(mode, None),
            Some(ApiName::Split(sweep)) => Kind::Derivative(Mode::Reverse, Some(sweep)),
            Some(ApiName::Batch) => Kind::Batch,
            // Not a request: its calls stay until the derived code is built (`super::iter`).
            Some(ApiName::Iter) => continue,
            // Lowered after the requests (`super::todense`).
            Some(ApiName::View) => continue,
            // Lowered before the derived code is built (`super::shadow_context`).
            Some(ApiName::GlobalShadows(_)) => continue,
            // Lowered before requests are read (`super::truncate`); `umbra check` reads the
            // module as it is.
            Some(ApiName::Truncate(_)) => continue,
            Some(other) => {
                if let Some(&user) = f.users().first() {
                    return Err(not_implemented(user, &name, other));
                }
                continue;
            }
        };
        for user in f.users() {
            if !user.is_call() || user.called_value() != f {
                return Err(Error::user_at(
                    user,
                    format!(
                        "'{name}' is used other than as a direct call; derivative requests must be called directly"
                    ),
                ));
            }
        }
        requests.push((f, kind));
    }
    let mut out = Vec::new();
    if requests.is_empty() {
        return Ok(out);
    }
    for f in module.functions() {
        for b in f.blocks() {
            for i in b.instructions() {
                if !i.is_call() {
                    continue;
                }
                let callee = i.called_value();
                if let Some(&(_, kind)) = requests.iter().find(|(r, _)| *r == callee) {
                    out.push(decode(i, kind)?);
                }
            }
        }
    }
    Ok(out)
}

/// `req` decoded again from its call's current operands. Lowering a request replaces every use
/// of its call and erases it, so a value decoded earlier from a later request may be gone: the
/// tape `__enzyme_augmentfwd` returned, passed straight to `__enzyme_reverse` (no stack slot in
/// between from -O1 on), or any request's result passed to another request.
pub fn redecode(req: &Request) -> Result<Request> {
    let kind = if req.batch.is_some() {
        Kind::Batch
    } else {
        Kind::Derivative(req.mode, req.split.as_ref().map(|s| s.sweep))
    };
    decode(req.call, kind)
}

/// Orders `requests` so that every request inside a function another request differentiates
/// (directly or through its callees) is lowered before that other request: nested derivatives
/// (a Hessian-vector product as `__enzyme_fwddiff` of a function calling `__enzyme_autodiff`)
/// differentiate the inner request's derived function, which must exist by then. Otherwise
/// module order is kept. A request inside the code it differentiates is an error.
pub fn inner_first(requests: Vec<Request>) -> Result<Vec<Request>> {
    let reach: Vec<HashSet<Val>> = requests.iter().map(|r| reachable(r.function)).collect();
    let holder = |r: &Request| r.call.parent_function();
    // before[k]: the requests that must be lowered before request k.
    let before: Vec<Vec<usize>> = (0..requests.len())
        .map(|k| {
            (0..requests.len())
                .filter(|&j| holder(&requests[j]).is_some_and(|h| reach[k].contains(&h)))
                .collect()
        })
        .collect();
    for (k, r) in requests.iter().enumerate() {
        if before[k].contains(&k) {
            return Err(Error::user_at(
                r.call,
                format!(
                    "this request differentiates '{}', which reaches the request itself; a derivative request cannot differentiate its own code",
                    r.function.name()
                ),
            ));
        }
    }
    let mut done = vec![false; requests.len()];
    let mut order = Vec::with_capacity(requests.len());
    while order.len() < requests.len() {
        let Some(k) = (0..requests.len()).find(|&k| !done[k] && before[k].iter().all(|&j| done[j]))
        else {
            let k = (0..requests.len()).find(|&k| !done[k]).unwrap_or(0);
            return Err(Error::user_at(
                requests[k].call,
                "nested derivative requests that differentiate each other's code cannot be ordered",
            ));
        };
        done[k] = true;
        order.push(k);
    }
    let mut slots: Vec<Option<Request>> = requests.into_iter().map(Some).collect();
    Ok(order.into_iter().filter_map(|k| slots[k].take()).collect())
}

/// The functions with a body reachable from `f` through direct calls, `f` included.
pub(crate) fn reachable(f: Val) -> HashSet<Val> {
    let mut seen = HashSet::new();
    let mut stack = vec![f];
    while let Some(g) = stack.pop() {
        if g.is_declaration() || !seen.insert(g) {
            continue;
        }
        for b in g.blocks() {
            for i in b.instructions() {
                if let Some(callee) = i.is_call().then(|| i.called_function()).flatten() {
                    stack.push(callee);
                }
            }
        }
    }
    seen
}

/// The error for a use of `name`, an API function Umbra does not implement: at the call, so
/// the message has its source location, instead of an undefined reference at link time.
fn not_implemented(user: Val, name: &str, what: ApiName) -> Error {
    let id = names::api_identifier(name);
    let shown = if id == name {
        format!("'{name}'")
    } else {
        format!("'{id}' ('{name}')")
    };
    let message = match what {
        ApiName::Unsupported(entry) => format!(
            "{shown} is Enzyme's {entry}, which umbra does not support yet; umbra implements __enzyme_autodiff, __enzyme_fwddiff (and the __umbra_ spellings), split mode and __enzyme_batch"
        ),
        _ => format!(
            "{shown} is neither an umbra nor an Enzyme function; requests are __enzyme_autodiff, __enzyme_fwddiff, __umbra_autodiff and __umbra_fwddiff"
        ),
    };
    Error::user_at(user, message).with_kind(ErrorKind::Unsupported)
}

/// What a request function asks for.
#[derive(Clone, Copy)]
enum Kind {
    /// A derivative (split mode: which sweep).
    Derivative(Mode, Option<Sweep>),
    /// `__enzyme_batch`.
    Batch,
}

fn decode(call: Val, kind: Kind) -> Result<Request> {
    let (mode, sweep) = match kind {
        Kind::Derivative(mode, sweep) => (mode, sweep),
        Kind::Batch => (Mode::Forward, None),
    };
    let req_name = call.called_value().name();
    let mut args = call.call_args();
    // A struct result returned through memory arrives as a hidden first argument.
    let sret = call.call_arg_sret_type(0).map(|ty| (args[0], ty));
    if sret.is_some() {
        args.remove(0);
    }
    let Some(&first) = args.first() else {
        return Err(Error::user_at(
            call,
            format!("'{req_name}' needs the function to differentiate as its first argument"),
        ));
    };
    if !first.is_function() {
        return Err(Error::user_at(
            call,
            format!(
                "the first argument of '{req_name}' is not a function (got '{}'); pass the function itself, e.g. (void*)f",
                first.print()
            ),
        ));
    }
    let function = first;
    if function.is_declaration() {
        return Err(Error::user_at(
            call,
            format!(
                "cannot differentiate '{}': it has no body in this module",
                function.name()
            ),
        ));
    }
    if sweep == Some(Sweep::Size) {
        return decode_size(call, function, &args);
    }
    if let Kind::Batch = kind {
        return batch_args::decode(call, function, &args, sret);
    }
    let mut split = sweep.map(|sweep| Split {
        sweep,
        allocated: None,
        tape: None,
        trailing: Vec::new(),
    });
    let params = function.function_type().param_types();
    let mut plans = Vec::with_capacity(params.len());
    let mut marker_loads = Vec::new();
    let mut i = 1;
    let mut width = 1u32;
    if args.get(1).copied().and_then(markers::decode) == Some(Marker::Width) {
        let n = args.get(2).and_then(|v| v.const_int_value());
        match n {
            Some(n @ 1..=64) if mode == Mode::Forward => width = n as u32,
            _ if mode == Mode::Reverse => {
                return Err(Error::user_at(
                    call,
                    format!("'{req_name}': enzyme_width (batched derivatives) is supported in forward mode only"),
                )
                .with_kind(ErrorKind::Unsupported))
            }
            _ => {
                return Err(Error::user_at(
                    call,
                    format!("'{req_name}': enzyme_width must be followed by a constant integer between 1 and 64"),
                ))
            }
        }
        if args[1].is_instruction() {
            marker_loads.push(args[1]);
        }
        i = 3;
    }
    // `enzyme_context, ctx`, right after the function or the width.
    let mut context = None;
    if args.get(i).copied().and_then(markers::decode) == Some(Marker::Context) {
        let Some(&ctx) = args.get(i + 1) else {
            return Err(Error::user_at(
                call,
                format!("'{req_name}': enzyme_context must be followed by the context"),
            ));
        };
        // A context of width w holds w lanes of shadows: forward mode carries w tangents.
        if let Some(w) = context_width(ctx).filter(|&w| w != 1) {
            match mode {
                Mode::Forward if width == 1 && w <= 64 => width = w as u32,
                Mode::Forward if width as u64 == w => {}
                Mode::Forward => {
                    return Err(Error::user_at(
                        call,
                        format!("'{req_name}': the context passed after enzyme_context has width {w}, but the request's width is {width}: they must agree"),
                    ))
                }
                Mode::Reverse => {
                    return Err(Error::user_at(
                        call,
                        format!("'{req_name}': the context passed after enzyme_context has width {w}: a context wider than 1 serves forward mode only (Umbra's reverse mode has width 1)"),
                    )
                    .with_kind(ErrorKind::Unsupported))
                }
            }
        }
        context = Some(ctx);
        if args[i].is_instruction() {
            marker_loads.push(args[i]);
        }
        i += 2;
    }
    let too_few = |k: usize| {
        Error::user_at(
            call,
            format!(
                "too few arguments in '{req_name}' for '{}': parameter {} of {} has no value",
                function.name(),
                k + 1,
                params.len()
            ),
        )
    };
    for (k, &pty) in params.iter().enumerate() {
        i = split_markers(call, &args, i, split.as_mut(), &mut marker_loads)?;
        let mut activity = None;
        let mut strided = false;
        if let Some(m) = args.get(i).copied().and_then(markers::decode) {
            match m {
                Marker::Known(a) => activity = Some(a),
                Marker::Strided(a) => {
                    activity = Some(a);
                    strided = true;
                }
                Marker::Width | Marker::Context => {
                    return Err(Error::user_at(
                        call,
                        format!(
                            "enzyme_width or enzyme_context (argument {} of '{req_name}') must come right after the function (the width first)",
                            i + 1
                        ),
                    ))
                }
                Marker::Batch(_) => {
                    return Err(Error::user_at(
                        call,
                        format!(
                            "marker at argument {} of '{req_name}' is for __enzyme_batch only; derivative requests take enzyme_dup, enzyme_const, ...",
                            i + 1
                        ),
                    ))
                }
                Marker::Allocated | Marker::Tape | Marker::NoFree => {
                    return Err(Error::user_at(
                        call,
                        format!(
                            "marker at argument {} of '{req_name}' is for split mode (__enzyme_augmentfwd and __enzyme_reverse) only",
                            i + 1
                        ),
                    ))
                }
                Marker::Unknown(name) => {
                    return Err(Error::at(
                        call,
                        format!(
                            "activity marker '{name}' (argument {} of '{req_name}') is not supported by umbra yet; supported markers: {}",
                            i + 1,
                            markers::SUPPORTED
                        ),
                    ))
                }
            }
            // -O2 shares one marker load between arguments and requests: record it once.
            if args[i].is_instruction() && !marker_loads.contains(&args[i]) {
                marker_loads.push(args[i]);
            }
            i += 1;
        }
        let activity = activity.unwrap_or_else(|| default_activity(pty.kind(), pty, mode));
        if activity == Activity::Out && mode == Mode::Forward {
            return Err(Error::user_at(
                call,
                format!(
                    "marker 'out' (parameter {} of '{}') is not valid in forward mode; use dup or const",
                    k + 1,
                    function.name()
                ),
            ));
        }
        // Enzyme's order for dupv: the stride, then the primal, then the one shadow pointer.
        let mut stride = None;
        if strided {
            stride = Some(*args.get(i).ok_or_else(|| too_few(k))?);
            i += 1;
        }
        let primal = *args.get(i).ok_or_else(|| too_few(k))?;
        i += 1;
        let mut more_shadows = Vec::new();
        let shadow = if activity.has_shadow() {
            let s = *args.get(i).ok_or_else(|| too_few(k))?;
            i += 1;
            if !strided {
                for _ in 1..width {
                    more_shadows.push(*args.get(i).ok_or_else(|| too_few(k))?);
                    i += 1;
                }
            }
            Some(s)
        } else {
            None
        };
        if strided && !pty.is_ptr() {
            return Err(Error::user_at(
                call,
                format!(
                    "parameter {} of '{}' has type {}: enzyme_dupv and enzyme_dupnoneedv are for pointers",
                    k + 1,
                    function.name(),
                    pty.print()
                ),
            ));
        }
        plans.push(ArgPlan {
            activity,
            primal,
            shadow,
            more_shadows,
            stride,
        });
    }
    i = split_markers(call, &args, i, split.as_mut(), &mut marker_loads)?;
    if let Some(split) = split.as_mut().filter(|s| s.sweep == Sweep::Reverse) {
        split.trailing = args[i.min(args.len())..].to_vec();
        i = args.len();
    }
    if i < args.len() {
        return Err(Error::user_at(
            call,
            format!(
                "too many arguments in '{req_name}' for '{}': it takes {} parameter(s); {} value(s) left over",
                function.name(),
                params.len(),
                args.len() - i
            ),
        ));
    }
    Ok(Request {
        call,
        mode,
        function,
        args: plans,
        marker_loads,
        sret,
        width,
        split,
        batch: None,
        context,
    })
}

/// The constant width of the `__enzyme_context` call that made `ctx`: the call itself, or at
/// `-O0` a load of a stack slot the call's result is stored to.
fn context_width(ctx: Val) -> Option<u64> {
    context_call(ctx)?.call_args().first()?.const_int_value()
}

/// The `__enzyme_context` call that made `ctx`: the call itself, or at `-O0` a load of a stack
/// slot the call's result is stored to. Once the API is lowered, the call of the helper that
/// replaced it (`umbra.shadows.context.<i>(width)`, `super::shadow_context`).
pub fn context_call(ctx: Val) -> Option<Val> {
    let is_context = |v: Val| {
        v.is_call()
            && v.called_function().is_some_and(|f| {
                names::classify(&f.name()) == Some(ApiName::GlobalShadows(names::ShadowFn::Context))
                    || f.name().starts_with("umbra.shadows.context.")
            })
    };
    let made = if is_context(ctx) {
        ctx
    } else if ctx.is_instruction() && ctx.opcode() == crate::ir::Opcode::LLVMLoad {
        // The slot's one store: with two, the context loaded could be either.
        let slot = ctx.operand(0);
        let stores: Vec<Val> = slot
            .users()
            .into_iter()
            .filter(|u| {
                u.is_instruction()
                    && u.opcode() == crate::ir::Opcode::LLVMStore
                    && u.operand(1) == slot
            })
            .collect();
        let only_loaded = slot.users().into_iter().all(|u| {
            stores.contains(&u) || (u.is_instruction() && u.opcode() == crate::ir::Opcode::LLVMLoad)
        });
        match stores[..] {
            [st] if only_loaded && is_context(st.operand(0)) => st.operand(0),
            _ => return None,
        }
    } else {
        return None;
    };
    Some(made)
}

/// Consumes the split-mode markers (`enzyme_allocated, size`, `enzyme_tape, pointer`) at
/// `args[i..]` into `split` and returns the index of the first other argument. They are an
/// error outside split mode, `enzyme_nofree` (reusing a tape) everywhere.
fn split_markers(
    call: Val,
    args: &[Val],
    mut i: usize,
    mut split: Option<&mut Split>,
    marker_loads: &mut Vec<Val>,
) -> Result<usize> {
    let req_name = call.called_value().name();
    while let Some(m) = args.get(i).copied().and_then(markers::decode) {
        let (Marker::Allocated | Marker::Tape | Marker::NoFree) = m else {
            break;
        };
        let Some(split) = split.as_deref_mut() else {
            // Reported with its position by the caller's marker loop.
            break;
        };
        if m == Marker::NoFree {
            return Err(Error::user_at(
                call,
                format!(
                    "'{req_name}': enzyme_nofree (keeping the tape to run the reverse sweep again) is not supported by umbra yet; run {} before each {}",
                    Sweep::Forward.entry(),
                    Sweep::Reverse.entry()
                ),
            )
            .with_kind(ErrorKind::Unsupported));
        }
        let Some(&value) = args.get(i + 1) else {
            return Err(Error::user_at(
                call,
                format!(
                    "'{req_name}': the marker at argument {} must be followed by a value",
                    i + 1
                ),
            ));
        };
        if m == Marker::Allocated {
            split.allocated = Some(value);
        } else {
            split.tape = Some(value);
        }
        if args[i].is_instruction() && !marker_loads.contains(&args[i]) {
            marker_loads.push(args[i]);
        }
        i += 2;
    }
    Ok(i)
}

/// `__enzyme_augmentsize(f, markers...)`: only activity markers follow the function (the size
/// does not depend on them, but they must make sense).
fn decode_size(call: Val, function: Val, args: &[Val]) -> Result<Request> {
    let req_name = call.called_value().name();
    let mut marker_loads = Vec::new();
    for (k, &a) in args.iter().enumerate().skip(1) {
        match markers::decode(a) {
            Some(Marker::Known(_)) => {
                if a.is_instruction() && !marker_loads.contains(&a) {
                    marker_loads.push(a);
                }
            }
            _ => {
                return Err(Error::user_at(
                    call,
                    format!(
                        "argument {} of '{req_name}' is not an activity marker; __enzyme_augmentsize takes the function and one marker (enzyme_dup, enzyme_const, enzyme_out, ...) per parameter",
                        k + 1
                    ),
                ))
            }
        }
    }
    Ok(Request {
        call,
        mode: Mode::Reverse,
        function,
        args: Vec::new(),
        marker_loads,
        sret: None,
        width: 1,
        batch: None,
        context: None,
        split: Some(Split {
            sweep: Sweep::Size,
            allocated: None,
            tape: None,
            trailing: Vec::new(),
        }),
    })
}

/// Enzyme's defaults: pointers are duplicated, integers constant, floating point duplicated
/// (forward) or active (reverse).
fn default_activity(kind: TyKind, ty: crate::ir::Ty, mode: Mode) -> Activity {
    match kind {
        TyKind::Ptr => Activity::Dup,
        TyKind::Float | TyKind::Vector if ty.is_fp_or_fp_vector() => match mode {
            Mode::Forward => Activity::Dup,
            Mode::Reverse => Activity::Out,
        },
        TyKind::Struct | TyKind::Array if ty.contains_float() => match mode {
            Mode::Forward => Activity::Dup,
            Mode::Reverse => Activity::Out,
        },
        _ => Activity::Const,
    }
}
