//! Instruction rules: the derivatives of LLVM's floating-point instructions, one row each, in
//! the same shape as the `math!` rows (partial derivatives that drive both modes), so a
//! newcomer finds every derivative in `rules/`. The visitors look instructions up here by
//! opcode ([`instruction_rule`]); they carry no formulas of their own.
//!
//! Three kinds of row:
//! - [`InstructionKind::Linear`]: partials with respect to each operand, like a math rule
//!   (`fadd`, `fsub`, `fmul`, `fdiv`, `frem`, `fneg`);
//! - [`InstructionKind::Conversion`]: a conversion between floating-point types (`fpext`,
//!   `fptrunc`): the tangent is converted like the value, the adjoint converted back;
//! - [`InstructionKind::Selection`]: `select`: the derivative goes where the value goes (the
//!   tangent is selected like the value; the adjoint goes to the chosen operand, exactly zero to
//!   the other).
//!
//! The vector reductions the vectoriser emits are calls, not instructions: they live in
//! [`super::vector`]. Integer bit operations on floating-point bits (`or`, shifts) move shadow
//! bits rather than compute derivatives; forward mode handles them as data movement.

use super::rule::Partials;
use crate::ir::{Builder, Opcode, Ty, Val};

/// How an instruction differentiates.
#[derive(Clone, Copy)]
pub enum InstructionKind {
    /// Partial derivatives with respect to each operand (primal operands and result given).
    Linear(Partials),
    /// A conversion between floating-point types.
    Conversion,
    /// `select`: operand 0 chooses between operands 1 and 2.
    Selection,
}

/// One instruction's derivative.
pub struct InstructionRule {
    /// The instruction's name in LLVM IR.
    pub name: &'static str,
    /// Its opcode.
    pub opcode: Opcode,
    /// How it differentiates.
    pub kind: InstructionKind,
}

macro_rules! linear {
    ($name:literal, $op:ident, $partials:expr) => {
        InstructionRule {
            name: $name,
            opcode: Opcode::$op,
            kind: InstructionKind::Linear($partials as Partials),
        }
    };
}

/// Every instruction rule.
pub static INSTRUCTIONS: &[InstructionRule] = &[
    linear!("fadd", LLVMFAdd, |_b, a, _r| vec![
        Some(one(a[0])),
        Some(one(a[0]))
    ]),
    linear!("fsub", LLVMFSub, |_b, a, _r| vec![
        Some(one(a[0])),
        Some(minus_one(a[0]))
    ]),
    linear!("fmul", LLVMFMul, |_b, a, _r| vec![Some(a[1]), Some(a[0])]),
    linear!("fdiv", LLVMFDiv, fdiv_partials),
    linear!("frem", LLVMFRem, frem_partials),
    linear!("fneg", LLVMFNeg, |_b, a, _r| vec![Some(minus_one(a[0]))]),
    InstructionRule {
        name: "fpext",
        opcode: Opcode::LLVMFPExt,
        kind: InstructionKind::Conversion,
    },
    InstructionRule {
        name: "fptrunc",
        opcode: Opcode::LLVMFPTrunc,
        kind: InstructionKind::Conversion,
    },
    InstructionRule {
        name: "select",
        opcode: Opcode::LLVMSelect,
        kind: InstructionKind::Selection,
    },
];

/// The rule for instructions with `opcode`, if they have a derivative here.
pub fn instruction_rule(opcode: Opcode) -> Option<&'static InstructionRule> {
    INSTRUCTIONS.iter().find(|r| r.opcode == opcode)
}

/// Which inputs of instruction `i` (its operands, then its result) the partials of the operands
/// marked `active` read: what reverse mode must have at hand (see [`super::partials_read_for`]).
pub fn inputs_read(rule: &InstructionRule, i: Val, active: &[bool]) -> Vec<bool> {
    let InstructionKind::Linear(partials) = rule.kind else {
        return Vec::new();
    };
    let params: Vec<Ty> = i.operands().iter().map(|o| o.ty()).collect();
    super::partials_read_for(
        rule.name,
        partials,
        Ty::function(i.ty(), &params, false),
        active,
    )
}

fn one(like: Val) -> Val {
    like.ty().float_const(1.0)
}

fn minus_one(like: Val) -> Val {
    like.ty().float_const(-1.0)
}

/// `r = a / b`: d/da = `1 / b`, d/db = `-r / b`.
fn fdiv_partials(b: &mut Builder, a: &[Val], r: Val) -> Vec<Option<Val>> {
    let inv = b.fdiv(one(a[1]), a[1]);
    let q = b.fdiv(r, a[1]);
    let nq = b.fneg(q);
    vec![Some(inv), Some(nq)]
}

/// `r = a - b trunc(a / b)`: d/da = 1, d/db = `-trunc(a / b)` (the `fmod` convention).
fn frem_partials(b: &mut Builder, a: &[Val], _r: Val) -> Vec<Option<Val>> {
    let q = b.fdiv(a[0], a[1]);
    let t = b.math("llvm.trunc", &[q]);
    let nt = b.fneg(t);
    vec![Some(one(a[0])), Some(nt)]
}

#[cfg(test)]
mod tests {
    use super::super::harness::{check_rule, Case};
    use crate::ir::{Builder, Opcode, Val};

    fn binop(b: &mut Builder, op: Opcode, x: &[Val]) -> Val {
        let r = b.binop(op, x[0], x[1]);
        // Times the first input, so a dropped or swapped partial shows.
        b.fmul(r, x[0])
    }

    #[test]
    fn arithmetic_matches_finite_differences() {
        let cases: [(&str, crate::rules::harness::BuildFn); 5] = [
            ("fadd", |b, x| binop(b, Opcode::LLVMFAdd, x)),
            ("fsub", |b, x| binop(b, Opcode::LLVMFSub, x)),
            ("fmul", |b, x| binop(b, Opcode::LLVMFMul, x)),
            ("fdiv", |b, x| binop(b, Opcode::LLVMFDiv, x)),
            ("frem", |b, x| binop(b, Opcode::LLVMFRem, x)),
        ];
        for (name, build) in cases {
            check_rule(&Case::built(name, build, &[2.7, -0.8]));
            check_rule(&Case::built(name, build, &[-1.3, 0.45]));
        }
        check_rule(&Case::built(
            "fneg",
            |b, x| {
                let n = b.fneg(x[0]);
                b.fmul(n, x[0])
            },
            &[1.7],
        ));
    }

    #[test]
    fn conversions_match_finite_differences() {
        // Convert, cube, convert back: both conversions on the path, derivative 3 x^2. Float
        // and double widen (to double, x86_fp80); long double narrows to double and comes back
        // (a rounding of 1e-16, far below the finite differences' error).
        check_rule(&Case::built(
            "fpext-fptrunc",
            |b, x| {
                use crate::ir::Ty;
                let t = x[0].ty();
                let ctx = t.context();
                let (there, back, other) = match t.print().as_str() {
                    "float" => (Opcode::LLVMFPExt, Opcode::LLVMFPTrunc, Ty::double(ctx)),
                    "double" => (Opcode::LLVMFPExt, Opcode::LLVMFPTrunc, Ty::x86_fp80(ctx)),
                    _ => (Opcode::LLVMFPTrunc, Opcode::LLVMFPExt, Ty::double(ctx)),
                };
                let w = b.cast(there, x[0], other);
                let w2 = b.fmul(w, w);
                let w3 = b.fmul(w2, w);
                b.cast(back, w3, t)
            },
            &[1.3],
        ));
    }

    #[test]
    fn select_matches_finite_differences() {
        // max(x0, x1) * x1 through a select, on both sides of the kink.
        let build: crate::rules::harness::BuildFn = |b, x| {
            let c = b.fcmp(crate::ir::RealPred::LLVMRealOGT, x[0], x[1]);
            let m = b.select(c, x[0], x[1]);
            b.fmul(m, x[1])
        };
        check_rule(&Case::built("select", build, &[2.0, 0.5]));
        check_rule(&Case::built("select", build, &[-2.0, 0.5]));
    }
}
