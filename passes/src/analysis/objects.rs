//! Underlying objects: the allocations, globals and arguments a pointer may point into, found
//! by walking back through address arithmetic. Shared by the memory-content inference and the
//! overwrite analysis.

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
