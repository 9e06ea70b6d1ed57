//! The one classification of LLVM opcodes that activity analysis, the forward visitor, the
//! augmented sweep and the reverse plan share, so they can never disagree about which operands
//! carry an instruction's derivative or which instructions the adjoint may rebuild.

use crate::ir::{Opcode, Val};
use crate::rules::instructions::{instruction_rule, InstructionKind, InstructionRule};

/// How an instruction takes part in differentiation.
#[derive(Clone, Copy)]
pub enum InstClass {
    /// Its derivative is a row of [`crate::rules::instructions`].
    Rule(&'static InstructionRule),
    /// It moves or reinterprets data: the derivative (or shadow) travels through the listed
    /// operands unchanged. `pointers` is false for integer conversions, through which reverse
    /// mode carries no shadow.
    Moves {
        /// The operands the derivative travels through.
        operands: &'static [u32],
        /// Whether a pointer shadow may travel through it.
        pointers: bool,
    },
    /// Integer shifts and bit logic: they move the bits of floating-point data packed into
    /// integers (operands listed).
    Bits(&'static [u32]),
    /// An integer `and`/`or`/`xor` with a constant that clears, sets or flips the sign bit of
    /// the float packed in the other operand (the one given: an integer `fabs`, `-fabs` or
    /// negation, [`sign_bit_op`]). Its derivative is the float's sign times the tangent or
    /// adjoint, not a bit move (though for a flip the two agree).
    SignBit(SignBit, u32),
    /// `atomicrmw fadd` (an OpenMP reduction's atomic method): the added value's derivative
    /// goes to the memory's, and back.
    AtomicFAdd,
    /// `load`.
    Load,
    /// `store`.
    Store,
    /// `alloca`.
    Alloca,
    /// `call`.
    Call,
    /// `phi`.
    Phi,
    /// `ret`.
    Return,
    /// Branches and `unreachable`.
    Control,
    /// Windows-style exception handling and indirect branches: not differentiable yet.
    Unsupported,
    /// Atomics other than `atomicrmw fadd` and integer arithmetic, and `va_arg`: fine while no
    /// derivative flows in.
    InactiveOnly,
    /// No derivative: integer arithmetic, comparisons, conversions between integers and floats.
    NoDerivative,
}

/// The class of instruction `i`: the class of its opcode ([`classify_opcode`]), refined where
/// the operands decide (a sign-bit mask, the operation of an `atomicrmw`). Every visitor
/// dispatches on this, so a new class is a compile error wherever it has no mode.
pub fn classify(i: Val) -> InstClass {
    match classify_opcode(i.opcode()) {
        InstClass::InactiveOnly if i.is_atomic_fadd() => InstClass::AtomicFAdd,
        // Integer arithmetic on memory that may also hold derivatives (the reference count in
        // the block `std::make_shared` allocates beside the object): no derivative, as `add`.
        InstClass::InactiveOnly if i.is_atomic_integer_arithmetic() => InstClass::NoDerivative,
        InstClass::Bits(_) => match sign_bit_op(i) {
            Some((op, float)) => InstClass::SignBit(op, float),
            None => classify_opcode(i.opcode()),
        },
        c => c,
    }
}

/// The class of instructions with opcode `op`, before the operands refine it ([`classify`]):
/// never [`InstClass::SignBit`] or [`InstClass::AtomicFAdd`], which are [`InstClass::Bits`] and
/// [`InstClass::InactiveOnly`] here. What holds for every instruction of an opcode
/// ([`derivative_operands`], [`is_pure`]) holds for those refinements alike.
pub fn classify_opcode(op: Opcode) -> InstClass {
    use Opcode::*;
    if let Some(rule) = instruction_rule(op) {
        return InstClass::Rule(rule);
    }
    match op {
        LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast | LLVMFreeze | LLVMExtractValue
        | LLVMExtractElement => InstClass::Moves {
            operands: &[0],
            pointers: true,
        },
        LLVMInsertValue | LLVMInsertElement | LLVMShuffleVector => InstClass::Moves {
            operands: &[0, 1],
            pointers: true,
        },
        LLVMIntToPtr | LLVMPtrToInt | LLVMTrunc | LLVMZExt => InstClass::Moves {
            operands: &[0],
            pointers: false,
        },
        LLVMShl | LLVMLShr | LLVMAShr => InstClass::Bits(&[0]),
        LLVMOr | LLVMAnd | LLVMXor => InstClass::Bits(&[0, 1]),
        LLVMLoad => InstClass::Load,
        LLVMStore => InstClass::Store,
        LLVMAlloca => InstClass::Alloca,
        // An invoke is a call whose normal destination continues the derivative
        // (`crate::unwind`).
        LLVMCall | LLVMInvoke => InstClass::Call,
        LLVMPHI => InstClass::Phi,
        LLVMRet => InstClass::Return,
        // Landing pads and `resume` run only while unwinding, where no derivative is taken.
        LLVMBr | LLVMSwitch | LLVMUnreachable | LLVMResume => InstClass::Control,
        LLVMLandingPad => InstClass::NoDerivative,
        LLVMIndirectBr | LLVMCallBr | LLVMCleanupPad | LLVMCatchPad | LLVMCatchSwitch
        | LLVMCatchRet | LLVMCleanupRet => InstClass::Unsupported,
        LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMVAArg => InstClass::InactiveOnly,
        _ => InstClass::NoDerivative,
    }
}

/// The operands through which a derivative reaches instructions with opcode `op` (for
/// activity); `None` for loads, calls, phis and the like, which need their own treatment.
pub fn derivative_operands(op: Opcode) -> Option<&'static [u32]> {
    match classify_opcode(op) {
        InstClass::Rule(r) => Some(match r.kind {
            InstructionKind::Selection => &[1, 2],
            InstructionKind::Conversion => &[0],
            InstructionKind::Linear(_) if is_unary(op) => &[0],
            InstructionKind::Linear(_) => &[0, 1],
        }),
        InstClass::Moves { operands, .. } | InstClass::Bits(operands) => Some(operands),
        InstClass::SignBit(..)
        | InstClass::AtomicFAdd
        | InstClass::Load
        | InstClass::Store
        | InstClass::Alloca
        | InstClass::Call
        | InstClass::Phi
        | InstClass::Return
        | InstClass::Control
        | InstClass::Unsupported
        | InstClass::InactiveOnly
        | InstClass::NoDerivative => None,
    }
}

fn is_unary(op: Opcode) -> bool {
    matches!(op, Opcode::LLVMFNeg)
}

/// True when the adjoint may rebuild instructions with opcode `op` from their operands: they
/// compute a value from their operands alone, touching no memory and no control flow.
pub fn is_pure(op: Opcode) -> bool {
    use Opcode::*;
    match classify_opcode(op) {
        InstClass::Rule(_)
        | InstClass::Moves { .. }
        | InstClass::Bits(_)
        | InstClass::SignBit(..) => true,
        InstClass::NoDerivative => matches!(
            op,
            LLVMAdd | LLVMSub | LLVMMul | LLVMSExt | LLVMSIToFP | LLVMUIToFP | LLVMICmp | LLVMFCmp
        ),
        InstClass::AtomicFAdd
        | InstClass::Load
        | InstClass::Store
        | InstClass::Alloca
        | InstClass::Call
        | InstClass::Phi
        | InstClass::Return
        | InstClass::Control
        | InstClass::Unsupported
        | InstClass::InactiveOnly => false,
    }
}

/// Why an [`InstClass::InactiveOnly`] instruction with a derivative flowing in is refused, for
/// the error both visitors report.
pub fn inactive_only_refusal(i: Val) -> &'static str {
    match i.opcode() {
        Opcode::LLVMAtomicCmpXchg => {
            "a compare-and-swap on differentiable data cannot be differentiated (OpenMP \
             reductions other than `+`, such as `max`, `min` or `*`, use one in their atomic \
             method, which Umbra replaces by their critical method when the reduction is made \
             through `__kmpc_reduce[_nowait]` in a function a request reaches)"
        }
        Opcode::LLVMAtomicRMW => {
            "an atomic read-modify-write other than `fadd` on differentiable data cannot be \
             differentiated"
        }
        _ => "va_arg on differentiable data cannot be differentiated",
    }
}

/// What an integer `and`/`or`/`xor` with a constant does to the sign bit of a float held in
/// the other operand ([`sign_bit_op`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignBit {
    /// `and` with every bit but the sign: an integer `fabs`.
    Clear,
    /// `or` with the sign bit alone: an integer `-fabs`.
    Set,
    /// `xor` with the sign bit alone: an integer negation.
    Flip,
}

/// An integer operation on the sign bit of a float packed into an integer of the float's width
/// (16, 32 or 64 bits: `half`/`bfloat`, `float`, `double`), and the operand holding the float:
/// the one predicate both modes use, so they agree on which bit operations have a derivative of
/// their own (the sign of the float times the tangent or adjoint) rather than moving bits. The
/// constant mask may be either operand (LLVM puts it second, hand-written IR need not).
pub fn sign_bit_op(i: Val) -> Option<(SignBit, u32)> {
    let ty = i.ty();
    if !ty.is_int()
        || !matches!(
            i.opcode(),
            Opcode::LLVMAnd | Opcode::LLVMOr | Opcode::LLVMXor
        )
    {
        return None;
    }
    let w = ty.int_width();
    if !matches!(w, 16 | 32 | 64) {
        return None;
    }
    let (float, c) = match (
        i.operand(0).const_int_value(),
        i.operand(1).const_int_value(),
    ) {
        (None, Some(c)) => (0, c),
        (Some(c), None) => (1, c),
        _ => return None,
    };
    let sign = 1u64 << (w - 1);
    let all = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let op = match i.opcode() {
        Opcode::LLVMAnd if c == all & !sign => SignBit::Clear,
        Opcode::LLVMOr if c == sign => SignBit::Set,
        Opcode::LLVMXor if c == sign => SignBit::Flip,
        _ => return None,
    };
    Some((op, float))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{parse_test_module, Module};

    /// The classes of the instructions of `@f` in `ir`, in order.
    fn classes(ir: &str) -> Vec<InstClass> {
        let ctx = inkwell::context::Context::create();
        let llm = parse_test_module(&ctx, ir);
        let m = Module(llm.as_mut_ptr());
        let f = m.function("f").expect("@f");
        f.entry_block()
            .instructions()
            .into_iter()
            .map(classify)
            .collect()
    }

    #[test]
    fn operands_refine_the_class_of_an_opcode() {
        let c = classes(
            r#"
            define void @f(i16 %h, i32 %s, i64 %d, ptr %p, double %v) {
              %a = and i16 %h, 32767
              %b = or i32 -2147483648, %s
              %c = xor i64 %d, -9223372036854775808
              %e = and i16 %h, 255
              %g = xor i32 %s, 1
              %r = atomicrmw fadd ptr %p, double %v monotonic
              %t = atomicrmw add ptr %p, i64 %d monotonic
              %x = atomicrmw xchg ptr %p, i64 %d monotonic
              %o = atomicrmw or ptr %p, i64 %d monotonic
              ret void
            }
            "#,
        );
        let show: Vec<String> = c
            .iter()
            .map(|c| match c {
                InstClass::SignBit(op, k) => format!("sign {op:?} {k}"),
                InstClass::Bits(ops) => format!("bits {ops:?}"),
                InstClass::AtomicFAdd => "atomic fadd".into(),
                InstClass::InactiveOnly => "inactive only".into(),
                InstClass::NoDerivative => "no derivative".into(),
                InstClass::Return => "return".into(),
                _ => "other".into(),
            })
            .collect();
        assert_eq!(
            show,
            [
                "sign Clear 0",
                "sign Set 1",
                "sign Flip 0",
                "bits [0, 1]",
                "bits [0, 1]",
                "atomic fadd",
                "no derivative",
                "inactive only",
                "inactive only",
                "return"
            ]
        );
        // What holds for an opcode holds for its refinements.
        assert!(is_pure(Opcode::LLVMAnd) && !is_pure(Opcode::LLVMAtomicRMW));
    }
}
