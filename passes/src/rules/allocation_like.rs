//! User allocators: Enzyme's `__enzyme_allocation_like` registration,
//!
//! ```c
//! void *__enzyme_allocation_like[4] = {(void *)myalloc, (void *)SIZE_ARG, (void *)"I,J,...",
//!                                      (void *)mydealloc};
//! ```
//!
//! says that `myalloc` returns fresh memory of `args[SIZE_ARG]` bytes, released by
//! `mydealloc(a_I, a_J, ...)`, where index `k >= 0` stands for the allocation call's argument
//! `k` and `-1` for the block itself. Such an allocator is differentiated as `malloc` is
//! ([`super::alloc`]): its shadow is a second call with the same arguments, zeroed over the
//! size argument's bytes, and in reverse mode the adjoint sweep releases the shadow (with the
//! registered deallocator, the block standing at `-1`) when it passes the allocation. The
//! allocator's own body runs in the primal only: whatever bookkeeping it does (a bump offset,
//! a free list) carries no derivative.
//!
//! The registration is read by `user.rs` as a function-like registration naming the one rule
//! here ([`RULE_NAME`]), so every place that honours function-like registrations (keeping the
//! calls out of line, the overwrite analysis's effects, devirtualisation) honours this one; the
//! rule reads the size index and the deallocator from the registration global itself
//! ([`registration_of`]), checked once when the module's rules are collected ([`parse`]).

use super::calls::{
    AdjointCall, ArgAdjoints, ArgNeeds, AugmentCall, Augmented, CustomNeeds, CustomReverse,
    ForwardCall, ForwardRule,
};
use super::rule::{Area, Effects, Hidden, Reverse, Rule, RuleKind};
use crate::diag::{Error, Result};
use crate::ir::{Module, Opcode, TyKind, Val};

/// The prefix of the registration globals (anywhere in a mangled C++ name, as the others).
pub const PREFIX: &str = "__enzyme_allocation_like";

/// The name of the rule registered allocators are differentiated by (what `umbra rules` lists).
pub const RULE_NAME: &str = "__enzyme_allocation_like";

/// One registered allocator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllocationLike {
    /// The allocating function.
    pub alloc: Val,
    /// The position of its size argument (bytes).
    pub size_arg: usize,
    /// The deallocator.
    pub dealloc: Val,
    /// The deallocator's arguments: `k >= 0` the allocation's argument `k`, `-1` the block.
    pub dealloc_args: Vec<i64>,
}

/// The entries of a registration global's initializer.
fn entries(g: Val) -> Vec<Val> {
    match g.initializer().map(Val::without_asan_redzone) {
        Some(init) if matches!(init.ty().kind(), TyKind::Array | TyKind::Struct) => init.operands(),
        Some(init) => vec![init],
        None => Vec::new(),
    }
}

/// The integer a pointer-sized registration entry holds: `(void *)1` is `inttoptr (i64 1)`,
/// `(void *)0` is `null`.
fn entry_int(v: Val) -> Option<u64> {
    if v.is_null_constant() {
        return Some(0);
    }
    if v.is_constant_expr() && v.const_opcode() == Opcode::LLVMIntToPtr {
        return v.operand(0).const_int_value();
    }
    v.const_int_value()
}

fn malformed(g: Val, what: &str) -> Error {
    Error::general(format!(
        "malformed allocation-like registration '{}': {what} (expected {{allocator, (void*)size argument index, \"deallocator argument indices\", deallocator}})",
        g.name()
    ))
}

/// Reads registration global `g` (whose name says it is one), checking the indices against the
/// two functions' parameters.
pub fn parse(g: Val) -> Result<AllocationLike> {
    let es = entries(g);
    let [alloc, size, text, dealloc] = es[..] else {
        return Err(malformed(g, &format!("{} entries, not 4", es.len())));
    };
    if !alloc.is_function() || !dealloc.is_function() {
        return Err(malformed(g, "the first and last entries must be functions"));
    }
    let params = alloc.function_type().param_types();
    let size_arg = entry_int(size)
        .map(|k| k as usize)
        .filter(|&k| params.get(k).is_some_and(|t| t.is_int()))
        .ok_or_else(|| {
            malformed(
                g,
                &format!(
                    "entry 2 must be the index of an integer parameter of '{}'",
                    alloc.name()
                ),
            )
        })?;
    let Some(text) = text.const_string() else {
        return Err(malformed(g, "entry 3 must be a string"));
    };
    let mut dealloc_args = Vec::new();
    for part in text.split(',') {
        let k: i64 = part
            .trim()
            .parse()
            .map_err(|_| malformed(g, &format!("'{text}' is not a list of argument indices")))?;
        dealloc_args.push(k);
    }
    let dparams = dealloc.function_type().param_types();
    let fits = dealloc_args.len() == dparams.len()
        && dealloc_args.iter().zip(&dparams).all(|(&k, t)| match k {
            -1 => t.is_ptr(),
            k if k >= 0 => params.get(k as usize) == Some(t),
            _ => false,
        });
    if !fits || !dealloc_args.contains(&-1) {
        return Err(malformed(
            g,
            &format!(
                "'{text}' does not fit the parameters of '{}' (-1 for the block, which it must take, k for argument k of '{}')",
                dealloc.name(),
                alloc.name()
            ),
        ));
    }
    Ok(AllocationLike {
        alloc,
        size_arg,
        dealloc,
        dealloc_args,
    })
}

/// True for the name of an allocation-like registration global.
pub fn is_registration(name: &str) -> bool {
    name.starts_with(PREFIX) || (name.starts_with("_Z") && name.contains(PREFIX))
}

/// The registration of allocator `f` in module `m`, if one parses.
pub fn registration_of(m: Module, f: Val) -> Option<AllocationLike> {
    m.globals()
        .into_iter()
        .filter(|g| is_registration(&g.name()))
        .filter_map(|g| parse(g).ok())
        .find(|a| a.alloc == f)
}

/// The registration of the function call `src` calls, or the error saying there is none (a
/// function declared function-like to this rule by other means).
fn registration_at(m: Module, src: Val) -> Result<AllocationLike> {
    src.called_function()
        .and_then(|f| registration_of(m, f))
        .ok_or_else(|| {
            Error::at(
                src,
                format!(
                    "'{RULE_NAME}' applies only to functions registered with an {PREFIX} global (allocator, size argument index, deallocator argument indices, deallocator)"
                ),
            )
        })
}

/// The shadow block: the same call again, zeroed over the size argument's bytes.
fn allocation_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let reg = registration_at(c.env.module(), c.src)?;
    let shadow = c.call.clone_instruction();
    c.b.insert(shadow);
    let size = c.args[reg.size_arg];
    let size = c.b.zext_or_trunc(size, c.env.module().intptr_ty());
    c.b.memset_zero(shadow, size, 1);
    Ok(Some(shadow))
}

/// Augmented sweep: the primal call and the shadow, saved for the adjoint sweep to release
/// (and recorded for release should an exception unwind first, when the deallocator takes the
/// block first, as the unwinding bookkeeping calls it).
fn allocation_augment(c: &mut AugmentCall) -> Result<Augmented> {
    let reg = registration_at(c.env.module(), c.src)?;
    let call = c.primal_call();
    let shadow = c.forward_shadow(call)?;
    if let Some(s) = shadow {
        if reg.dealloc_args.first() == Some(&-1) {
            let extras: Vec<Val> = reg.dealloc_args[1..]
                .iter()
                .map(|&k| c.args[k as usize])
                .collect();
            crate::tape::owned::record(c.b, s, reg.dealloc, &extras);
        }
    }
    Ok(Augmented {
        result: Some(call),
        shadow,
        saved: shadow,
    })
}

/// Adjoint sweep: the registered deallocator releases the shadow.
fn allocation_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let Some(shadow) = c.saved else {
        return Ok(Vec::new());
    };
    let reg = registration_at(c.env.module(), c.src)?;
    let args: Vec<Val> = reg
        .dealloc_args
        .iter()
        .map(|&k| if k < 0 { shadow } else { c.args[k as usize] })
        .collect();
    c.b.call_function(reg.dealloc, &args);
    Ok(Vec::new())
}

static ALLOCATION_REVERSE: CustomReverse = CustomReverse {
    augment: allocation_augment,
    adjoint: allocation_adjoint,
    needs: CustomNeeds {
        args: ArgNeeds::All,
        result: false,
        saved: true,
        shadows_only: ArgNeeds::None,
    },
};

/// The rule of every registered allocator.
pub static RULES: &[Rule] = &[Rule {
    name: RULE_NAME,
    aliases: &[],
    libm_variants: false,
    area: Area::Alloc,
    kind: RuleKind::Forward(
        allocation_forward as ForwardRule,
        Reverse::Custom(&ALLOCATION_REVERSE),
    ),
    // The allocator's body is the user's: it may read and write its arguments (a bump
    // offset) and any state besides, so nothing is assumed of it but the fresh block.
    effects: Effects {
        reads: true,
        writes: true,
        allocates: true,
        hidden: Hidden::Anything,
        ..Effects::NONE
    },
}];
