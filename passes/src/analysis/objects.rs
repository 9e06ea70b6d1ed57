//! Underlying objects: the allocations, globals and arguments a pointer may point into, found
//! by walking back through address arithmetic. Shared by the memory-content inference and the
//! overwrite analysis; and which constant pointers lead to code only ([`is_code_only_constant`]),
//! which may stand in as their own shadows. Pure IR facts: nothing here knows about rules or
//! derivatives.

use crate::ir::{Opcode, Val};
use std::collections::HashSet;

/// The objects a pointer may be derived from, through GEPs, casts, `freeze`, phis and selects
/// (instructions or constant expressions). Anything else is its own object: allocas, calls,
/// loads, arguments, globals, `inttoptr`, `null`, ...
pub fn underlying_objects(p: Val) -> HashSet<Val> {
    let mut out = HashSet::new();
    let mut seen = HashSet::new();
    let mut stack = vec![p];
    while let Some(p) = stack.pop() {
        if !seen.insert(p) {
            continue;
        }
        let op = if p.is_instruction() {
            p.opcode()
        } else if p.is_constant_expr() {
            p.const_opcode()
        } else {
            out.insert(p);
            continue;
        };
        match op {
            Opcode::LLVMGetElementPtr
            | Opcode::LLVMBitCast
            | Opcode::LLVMAddrSpaceCast
            | Opcode::LLVMFreeze => stack.push(p.operand(0)),
            Opcode::LLVMPHI if p.is_instruction() => {
                stack.extend(p.incoming().into_iter().map(|(v, _)| v))
            }
            Opcode::LLVMSelect => stack.extend([p.operand(1), p.operand(2)]),
            _ => {
                out.insert(p);
            }
        }
    }
    out
}

/// True for a pointer to constant data through which no derivative can be read: a function;
/// a constant global without floating-point data whose pointers are all such pointers (a
/// table of functions, a vtable); the C++ ABI's vtables, construction vtables, VTTs and type
/// information (`_ZTV`, `_ZTC`, `_ZTT`, `_ZTI`, `_ZTS`, which hold no user data even when
/// defined elsewhere); getelementptrs into them.
/// Such a pointer may stand in as its own shadow.
pub fn is_code_only_constant(v: Val) -> bool {
    code_only(v, &mut Vec::new())
}

/// True for a `select` or `phi` that picks among [`is_code_only_constant`] pointers (and
/// null or undef) only, through other such choices: a function pointer chosen at run time;
/// and for a pointer loaded from such a constant, directly or through a parameter every caller
/// passes one for (a vtable address point read from the VTT that a constructor of a class
/// with virtual bases receives). Like those constants it stands in as its own shadow (its
/// primal copy).
pub fn is_code_only_choice(v: Val) -> bool {
    fn choice(v: Val, seen: &mut Vec<Val>) -> bool {
        if !v.is_instruction() {
            return v.is_undef() || is_code_only_constant(v);
        }
        if seen.contains(&v) {
            return true;
        }
        seen.push(v);
        match v.opcode() {
            Opcode::LLVMSelect => choice(v.operand(1), seen) && choice(v.operand(2), seen),
            Opcode::LLVMPHI => v.incoming().into_iter().all(|(x, _)| choice(x, seen)),
            Opcode::LLVMLoad => loaded_from_code_only(v.operand(0)),
            _ => false,
        }
    }
    v.is_instruction() && v.ty().is_ptr() && choice(v, &mut Vec::new())
}

/// True when address `p` (offset by getelementptrs) is in an [`is_code_only_constant`]
/// global, or is a parameter of a function only ever called directly, each call passing such
/// a constant there: every pointer in that memory is code-only too.
fn loaded_from_code_only(mut p: Val) -> bool {
    while (p.is_instruction() && p.opcode() == Opcode::LLVMGetElementPtr)
        || (p.is_constant_expr() && p.const_opcode() == Opcode::LLVMGetElementPtr)
    {
        p = p.operand(0);
    }
    if is_code_only_constant(p) {
        return true;
    }
    let Some(f) = p.is_argument().then(|| p.parent_function()).flatten() else {
        return false;
    };
    let Some(k) = f.params().iter().position(|&q| q == p) else {
        return false;
    };
    let users = f.users();
    !users.is_empty()
        && users.iter().all(|&u| {
            (u.is_call() || u.is_invoke())
                && u.called_function() == Some(f)
                && !u.call_args().contains(&f)
                && u.call_args()
                    .get(k)
                    .is_some_and(|&a| is_code_only_constant(a))
        })
}

fn code_only(v: Val, seen: &mut Vec<Val>) -> bool {
    if v.is_function() || v.is_null_constant() {
        return true;
    }
    if v.is_constant_expr() && v.const_opcode() == Opcode::LLVMGetElementPtr {
        return code_only(v.operand(0), seen);
    }
    if !v.is_global_variable() {
        return false;
    }
    let name = v.name();
    if ["_ZTV", "_ZTI", "_ZTS", "_ZTT", "_ZTC"]
        .iter()
        .any(|p| name.starts_with(p))
    {
        return true;
    }
    if seen.contains(&v) {
        return true;
    }
    seen.push(v);
    let (true, Some(init)) = (v.is_global_constant(), v.initializer()) else {
        return false;
    };
    !v.global_value_type().contains_float() && pointers_code_only(init, seen)
}

/// True when every pointer inside constant `c` is [`code_only`].
fn pointers_code_only(c: Val, seen: &mut Vec<Val>) -> bool {
    if !c.ty().contains_ptr() {
        return true;
    }
    if c.ty().is_ptr() {
        return code_only(c, seen);
    }
    (0..c.num_operands()).all(|k| pointers_code_only(c.operand(k), seen))
}
