//! What each instruction's adjoint needs from the forward sweep: the one contract between the
//! augmented forward sweep (which pushes these values right after the instruction runs) and the
//! adjoint sweep (which pops them, in reverse, at the instruction's mirrored position).
//!
//! Arguments and constants are never pushed: the adjoint function receives every primal
//! argument and shadow, so it can use them directly. Everything else is cached at its use, which
//! keeps pushes and pops paired for any control flow, including loops and calls that push onto
//! the same tape in between.

use super::classify::{reverse_callee, ReverseCallee};
use crate::analysis::activity::ActiveSet;
use crate::analysis::opcodes::{classify, InstClass};
use crate::analysis::types::bytes::byte_copy;
use crate::ir::{Opcode, Val};
use crate::rules::instructions::{inputs_read, instruction_rule, InstructionKind::Linear};
use crate::rules::user::{augment_layout, UserRule, UserRules};
use crate::rules::{self, Callee};

/// True when the user's augmented forward function returns a tape for the gradient.
pub fn user_tape(u: UserRule) -> bool {
    u.gradient
        .and_then(|(aug, _)| augment_layout(u.primal, aug))
        .is_some_and(|l| l.tape.is_some())
}

/// One value the adjoint sweep needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Need {
    /// The primal value of a source value.
    Primal(Val),
    /// The shadow of a source pointer.
    Shadow(Val),
    /// The value a custom rule's augmented half saved at call `Val` (a pointer).
    Saved(Val),
}

impl Need {
    /// The source value concerned.
    pub fn value(self) -> Val {
        match self {
            Need::Primal(v) | Need::Shadow(v) | Need::Saved(v) => v,
        }
    }
}

/// The values instruction `i`'s adjoint uses, in push order (no duplicates).
pub(super) fn needs(
    i: Val,
    active: &ActiveSet,
    user: &UserRules,
    defers_free: impl Fn(Val) -> bool,
) -> Vec<Need> {
    let act = |v: Val| active.contains(v);
    let mut out: Vec<Need> = Vec::new();
    let mut add = |n: Need| {
        if n.value().is_instruction() && !out.contains(&n) {
            out.push(n);
        }
    };
    use Opcode::*;
    match i.opcode() {
        op if act(i) && instruction_rule(op).is_some_and(|r| matches!(r.kind, Linear(_))) => {
            let ops = i.operands();
            let active: Vec<bool> = ops.iter().map(|&o| act(o)).collect();
            let read = instruction_rule(op)
                .map(|r| inputs_read(r, i, &active))
                .unwrap_or_default();
            for (k, &o) in ops.iter().enumerate() {
                if read.get(k).copied().unwrap_or(true) {
                    add(Need::Primal(o));
                }
            }
            if read.get(ops.len()).copied().unwrap_or(true) {
                add(Need::Primal(i));
            }
        }
        LLVMSelect if act(i) => add(Need::Primal(i.operand(0))),
        LLVMExtractElement if act(i) => add(Need::Primal(i.operand(1))),
        LLVMInsertElement if act(i) => add(Need::Primal(i.operand(2))),
        LLVMLoad if act(i) && i.ty().contains_float() => add(Need::Shadow(i.operand(0))),
        // An integer load may carry float bits, whose adjoint goes to the shadow (the type
        // analysis decides in the adjoint sweep); integer TBAA rules it out.
        LLVMLoad if act(i) && i.ty().is_int() && !integer_tbaa(i) => {
            add(Need::Shadow(i.operand(0)))
        }
        // An integer fabs (or -fabs): the adjoint needs the sign of the float.
        LLVMAnd | LLVMOr if act(i) && sign_needed(i).is_some() => {
            add(Need::Primal(sign_needed(i).expect("matched")))
        }
        // Pointer stores have no adjoint (their shadows were stored in the forward sweep).
        LLVMStore if act(i.operand(1)) && !i.operand(0).ty().contains_ptr() => {
            add(Need::Shadow(i.operand(1)));
            // A byte-wise copy moves whole floats from the source's shadow at its position.
            if let Some(bc) = byte_copy(i).filter(|bc| act(bc.load.operand(0))) {
                add(Need::Shadow(bc.load.operand(0)));
                if let Some(x) = bc.index {
                    add(Need::Primal(x));
                }
            }
        }
        LLVMAlloca if act(i) => add(Need::Shadow(i)),
        // An OpenMP reduction's atomic add: the adjoint reads the shared variable's adjoint.
        LLVMAtomicRMW if matches!(classify(i), InstClass::AtomicFAdd) && act(i.operand(0)) => {
            add(Need::Shadow(i.operand(0)))
        }
        // A deferred free: the adjoint releases the block, so it needs the pointer.
        LLVMCall | LLVMInvoke if defers_free(i) => add(Need::Primal(i.operand(0))),
        // The end of an OpenMP critical section or reduction: its ticket (`reverse/openmp.rs`).
        LLVMCall
            if matches!(
                crate::openmp::sync_kind(i),
                Some(crate::openmp::Sync::EndCritical | crate::openmp::Sync::EndReduce)
            ) || crate::openmp::ends_critical(i) =>
        {
            add(Need::Saved(i))
        }
        LLVMCall | LLVMInvoke => match reverse_callee(i, active, user) {
            ReverseCallee::Math => {
                let rule = match rules::classify(i, user) {
                    Callee::Rule(r) => Some(r),
                    _ => None,
                };
                let args = i.call_args();
                let active: Vec<bool> = args.iter().map(|&a| act(a)).collect();
                let read = rule
                    .map(|r| rules::partials_read(r, i, &active))
                    .unwrap_or_default();
                for (k, &a) in args.iter().enumerate() {
                    if read.get(k).copied().unwrap_or(true) {
                        add(Need::Primal(a));
                    }
                }
                if read.get(args.len()).copied().unwrap_or(true) {
                    add(Need::Primal(i));
                }
            }
            ReverseCallee::Derived(g) => {
                for (k, a) in i.call_args().into_iter().enumerate() {
                    if !unused_param(g, k) {
                        add(Need::Primal(a));
                    }
                    if act(a) && a.ty().is_ptr() {
                        add(Need::Shadow(a));
                    }
                }
            }
            ReverseCallee::Parallel(_) => {
                // The captured variables (and their shadows), then the per-thread tapes.
                for a in i.call_args().into_iter().skip(3) {
                    add(Need::Primal(a));
                    if act(a) && a.ty().is_ptr() {
                        add(Need::Shadow(a));
                    }
                }
                add(Need::Saved(i));
            }
            ReverseCallee::User(u) => {
                for a in i.call_args() {
                    add(Need::Primal(a));
                    if act(a) && a.ty().is_ptr() {
                        add(Need::Shadow(a));
                    }
                }
                if user_tape(u) {
                    add(Need::Saved(i));
                }
            }
            ReverseCallee::Custom(_, c) => {
                let args = i.call_args();
                let n = args.len();
                for (k, a) in args.into_iter().enumerate() {
                    let shadow = act(a) && a.ty().is_ptr_or_ptr_vector();
                    if c.needs.args.includes(k, n) {
                        add(Need::Primal(a));
                        if shadow {
                            add(Need::Shadow(a));
                        }
                    } else if shadow && c.needs.shadows_only.includes(k, n) {
                        add(Need::Shadow(a));
                    }
                }
                if c.needs.result && !i.ty().is_void() {
                    add(Need::Primal(i));
                }
                if c.needs.saved {
                    add(Need::Saved(i));
                }
            }
            ReverseCallee::Free
            | ReverseCallee::Primal
            | ReverseCallee::NoRule
            | ReverseCallee::Unsupported(_) => {}
        },
        _ => {}
    }
    out
}

/// True when load `i` has an integer TBAA type (integer data, never float bits).
fn integer_tbaa(i: Val) -> bool {
    i.tbaa_access_type().is_some_and(|t| {
        matches!(
            t.as_str(),
            "int" | "long" | "long long" | "short" | "_Bool" | "bool"
        )
    })
}

/// The float operand whose sign the adjoint of integer bit operation `i` reads: that of a sign
/// clear or set ([`crate::analysis::opcodes::sign_bit_op`]), and operand 0 of any other `and`
/// with a constant second operand (taped as before; its adjoint refuses or moves bits).
fn sign_needed(i: Val) -> Option<Val> {
    use crate::analysis::opcodes::{sign_bit_op, SignBit};
    match sign_bit_op(i) {
        Some((SignBit::Clear | SignBit::Set, float)) => Some(i.operand(float)),
        _ if i.opcode() == Opcode::LLVMAnd && i.operand(1).const_int_value().is_some() => {
            Some(i.operand(0))
        }
        _ => None,
    }
}

/// True when parameter `k` of `g`, a function differentiated from its body, has no use there:
/// its adjoint, derived from that body, never reads it, so the caller's adjoint passes poison
/// instead of keeping the argument (a load of an `extern` global the program never defines,
/// kept on the tape, was the only reference left to it: Enzyme's customglob.cpp failed to link).
/// Not so for a checkpointed loop or a fixed point, whose adjoint drives a scheme with
/// parameters the primal body never reads (the scheme, its configuration).
pub(super) fn unused_param(g: Val, k: usize) -> bool {
    !g.is_declaration()
        && !crate::checkpoint::is_loop(g)
        && !crate::checkpoint::fixed::is_fixed_point(g)
        && g.params().get(k).is_some_and(|p| !p.has_uses())
}
