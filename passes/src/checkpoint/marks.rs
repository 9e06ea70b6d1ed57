//! The markers of loops checkpointed or iterated to a fixed point in place, for the loop
//! outliner ([`super::outline`]): `umbra_checkpoint_next_loop(&scheme, &config,
//! [umbra_checkpoint_region, ptr, bytes]...)` before a loop, Enzyme's
//! `__enzyme_set_checkpointing(mode, snapshots)` (the clang plugin's loop attribute) and
//! `__enzyme_set_fixed_point(reduction, max_iters, control, [state, bytes]...)` at the top of
//! its body. [`rename_markers`] gives their declarations names of Umbra's own before requests
//! are looked for; [`decode`] reads what a call asks for.
//!
//! Guarantees: a marker that cannot be decoded is refused at its call with one line; a marker
//! used other than by calling it is refused.

use crate::diag::{Error, Result};
use crate::ir::{Module, Val};

/// The Umbra marker, a call just before the loop.
pub const NEXT_LOOP: [&str; 2] = ["umbra_checkpoint_next_loop", "__umbra_checkpoint_next_loop"];

/// Enzyme's marker, a call at the top of the loop body: mode (1 periodic, 2 binomial) and the
/// number of snapshots (0: the square root of the number of steps).
pub const SET_CHECKPOINTING: &str = "__enzyme_set_checkpointing";

/// The function of `umbra/checkpoint.h` returning the scheme of an Enzyme mode.
pub const BUILTIN_SCHEME: &str = "umbra_checkpoint_scheme_of_mode";

/// What [`rename_markers`] renames the markers to, in the order of `NEXT_LOOP` then
/// `SET_CHECKPOINTING`: names outside the API's namespaces, which the request finder would
/// otherwise refuse as unknown entry points.
const INTERNAL: [&str; 3] = [
    "umbra.ckpt.mark.next",
    "umbra.ckpt.mark.inside",
    "umbra.ckpt.mark.fixed",
];

/// Enzyme's marker of a fixed-point loop, at the top of its body:
/// `__enzyme_set_fixed_point(reduction, max_iters, control, [state, bytes]...)`.
pub const SET_FIXED_POINT: &str = "__enzyme_set_fixed_point";

/// Which marker a call is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// `umbra_checkpoint_next_loop`, before the loop.
    Next,
    /// `__enzyme_set_checkpointing`, in the loop.
    Inside,
    /// `__enzyme_set_fixed_point`, in the loop.
    Fixed,
}

/// Renames the markers' declarations to [`INTERNAL`] names (before requests are looked for).
pub fn rename_markers(module: Module) {
    let names = NEXT_LOOP
        .iter()
        .chain([&SET_CHECKPOINTING, &SET_FIXED_POINT]);
    for (k, name) in names.enumerate() {
        let Some(f) = module.function(name) else {
            continue;
        };
        let internal = INTERNAL[k.saturating_sub(NEXT_LOOP.len() - 1)];
        match module.function(internal) {
            // The second spelling of the same marker: calls go to the first one's declaration.
            Some(g) => {
                f.replace_all_uses_with(g);
                f.delete_global();
            }
            None => f.set_name(internal),
        }
    }
}

/// The marker calls of `module`, with their kinds.
pub(super) fn markers(module: Module) -> Result<Vec<(Val, Kind)>> {
    let mut out = Vec::new();
    for (name, kind) in INTERNAL.iter().zip([Kind::Next, Kind::Inside, Kind::Fixed]) {
        let Some(f) = module.function(name) else {
            continue;
        };
        for u in f.users() {
            if !(u.is_call() && u.called_value() == f) {
                return Err(Error::at_value(
                    u,
                    format!("{name} is used other than by calling it"),
                ));
            }
            out.push((u, kind));
        }
    }
    Ok(out)
}

/// Erases marker call `call` (and the loads of marker globals it leaves unused).
pub(super) fn erase_marker(call: Val) {
    let args = call.call_args();
    call.erase();
    super::erase_marker_loads(args);
}

/// Deletes the marker functions left without calls.
pub(super) fn delete_declarations(module: Module) {
    for name in &INTERNAL {
        if let Some(f) = module.function(name) {
            if !f.has_uses() {
                f.delete_global();
            }
        }
    }
}

/// Erases every marker: the loops stay plain (no request differentiates them).
pub fn strip_markers(module: Module) -> Result<()> {
    for (call, _) in markers(module)? {
        erase_marker(call);
    }
    delete_declarations(module);
    Ok(())
}

/// The refusal of marker `call` in function `f`: `why`.
pub(super) fn refuse(call: Val, f: Val, why: impl std::fmt::Display) -> Error {
    let what = if call.called_value().name() == INTERNAL[2] {
        "fixed-point loop"
    } else {
        "loop marked for checkpointing"
    };
    Error::at(
        call,
        format!(
            "the {what} here (in '{}') cannot be outlined: {why}",
            f.name()
        ),
    )
}

/// What the marker asks for.
pub(super) enum Scheme {
    /// `umbra_checkpoint_next_loop`: the scheme and configuration pointers.
    Given(Val, Val),
    /// `__enzyme_set_checkpointing`: Enzyme's mode and number of snapshots.
    Mode(u64, u64),
    /// `__enzyme_set_fixed_point`: the reduction, the most passes and the control function
    /// (negative or null: the defaults) and the state.
    Fixed(Val, Val, Val),
}

pub(super) struct Marker {
    pub scheme: Scheme,
    pub regions: Vec<(Val, Val)>,
}

pub(super) fn decode(call: Val, f: Val, kind: Kind) -> Result<Marker> {
    let args = call.call_args();
    if kind == Kind::Fixed {
        let shape = args.len() >= 3
            && args.len() % 2 == 1
            && args[0].ty().is_float()
            && args[1].ty().is_int()
            && args[2].ty().is_ptr()
            && args[3..]
                .chunks(2)
                .all(|p| p[0].ty().is_ptr() && p[1].ty().is_int());
        if !shape {
            return Err(refuse(
                call,
                f,
                "__enzyme_set_fixed_point takes the reduction (a double), the most passes (an integer), the control function (or null), then pointer, bytes for each piece of state",
            ));
        }
        return Ok(Marker {
            scheme: Scheme::Fixed(args[0], args[1], args[2]),
            regions: args[3..].chunks(2).map(|p| (p[0], p[1])).collect(),
        });
    }
    if kind == Kind::Inside {
        let consts: Vec<Option<u64>> = args.iter().map(|a| a.const_int_value()).collect();
        return match consts.as_slice() {
            [Some(m), Some(n)] if *m <= 2 => Ok(Marker {
                scheme: Scheme::Mode(*m, *n),
                regions: Vec::new(),
            }),
            [Some(m)] if *m <= 2 => Ok(Marker {
                scheme: Scheme::Mode(*m, 0),
                regions: Vec::new(),
            }),
            _ => Err(refuse(
                call,
                f,
                "__enzyme_set_checkpointing takes a constant mode (1: periodic, 2: binomial) and a constant number of snapshots",
            )),
        };
    }
    if args.len() < 2 || !args[0].ty().is_ptr() || !args[1].ty().is_ptr() {
        return Err(refuse(
            call,
            f,
            "umbra_checkpoint_next_loop takes the scheme and the configuration (&EnzymeCkptRevolve, &config), then umbra_checkpoint_region, pointer, bytes for each region",
        ));
    }
    let mut regions = Vec::new();
    let mut k = 2;
    while k < args.len() {
        let is_region = super::marker_name(args[k])
            .is_some_and(|m| m.ends_with("_checkpoint_region"))
            && k + 2 < args.len()
            && args[k + 1].ty().is_ptr()
            && args[k + 2].ty().is_int();
        if !is_region {
            return Err(refuse(
                call,
                f,
                format!(
                    "argument {} of umbra_checkpoint_next_loop is not umbra_checkpoint_region, pointer, bytes",
                    k + 1
                ),
            ));
        }
        regions.push((args[k + 1], args[k + 2]));
        k += 3;
    }
    Ok(Marker {
        scheme: Scheme::Given(args[0], args[1]),
        regions,
    })
}
