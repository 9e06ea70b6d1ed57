//! The primitive-rule registry: how calls to functions without a body (and LLVM intrinsics) are
//! differentiated. One table, one file per area (a directory for BLAS, one file per level):
//!
//! - [`instructions`]: LLVM's floating-point instructions (`fadd`, `fdiv`, casts, `select`),
//!   declared like the math rules, looked up by opcode;
//! - [`math`]: `<math.h>` and the LLVM math intrinsics, declared as partial derivatives;
//! - [`vector`]: vector reductions as the loop vectoriser emits them;
//! - [`complex`]: `_Complex`/`std::complex` multiply and divide helpers and `<complex.h>`;
//! - [`outputs`]: math functions with two results (`modf`, `frexp`, `sincos`), as struct-valued
//!   intrinsics and as libm functions writing through pointers;
//! - [`memory`]: `memcpy`, `memmove`, `memset`, their intrinsics, lifetime markers;
//! - [`alloc`]: C, C++ and Rust allocators and deallocators; [`allocation_like`]: the user's
//!   allocators (Enzyme's `__enzyme_allocation_like` registrations);
//! - [`rbtree`]: libstdc++'s red-black tree functions behind `std::map` and `std::set`
//!   (insertion, erasure, iteration), applied to the shadow tree too;
//! - [`list`]: libstdc++'s list node functions behind `std::list` (hooking, unhooking,
//!   splicing, reversing, swapping), applied to the shadow list too;
//! - [`julia`]: the Julia runtime's array and memory allocators;
//! - [`blas`]: BLAS levels 1-3 (`dot`, `nrm2`, `axpy`, `scal`, `copy`, `gemv`, `ger`, `gemm`),
//!   CBLAS and Fortran interfaces, single and double precision, each routine's layout declared
//!   once as a signature;
//! - [`openmp`]: the OpenMP runtime calls inside a `parallel for` (scheduling, thread queries,
//!   `+` reductions);
//! - [`fortran`]: flang's runtime array intrinsics at -O0 (`sum`, `dot_product`), walking
//!   Fortran array descriptors;
//! - [`inactive`]: calls with no derivative (I/O, clocks, assumptions, integer intrinsics);
//! - [`streams`]: libstdc++'s streams, locales and strings, primal only (extraction into a
//!   floating-point variable zeroes its derivative);
//! - [`user`]: the user's rules (registrations in the source, `--rules` files), which take
//!   precedence over all of the above; [`protect`]: keeping the functions they name out of
//!   line until they are applied; [`reference`]: the listing `umbra rules` prints.
//!
//! How to write a rule, and the invariants every rule keeps: `docs/reference/writing-rules.md`.
//!
//! Hand-written rules see a call through the contexts in `calls` (forward, augmented and
//! adjoint sweeps); [`linear`] is where both modes apply partials to tangents and adjoints. A rule matches callees by name: the exact name, the libm `f`/`l` variants of a libm name, an
//! intrinsic with its type-overload suffixes (`llvm.sin.v4f64` matches `llvm.sin`), a Rust
//! allocator shim under rustc's v0 mangling (`__rustc::__rust_alloc` matches `__rust_alloc`),
//! and a vector math function under the vector function ABI (`_ZGVdN4v_sin` matches `sin`).

pub mod alloc;
pub mod allocation_like;
pub mod blas;
mod calls;
pub mod complex;
pub mod fortran;
pub mod inactive;
pub mod instructions;
pub mod julia;
pub mod linear;
pub mod list;
pub mod math;
pub mod memory;
pub mod openmp;
pub mod outputs;
pub mod protect;
pub mod rbtree;
pub mod reference;
mod rule;
pub mod sort;
pub mod streams;
pub mod strings;
pub mod user;
pub mod vector;

#[cfg(test)]
mod harness;

use crate::ir::Val;
use crate::vocab::Mode;
use std::collections::HashMap;
use std::sync::OnceLock;

pub use calls::{AdjointCall, AugmentCall, CustomReverse, ForwardCall, RuleEnv};
pub use rule::{
    partials_read, partials_read_for, ArgBytes, Effects, Extent, Hidden, Partials, Reverse, Rule,
    RuleKind,
};

/// What a call says about the types of its operands, for the type analysis: copies move the
/// same bytes, allocators return pointers, math functions take floats.
pub fn type_seed(call: Val) -> crate::analysis::types::CallSeed {
    use crate::analysis::types::CallSeed;
    match lookup_call(call) {
        Some(r) if memory::is_copy(r) => CallSeed::Copy,
        Some(r) if r.effects.allocates => CallSeed::Allocates,
        Some(r) if matches!(r.kind, RuleKind::Math(_)) => CallSeed::Math,
        Some(r) if r.effects.float_outputs => CallSeed::MathOut,
        _ => CallSeed::None,
    }
}

/// Every built-in rule.
pub fn all() -> impl Iterator<Item = &'static Rule> {
    math::RULES
        .iter()
        .chain(vector::RULES)
        .chain(complex::RULES)
        .chain(outputs::RULES)
        .chain(memory::RULES)
        .chain(alloc::RULES)
        .chain(strings::RULES)
        .chain(allocation_like::RULES)
        .chain(sort::RULES)
        .chain(rbtree::RULES)
        .chain(list::RULES)
        .chain(julia::RULES)
        .chain(blas::rules())
        .chain(fortran::RULES)
        .chain(inactive::WRITING)
        .chain(inactive::PURE)
        .chain(inactive::INERT)
        .chain(inactive::LIFETIME)
        .chain(streams::PRIMAL_ONLY)
        .chain(streams::EXTRACT)
        .chain(streams::READ)
        .chain(openmp::RULES)
        .chain(openmp::WRITING)
        .chain(openmp::PURE)
}

fn table() -> &'static HashMap<String, &'static Rule> {
    static TABLE: OnceLock<HashMap<String, &'static Rule>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = HashMap::new();
        for r in all() {
            for n in r.names() {
                t.insert(n, r);
            }
        }
        t
    })
}

/// The rule for callee `name`, if any.
pub fn lookup(name: &str) -> Option<&'static Rule> {
    let t = table();
    if let Some(r) = t.get(name) {
        return Some(r);
    }
    if let Some(r) = alloc::rust_shim_name(name).and_then(|plain| t.get(plain)) {
        return Some(r);
    }
    // A vector math function (`_ZGVdN4v_sin`): its scalar function's rule, lane by lane; only
    // a rule of partials that touches no memory works that way.
    if let Some(r) = vector::vector_abi_scalar(name).and_then(|scalar| t.get(scalar)) {
        return (matches!(r.kind, RuleKind::Math(_)) && !r.effects.touches_memory()).then_some(*r);
    }
    if name.starts_with("llvm.") {
        // Strip type-overload suffixes (`.f64`, `.v4f32`, `.p0.i64`) one at a time.
        let mut base = name;
        while let Some((head, _)) = base.rsplit_once('.') {
            if let Some(r) = t.get(head) {
                return Some(r);
            }
            base = head;
        }
    }
    None
}

/// The built-in rule for the function call `call` calls directly, if any.
pub fn lookup_call(call: Val) -> Option<&'static Rule> {
    lookup(&call.called_function()?.name())
}

/// True when `call` is a sine or cosine (any spelling: `sin`, `cosf`, `llvm.cos.v4f64`, ...):
/// its adjoint computes the other function of the pair on the same operand
/// ([`math::SINCOS_PAIR`]), so its own value computed again in the same adjoint block costs
/// little (one `sincos` call gives both). The reverse plan rebuilds such values, where the
/// adjoint needs them, rather than keep them.
pub fn partial_is_sincos_partner(call: Val) -> bool {
    lookup_call(call)
        .is_some_and(|r| matches!(r.kind, RuleKind::Math(_)) && math::SINCOS_PAIR.contains(&r.name))
}

/// What a call site calls, as far as differentiation is concerned.
#[derive(Clone, Copy)]
pub enum Callee {
    /// A function with a body in the module: differentiated recursively.
    Defined(Val),
    /// A primitive rule.
    Rule(&'static Rule),
    /// A rule the user registered (see [`user`]).
    User(user::UserRule),
    /// No derivative (user-declared inactive, or an intrinsic that touches no floating point).
    Inactive,
    /// A declaration without a rule, or an indirect call.
    Unknown,
}

/// Classifies call instruction `call` for both modes (a user rule stays [`Callee::User`] even
/// when it lacks the half one mode needs; see [`classify_for`]).
pub fn classify(call: Val, rules: &user::UserRules) -> Callee {
    let Some(f) = call.called_function() else {
        return Callee::Unknown;
    };
    let name = f.name();
    if rules.is_inactive(&name)
        || name.starts_with(inactive::BOOKKEEPING_PREFIX)
        || name.starts_with(inactive::CHECK_PREFIX)
        || name.starts_with(inactive::INDEX_PREFIX)
        || name.starts_with(inactive::CALL_INACTIVE_PREFIX)
        || name.starts_with(inactive::HINT_PREFIX)
    {
        return Callee::Inactive;
    }
    // User rules first: they override built-in rules and apply even to defined functions.
    if let Some(like) = rules.function_like.get(&name) {
        return match lookup(like) {
            Some(r) if matches!(r.kind, RuleKind::Inactive) => Callee::Inactive,
            Some(r) => Callee::Rule(r),
            None => Callee::Unknown,
        };
    }
    let forward = rules.derivatives.get(&name).copied();
    let gradient = rules.gradients.get(&name).copied();
    if forward.is_some() || gradient.is_some() {
        return Callee::User(user::UserRule {
            primal: f,
            forward,
            gradient,
        });
    }
    // The tape's chunk pool is an allocator to every request (its body, emitted after them
    // all, may already be there when a module is differentiated a second time).
    if !f.is_declaration() && !name.starts_with(crate::tape::pool::PREFIX) {
        // Library templates the module instantiates but whose extern siblings run in the
        // primal only (a `std::string` constructor at -O0 under C++14 and later).
        if strings::DEFINED_PRIMAL_ONLY.contains(&name.as_str()) {
            return Callee::Inactive;
        }
        return Callee::Defined(f);
    }
    if let Some(r) = lookup(&name) {
        return match r.kind {
            RuleKind::Inactive => Callee::Inactive,
            _ => Callee::Rule(r),
        };
    }
    let ty = call.call_function_type();
    // An intrinsic that neither touches floating point nor returns a pointer (which could carry
    // a shadow) cannot affect derivatives: integer arithmetic, assumptions, prefetches, ...
    let touches_float =
        ty.return_type().contains_float() || ty.param_types().iter().any(|t| t.contains_float());
    if f.intrinsic_id() != 0 && !touches_float && !ty.return_type().contains_ptr() {
        return Callee::Inactive;
    }
    Callee::Unknown
}

/// The error for call `i` that passes derivatives to a function without a body or a rule (or
/// to an unknown target), in `mode`: it names the callee, the call site and the ways out (cf.
/// Mooncake's `MissingForeigncallRuleError`). Differentiable values flow into the call, so
/// marking it inactive is not one of them: that would drop its derivative silently (a zero
/// gradient through `__kmpc_fork_call`, say); the message says so instead of suggesting it.
pub fn missing_rule_error(i: Val, mode: Mode) -> crate::diag::Error {
    let mode = match mode {
        Mode::Forward => "forward mode",
        Mode::Reverse => "reverse mode",
    };
    let text = match i.called_function() {
        Some(f) => {
            let name = f.name();
            // OpenMP's runtime runs outlined parallel regions: a rule would not help.
            let openmp = if name.starts_with("__kmpc_") {
                "Umbra differentiates OpenMP parallel regions with static schedules, barriers, critical, single, master and masked sections and `+` reductions, not this construct: restructure it that way, or compile the differentiated code without -fopenmp. Otherwise: "
            } else if name.starts_with("_FortranA") {
                // flang's runtime library: array intrinsics and assignment at -O0 (sum, dot_product), and
                // matmul, transpose, ... at every level.
                "it is flang's runtime implementation of a Fortran intrinsic; Umbra has no rules for those yet: at -O1 and above flang inlines sum, dot_product, matmul and array assignment as loops, which Umbra differentiates, and any intrinsic can be written as a loop. Otherwise: "
            } else {
                ""
            };
            format!(
                "no derivative rule for '{name}' ({mode}): it has no body in this module and differentiable values flow into it. Ways out: {openmp}define '{name}' in the module being differentiated; register a rule for it (UMBRA_DERIVATIVE / UMBRA_GRADIENT / UMBRA_FUNCTION_LIKE in umbra.h, or function_like in a --rules file). Marking it inactive would not fix this: it drops the derivative through '{name}' (a wrong, not a missing, result)"
            )
        }
        None if i.calls_inline_asm() => format!(
            "inline assembly with differentiable operands ({mode}): Umbra cannot see what the assembly does with them. Ways out: keep differentiable values out of asm statements (optimisation barriers included), or move the assembly into a function with a registered derivative (UMBRA_DERIVATIVE / UMBRA_GRADIENT in umbra.h)"
        ),
        None => format!(
            "indirect call with differentiable arguments ({mode}): the callee is not known at compile time. Ways out: call the function directly, so that its body or rule is used; or load the pointer from a constant table of functions or a vtable in this module"
        ),
    };
    crate::diag::Error::at(i, text)
}

/// Classifies `call` for one mode: a user rule without that mode's half falls back to the
/// function's body (or, for a declaration, to no rule at all).
pub fn classify_for(call: Val, rules: &user::UserRules, mode: Mode) -> Callee {
    match classify(call, rules) {
        Callee::User(u) => {
            let has_half = match mode {
                Mode::Forward => u.forward.is_some(),
                Mode::Reverse => u.gradient.is_some(),
            };
            match (has_half, u.primal.is_declaration()) {
                (true, _) => Callee::User(u),
                (false, false) => Callee::Defined(u.primal),
                (false, true) => Callee::Unknown,
            }
        }
        other => other,
    }
}
