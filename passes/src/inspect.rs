//! What `umbra check` needs to know about a module before differentiating it: which functions
//! its derivative requests target, with which activities and, where the request's own values
//! say so, which array sizes and integer constants; and which functions carry a registered
//! derivative or gradient. Read-only: nothing here changes the module.
//!
//! Guarantee: the answers are the ones differentiation itself acts on (the same request decoder,
//! `api::find_requests`, and the same rule collection, `rules::user::collect`); a value the
//! request computes at run time is reported as unknown, never guessed.

use crate::analysis::objects::underlying_objects;
use crate::diag::Result;
use crate::ir::{Module, TyKind, Val};
use crate::options::Options;
use crate::vocab::{Activity, Mode};

/// How a request passes one parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgActivity {
    /// `enzyme_const`: no derivative.
    Const,
    /// `enzyme_dup` (or `enzyme_dupnoneed`): a shadow or tangent beside the value.
    Dup,
    /// `enzyme_out`: reverse mode, the adjoint is returned.
    Out,
}

/// One parameter of a requested function as its request passes it.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestedArg {
    /// How it is differentiated.
    pub activity: ArgActivity,
    /// The request passes this integer constant (sign-extended).
    pub const_int: Option<i64>,
    /// The request passes a pointer into one array of known size: its element type as LLVM
    /// prints it (`double`, `float`, ...) and its number of elements from the pointer on.
    pub array: Option<(String, u64)>,
}

/// A function that a derivative request in the module targets.
#[derive(Debug, Clone, PartialEq)]
pub struct Requested {
    /// The function's name.
    pub function: String,
    /// Forward (`__enzyme_fwddiff`) rather than reverse mode.
    pub forward: bool,
    /// One entry per parameter of the function.
    pub args: Vec<RequestedArg>,
}

/// The plain forward and reverse requests of `module` (split-mode, batched and `__enzyme_batch`
/// requests are left out: they name no single derivative to compare), in module order.
pub fn requests(module: Module) -> Result<Vec<Requested>> {
    let mut out = Vec::new();
    for req in crate::api::find_requests(module)? {
        if req.split.is_some() || req.batch.is_some() || req.width != 1 {
            continue;
        }
        let args = req.args.iter().map(describe_arg).collect();
        out.push(Requested {
            function: req.function.name(),
            forward: req.mode == Mode::Forward,
            args,
        });
    }
    Ok(out)
}

fn describe_arg(plan: &crate::api::ArgPlan) -> RequestedArg {
    let activity = match plan.activity {
        Activity::Const => ArgActivity::Const,
        Activity::Dup | Activity::DupNoNeed => ArgActivity::Dup,
        Activity::Out => ArgActivity::Out,
    };
    let v = plan.primal;
    let const_int = if v.ty().is_int() {
        v.const_int_sext()
    } else {
        None
    };
    let array = if v.ty().is_ptr() { array_of(v) } else { None };
    RequestedArg {
        activity,
        const_int,
        array,
    }
}

/// The element type and count of the one array `p` points to the start of: an alloca or a
/// global of array type (or of a scalar float, one element), reached through zero-offset
/// address arithmetic only; `None` otherwise.
fn array_of(p: Val) -> Option<(String, u64)> {
    let objects = underlying_objects(p);
    let [object] = objects.into_iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    if !starts_at(p, object) {
        return None;
    }
    let ty = if object.is_global_variable() {
        object.global_value_type()
    } else if object.is_instruction() && object.opcode() == crate::ir::Opcode::LLVMAlloca {
        object.allocated_type()
    } else {
        return None;
    };
    match ty.kind() {
        TyKind::Array => {
            let elem = ty.element();
            (elem.kind() == TyKind::Float).then(|| (elem.print(), ty.array_len()))
        }
        TyKind::Float => Some((ty.print(), 1)),
        _ => None,
    }
}

/// True when `p` is `object` itself or reached from it by casts and all-zero-index GEPs.
fn starts_at(mut p: Val, object: Val) -> bool {
    use crate::ir::Opcode;
    loop {
        if p == object {
            return true;
        }
        let op = if p.is_instruction() {
            p.opcode()
        } else if p.is_constant_expr() {
            p.const_opcode()
        } else {
            return false;
        };
        match op {
            Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => p = p.operand(0),
            Opcode::LLVMGetElementPtr => {
                let zero = (1..p.num_operands()).all(|k| p.operand(k).const_int_value() == Some(0));
                if !zero {
                    return false;
                }
                p = p.operand(0);
            }
            _ => return false,
        }
    }
}

/// A function with a registered derivative or gradient (`UMBRA_DERIVATIVE`, `UMBRA_GRADIENT`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registered {
    /// The primal's name.
    pub function: String,
    /// A forward derivative is registered.
    pub derivative: bool,
    /// An (augmented forward, gradient) pair is registered.
    pub gradient: bool,
    /// The primal has a body here, which the rule replaces at its calls.
    pub has_body: bool,
}

/// The functions of `module` with registered derivatives or gradients, sorted by name.
pub fn registered_rules(module: Module, opts: &Options) -> Result<Vec<Registered>> {
    let rules = crate::rules::user::collect(module, opts)?;
    let mut names: Vec<&String> = rules
        .derivatives
        .keys()
        .chain(rules.gradients.keys())
        .collect();
    names.sort();
    names.dedup();
    Ok(names
        .into_iter()
        .map(|name| Registered {
            function: name.clone(),
            derivative: rules.derivatives.contains_key(name),
            gradient: rules.gradients.contains_key(name),
            has_body: module.function(name).is_some_and(|f| !f.is_declaration()),
        })
        .collect())
}
