//! Forward activity: which values of a function carry a derivative, given which parameters do.
//!
//! A value is *active* when it may carry a nonzero tangent (floating point), a shadow (pointers:
//! shadow memory exists), or shadow bits (integers holding bytes of differentiable memory, as
//! `-O2` code moves structs through `i64` loads and stores). Computed to a fixed point over the
//! reachable instructions so loop-carried phis are right. Activity is an over-approximation:
//! an active value whose tangent turns out zero costs time, never correctness.

use super::cfg::reverse_post_order;
use super::opcodes::{classify, derivative_operands, InstClass};
use crate::ir::Val;
use crate::rules::user::UserRules;
use crate::rules::{self, Callee, RuleKind};
use crate::vocab::Activity;
use std::collections::HashSet;

/// The set of active values (arguments and instructions) of one function.
pub struct ActiveSet {
    active: HashSet<Val>,
    /// (call, argument index) of active integer arguments whose callee's parameter carries
    /// float bits ([`crate::signature::FloatBits`]): they pass a derivative like floats do.
    float_bits_args: HashSet<(Val, usize)>,
}

impl ActiveSet {
    /// The `--print-activity` report for `f` differentiated as `derived`: each parameter's
    /// activity, then every active instruction.
    pub fn describe(&self, f: Val, derived: &str, acts: &[Activity]) -> Vec<String> {
        let mut out = vec![format!("activity of @{} in @{derived}:", f.name())];
        for (k, (p, a)) in f.params().into_iter().zip(acts).enumerate() {
            let name = if p.name().is_empty() {
                format!("#{k}")
            } else {
                format!("%{}", p.name())
            };
            out.push(format!("  param {name}: {a:?}"));
        }
        for b in reverse_post_order(f) {
            for i in b.instructions() {
                if self.active.contains(&i) {
                    out.push(format!("  active: {}", i.print()));
                }
            }
        }
        out
    }

    /// Forgets `v`: reverse mode leaves out values whose adjoint is always zero
    /// (`reverse::dead_adjoints`).
    pub fn remove(&mut self, v: Val) {
        self.active.remove(&v);
    }

    /// True when `v` carries a derivative.
    pub fn contains(&self, v: Val) -> bool {
        self.active.contains(&v)
    }

    /// True when argument `k` of `call` passes a derivative into the call: an active float or
    /// pointer, or an active integer the callee receives as float bits.
    pub fn arg_carries(&self, call: Val, k: usize, a: Val) -> bool {
        carries_into_call(a, |v| self.contains(v)) || self.float_bits_args.contains(&(call, k))
    }

    /// True when any argument of `call` passes a derivative into it ([`ActiveSet::arg_carries`]).
    pub fn call_receives(&self, call: Val) -> bool {
        let args = call.call_args();
        args.iter()
            .enumerate()
            .any(|(k, &a)| self.arg_carries(call, k, a))
    }
}

/// True when argument `k` of `call` is a null pointer that the defined callee may store or
/// merge with pointers that have shadows: Eigen's default evaluator constructs its data
/// member from `0` into an object that later holds differentiable data (-O0). Such an argument
/// is passed duplicated, its shadow null like itself, instead of constant, where the callee
/// could give the store no shadow to write.
pub fn null_needs_shadow(call: Val, k: usize, a: Val) -> bool {
    if !(a.ty().is_ptr() && a.is_null_constant()) {
        return false;
    }
    let Some(p) = call
        .called_function()
        .filter(|g| !g.is_declaration())
        .and_then(|g| g.params().get(k).copied())
    else {
        return false;
    };
    let mut seen = HashSet::new();
    let mut work = vec![p];
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in v.users() {
            use crate::ir::Opcode::*;
            match u.opcode() {
                LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast if u.operand(0) == v => {
                    work.push(u)
                }
                LLVMStore if u.operand(0) == v => return true,
                LLVMPHI | LLVMSelect | LLVMInsertValue | LLVMInsertElement => return true,
                LLVMCall | LLVMInvoke if u.call_args().contains(&v) => return true,
                _ => {}
            }
        }
    }
    false
}

/// What the callee's derived signatures carry as float bits ([`crate::signature::FloatBits`]),
/// asked only for defined callees receiving an active integer.
pub type FloatBitsOf<'a> = &'a dyn Fn(Val, Val) -> crate::signature::FloatBits;

/// Computes forward activity for `f` with parameter activities `acts`.
pub fn forward_activity(
    f: Val,
    acts: &[Activity],
    rules: &UserRules,
    bits: FloatBitsOf,
) -> ActiveSet {
    let mut active: HashSet<Val> = f
        .params()
        .into_iter()
        .zip(acts)
        .filter(|(_, a)| a.has_shadow() || **a == Activity::Out)
        .map(|(p, _)| p)
        .collect();
    let insts: Vec<Val> = reverse_post_order(f)
        .into_iter()
        .flat_map(|b| b.instructions())
        .collect();
    // Globals the user gave a shadow (`enzyme_shadow`), and addresses inside them, are active
    // like duplicated arguments.
    if !rules.global_shadows.is_empty() {
        for &i in &insts {
            for k in 0..i.num_operands() {
                let o = i.operand(k);
                if rules.global_shadow_of(o).is_some() {
                    active.insert(o);
                }
            }
        }
    }
    let mut set = ActiveSet {
        active,
        float_bits_args: HashSet::new(),
    };
    loop {
        let mut changed = false;
        for &i in &insts {
            if i.is_call() {
                changed |= set.note_float_bits_args(i, rules, bits);
            }
            if !set.active.contains(&i) && is_active(i, &set, rules) {
                set.active.insert(i);
                changed = true;
            }
        }
        if !changed {
            return set;
        }
    }
}

impl ActiveSet {
    /// Records the active integer arguments of `call` that its defined callee receives as
    /// float bits; true when one was new.
    fn note_float_bits_args(&mut self, call: Val, rules: &UserRules, bits: FloatBitsOf) -> bool {
        let args = call.call_args();
        let fresh: Vec<usize> = (0..args.len())
            .filter(|&k| {
                args[k].ty().is_int()
                    && self.active.contains(&args[k])
                    && !self.float_bits_args.contains(&(call, k))
            })
            .collect();
        if fresh.is_empty() {
            return false;
        }
        let Callee::Defined(g) = rules::classify(call, rules) else {
            return false;
        };
        let carried = bits(call, g);
        let mut changed = false;
        for k in fresh {
            if carried.param(k).is_some() {
                changed |= self.float_bits_args.insert((call, k));
            }
        }
        changed
    }
}

/// True when operand `v` is active (constants never are).
fn op(v: Val, active: &HashSet<Val>) -> bool {
    active.contains(&v)
}

/// True when an argument passes a derivative into a call: an active float or pointer (integers
/// with shadow bits do not count for calls).
pub fn carries_into_call(v: Val, is_active: impl Fn(Val) -> bool) -> bool {
    is_active(v) && v.ty().carries_derivative()
}

fn is_active(i: Val, set: &ActiveSet, rules: &UserRules) -> bool {
    let active = &set.active;
    let ty = i.ty();
    if ty.is_void() {
        return false;
    }
    let any = |idx: &[u32]| idx.iter().any(|&k| op(i.operand(k), active));
    // A pointer made from an integer offset of an active pointer (on some path: a merge)
    // points into its memory.
    if i.opcode() == crate::ir::Opcode::LLVMIntToPtr
        && super::int_pointers::int_pointer(i)
            .is_some_and(|ip| ip.bases().into_iter().any(|p| op(p, active)))
    {
        return true;
    }
    if let Some(operands) = derivative_operands(i.opcode()) {
        return any(operands);
    }
    match classify(i) {
        // Every alloca may receive differentiable data, except variables parallel regions
        // only read (`crate::openmp::inactive_capture`) and objects only the primal uses
        // (`primal_objects`: a string stream built by inlined constructors).
        InstClass::Alloca => {
            !crate::openmp::inactive_capture(i, |v| active.contains(&v))
                && !primal_only(i, set, rules)
        }
        InstClass::Load => any(&[0]),
        InstClass::Phi => i.incoming().iter().any(|(v, _)| op(*v, active)),
        InstClass::Call => call_is_active(i, set, rules),
        // The classes with derivative operands were answered above; the others produce no
        // value that carries a derivative.
        InstClass::Rule(_)
        | InstClass::Moves { .. }
        | InstClass::Bits(_)
        | InstClass::SignBit(..)
        | InstClass::AtomicFAdd
        | InstClass::Store
        | InstClass::Return
        | InstClass::Control
        | InstClass::Unsupported
        | InstClass::InactiveOnly
        | InstClass::NoDerivative => false,
    }
}

fn call_is_active(call: Val, set: &ActiveSet, rules: &UserRules) -> bool {
    let any_arg = set.call_receives(call);
    match rules::classify(call, rules) {
        Callee::Inactive | Callee::Unknown => false,
        // A callee that uses a global with a user shadow carries its derivative without
        // active arguments.
        // A returned pointer may point to memory that will carry derivatives (a fresh block
        // from an allocating wrapper), unless it is one of the arguments again (a string's
        // `_M_replace` returns `*this`): then it has their activity, none here.
        Callee::Defined(g) => {
            any_arg
                || (call.ty().contains_ptr() && !returns_only_parameters(g))
                || rules.reaches_shadowed_global(g)
        }
        Callee::User(_) => any_arg || call.ty().contains_ptr(),
        Callee::Rule(r) => match r.kind {
            RuleKind::Math(_) => any_arg,
            RuleKind::Inactive => false,
            // Allocations get a shadow unless only the primal uses the block; copies and sets
            // return their destination.
            RuleKind::Forward(..) => {
                r.effects.allocates && call.ty().is_ptr() && !primal_only(call, set, rules)
                    || any_arg && call.ty().carries_derivative()
            }
        },
    }
}

/// True when every value `f` returns is one of its parameters, or null, possibly offset by
/// getelementptrs, loaded from memory such a value points into, chosen by phis and selects
/// among such values, or returned by a call of a function that itself returns only its
/// parameters (`operator+=` returning what `append` returns, `*this`). Called with inactive
/// arguments, such a function returns an inactive pointer.
fn returns_only_parameters(f: Val) -> bool {
    returned_parameters(f, 0).is_some()
}

/// The parameters of `f` that [`returns_only_parameters`] finds returned (their indices), or
/// `None` when `f` may return anything else; `depth` bounds the calls followed.
fn returned_parameters(f: Val, depth: u32) -> Option<Vec<usize>> {
    use crate::ir::Opcode::*;
    if f.is_declaration() || depth > 8 {
        return None;
    }
    let params = f.params();
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    let mut work = Vec::new();
    for t in f.blocks().into_iter().filter_map(|b| b.terminator()) {
        if t.opcode() == LLVMRet {
            work.push((t.num_operands() == 1).then(|| t.operand(0))?);
        }
    }
    if work.is_empty() {
        return None;
    }
    while let Some(v) = work.pop() {
        if !seen.insert(v) || v.is_null_constant() {
            continue;
        }
        if v.is_argument() {
            found.push(params.iter().position(|&p| p == v)?);
            continue;
        }
        let op = if v.is_instruction() {
            v.opcode()
        } else if v.is_constant_expr() {
            v.const_opcode()
        } else {
            return None;
        };
        match op {
            // A pointer loaded from memory an argument points into (`c_str()` returns the
            // buffer pointer its string holds) is as active as that argument, as loads are.
            LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast | LLVMLoad => {
                work.push(v.operand(0))
            }
            LLVMSelect => work.extend([v.operand(1), v.operand(2)]),
            LLVMPHI => work.extend(v.incoming().into_iter().map(|(x, _)| x)),
            LLVMCall | LLVMInvoke => {
                let g = v.called_function()?;
                let args = v.call_args();
                for k in returned_parameters(g, depth + 1)? {
                    work.push(*args.get(k)?);
                }
            }
            _ => return None,
        }
    }
    Some(found)
}

/// True when only the primal uses object `o` (an alloca or a fresh block), given what `set`
/// holds so far ([`super::primal_objects`]).
fn primal_only(o: Val, set: &ActiveSet, rules: &UserRules) -> bool {
    super::primal_objects::primal_only(
        o,
        &super::primal_objects::Facts {
            active: &|v| set.contains(v),
            arg_carries: &|call, k, a| set.arg_carries(call, k, a),
            callee: &|call| rules::classify(call, rules),
            reaches_shadowed_global: &|g| rules.reaches_shadowed_global(g),
        },
    )
}
