//! `std::string`'s (libstdc++, `char`) buffer allocation, and its constructors
//! that `-O0` instantiates in the module: what lets a string live in memory with a shadow (a
//! key in a map node, a name in a struct of doubles) at every optimisation level.
//!
//! From `-O1` on, clang inlines the string's members into the program, so they run on the
//! string's shadow too: the shadow string is a string of its own (a pointer to its characters,
//! a length, a capacity or the characters in place), which the shadow of the destructor frees.
//! A string longer than its in-place buffer gets its characters from the library's out-of-line
//! `_M_create(capacity&, old_capacity)`, which may enlarge `capacity` and returns
//! `capacity + 1` characters from `operator new`. Its rule is an allocation rule: the shadow
//! is `operator new` of the same size, read from `capacity` after the call, zeroed, released
//! by `operator delete` (forward mode: when the inlined destructor frees the primal buffer;
//! reverse mode: when the adjoint sweep passes the allocation, as `super::alloc` does for
//! every allocator). Characters carry no derivative, so what the shadow buffer holds is never
//! read as one.
//!
//! At `-O0` nothing is inlined and libstdc++'s `extern template` keeps the string's members out
//! of line, where `super::streams` runs them in the primal only (the shadow string is never
//! constructed, and nothing runs on it). Under C++14 and later, though, the constructor from a
//! `const char*` is a member template, instantiated in the module at `-O0`: its body would be
//! differentiated and reach the extern members that build a string (`_M_local_data`,
//! `_M_create`, ...) on a shadow no one constructed. [`DEFINED_PRIMAL_ONLY`] lists such
//! constructors, which run in the primal only even though the module defines them, exactly as
//! their C++11 counterparts (non-template, extern) do.

use super::alloc::DELETE_SHADOW;
use super::calls::ForwardCall;
use super::rule::{Area, Effects, Reverse, Rule, RuleKind};
use crate::diag::Result;
use crate::ir::{Ty, Val};

/// `_M_create(this, size_t& capacity, size_t old_capacity)`. Not `std::wstring`'s: its
/// characters are copied by `wmemcpy`, which has no rule, so a wide string in memory with a
/// derivative stays an error naming that.
const M_CREATE_CHAR: &str = "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_createERmm";

/// The buffer allocation of `std::string`.
pub static RULES: &[Rule] = &[Rule {
    name: M_CREATE_CHAR,
    aliases: &[],
    libm_variants: false,
    area: Area::Alloc,
    kind: RuleKind::Forward(create_forward, Reverse::Custom(&DELETE_SHADOW)),
    // It reads and may enlarge `capacity` (the only memory it writes), and allocates.
    effects: Effects {
        reads: true,
        writes: true,
        ..Effects::ALLOCATES
    },
}];

/// Constructors the module defines at `-O0` (member templates, so not covered by libstdc++'s
/// `extern template`) that run in the primal only, as their extern siblings in
/// `super::streams::PRIMAL_ONLY` do: `basic_string<char>::basic_string<allocator<char>>(const
/// char*, const allocator<char>&)`, complete and base object, as C++14 and later declare it.
pub static DEFINED_PRIMAL_ONLY: &[&str] = &[
    "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEC1IS3_EEPKcRKS3_",
    "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEC2IS3_EEPKcRKS3_",
];

/// The shadow buffer: `operator new(capacity + 1)`, the capacity read after the primal call
/// (which may have enlarged it), zeroed.
fn create_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let m = c.b.module();
    let ctx = m.context();
    let size_t = Ty::int(ctx, 64);
    let capacity = c.b.load(size_t, c.args[1], 8);
    let bytes = c.b.add(capacity, size_t.int_const(1));
    let new = m.get_or_add_function("_Znwm", Ty::function(Ty::ptr(ctx), &[size_t], false));
    let shadow = c.b.call_function(new, &[bytes]);
    c.b.memset_zero(shadow, bytes, 1);
    Ok(Some(shadow))
}

#[cfg(test)]
mod tests {
    use super::{DEFINED_PRIMAL_ONLY, M_CREATE_CHAR};
    use crate::ir::{parse_test_module, Module};
    use crate::rules::{classify, lookup, user::UserRules, Callee, RuleKind};
    use inkwell::context::Context;

    #[test]
    fn buffer_allocation_is_an_allocation_rule_with_a_reverse_half() {
        let r = lookup(M_CREATE_CHAR).expect("the rule");
        assert!(r.effects.allocates && r.effects.writes);
        assert!(matches!(r.kind, RuleKind::Forward(..)));
    }

    #[test]
    fn the_constructor_template_runs_in_the_primal_only_though_defined() {
        let ctx = Context::create();
        let ctor = DEFINED_PRIMAL_ONLY[0];
        let ir = format!(
            "define void @{ctor}(ptr %s, ptr %c, ptr %a) {{\n  ret void\n}}\n\
             define void @other(ptr %s) {{\n  ret void\n}}\n\
             define void @f(ptr %s, ptr %c) {{\n  call void @{ctor}(ptr %s, ptr %c, ptr null)\n  \
             call void @other(ptr %s)\n  ret void\n}}"
        );
        let module = parse_test_module(&ctx, &ir);
        let m = Module(module.as_mut_ptr());
        let f = m.function("f").expect("f");
        let calls: Vec<_> = f.blocks()[0]
            .instructions()
            .into_iter()
            .filter(|i| i.is_call())
            .collect();
        let rules = UserRules::default();
        assert!(matches!(classify(calls[0], &rules), Callee::Inactive));
        assert!(matches!(classify(calls[1], &rules), Callee::Defined(_)));
    }
}
