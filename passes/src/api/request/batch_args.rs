//! Decoding `__enzyme_batch(f, enzyme_width, N, args...)` (Enzyme's batch mode, `f` run on N
//! argument sets at once): each parameter of `f` takes N values (one per lane, the default, or
//! after `enzyme_vector`), one value shared by every lane (`enzyme_scalar`), or a byte stride
//! and a pointer (`enzyme_buffer, stride, pointer`: lane `k` at `pointer + k * stride`).
//! Lowering is in [`crate::api::batch`].

use super::Request;
use crate::api::markers::{self, BatchMarker, Marker};
use crate::diag::{Error, Result};
use crate::ir::{Ty, Val};

/// The values one parameter of the batched function receives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BatchArg {
    /// One value for every lane (`enzyme_scalar`).
    Shared(Val),
    /// One value per lane (`enzyme_vector`, the default).
    Lanes(Vec<Val>),
    /// `enzyme_buffer, stride, pointer`: lane `k`'s pointer is `stride * k` bytes after `base`.
    Strided {
        /// Lane 0's pointer.
        base: Val,
        /// Bytes between consecutive lanes.
        stride: Val,
    },
}

impl BatchArg {
    /// True when the lanes may receive different values.
    pub fn varies(&self) -> bool {
        !matches!(self, BatchArg::Shared(_))
    }
}

/// Decodes the arguments of a `__enzyme_batch` call after the function (`args[0]`).
pub(super) fn decode(
    call: Val,
    function: Val,
    args: &[Val],
    sret: Option<(Val, Ty)>,
) -> Result<Request> {
    let req_name = call.called_value().name();
    let fail = |message: String| Err(Error::user_at(call, message));
    let mut marker_loads = Vec::new();
    let mut note_marker = |v: Val| {
        if v.is_instruction() && !marker_loads.contains(&v) {
            marker_loads.push(v);
        }
    };
    if args.get(1).copied().and_then(markers::decode) != Some(Marker::Width) {
        return fail(format!(
            "'{req_name}' needs enzyme_width and the number of lanes right after the function: __enzyme_batch(f, enzyme_width, N, ...)"
        ));
    }
    let width = match args.get(2).and_then(|v| v.const_int_value()) {
        Some(n @ 1..=64) => n as u32,
        _ => {
            return fail(format!(
                "'{req_name}': enzyme_width must be followed by a constant integer between 1 and 64"
            ))
        }
    };
    note_marker(args[1]);
    if function.function_type().is_var_arg() {
        return fail(format!(
            "'{req_name}' cannot batch '{}': it is variadic",
            function.name()
        ));
    }
    let params = function.function_type().param_types();
    let mut plans = Vec::with_capacity(params.len());
    let mut i = 3;
    for (k, &pty) in params.iter().enumerate() {
        let too_few = || {
            fail(format!(
                "too few arguments in '{req_name}' for '{}': parameter {} of {} has no value (or fewer than the {width} a lane-varying parameter takes)",
                function.name(),
                k + 1,
                params.len(),
            ))
        };
        let mut how = BatchMarker::Vector;
        if let Some(m) = args.get(i).copied().and_then(markers::decode) {
            how = match m {
                Marker::Batch(how) => how,
                Marker::Width => {
                    return fail(format!(
                        "enzyme_width (argument {} of '{req_name}') must come right after the function, once",
                        i + 1
                    ))
                }
                other => {
                    let name = match other {
                        Marker::Unknown(name) => name,
                        _ => args[i]
                            .metadata_string()
                            .unwrap_or_else(|| short_marker(args[i])),
                    };
                    return fail(format!(
                        "marker '{name}' (argument {} of '{req_name}') is not a batch marker; __enzyme_batch takes enzyme_vector (one value per lane, the default), enzyme_scalar (one value for all lanes) and enzyme_buffer (a byte stride, then one pointer)",
                        i + 1
                    ));
                }
            };
            note_marker(args[i]);
            i += 1;
        }
        let plan = match how {
            BatchMarker::Scalar => {
                let Some(&v) = args.get(i) else {
                    return too_few();
                };
                i += 1;
                BatchArg::Shared(v)
            }
            BatchMarker::Vector => {
                if i + width as usize > args.len() {
                    return too_few();
                }
                let lanes = args[i..i + width as usize].to_vec();
                i += width as usize;
                BatchArg::Lanes(lanes)
            }
            BatchMarker::Buffer => {
                let (Some(&stride), Some(&base)) = (args.get(i), args.get(i + 1)) else {
                    return too_few();
                };
                i += 2;
                if !stride.ty().is_int() || !pty.is_ptr() {
                    return fail(format!(
                        "enzyme_buffer for parameter {} of '{}' ({}) must be followed by an integer byte stride and a pointer",
                        k + 1,
                        function.name(),
                        pty.print()
                    ));
                }
                BatchArg::Strided { base, stride }
            }
        };
        plans.push(plan);
    }
    if i < args.len() {
        return fail(format!(
            "too many arguments in '{req_name}' for '{}': it takes {} parameter(s), {} value(s) per lane-varying parameter; {} value(s) left over",
            function.name(),
            params.len(),
            width,
            args.len() - i
        ));
    }
    Ok(Request {
        call,
        mode: crate::vocab::Mode::Forward,
        function,
        args: Vec::new(),
        marker_loads,
        sret,
        width,
        split: None,
        batch: Some(plans),
        context: None,
    })
}

/// A marker argument's global name, for messages.
fn short_marker(v: Val) -> String {
    let g = if v.is_global_variable() {
        v
    } else {
        v.operand(0)
    };
    g.name()
}
