//! Allocation rules: every allocation of differentiable memory gets a shadow allocation of the
//! same size, zeroed, made by the same allocator; `free` releases the shadow alongside.

use super::{Area, ForwardCall, ForwardRule, Reverse, Rule, RuleKind};
use crate::diag::{Error, Result};
use crate::ir::Val;

macro_rules! alloc {
    ($name:literal, [$($alias:literal),*], $fwd:expr, $rev:expr) => {
        Rule {
            name: $name,
            aliases: &[$($alias),*],
            libm_variants: false,
            area: Area::Alloc,
            kind: RuleKind::Forward($fwd as ForwardRule, $rev),
        }
    };
}

/// Every allocation rule.
pub static RULES: &[Rule] = &[
    alloc!("malloc", [], malloc_forward, Reverse::Allocate),
    alloc!("calloc", [], calloc_forward, Reverse::Allocate),
    alloc!(
        "realloc",
        [],
        realloc_forward,
        Reverse::NotYet(
            "realloc is not supported in reverse mode yet (earlier shadow addresses would dangle)"
        )
    ),
    alloc!("free", [], free_forward, Reverse::Free),
];

/// The same call again: a second allocation of the same size.
fn same_call_again(c: &mut ForwardCall) -> Val {
    let s = c.call.clone_instruction();
    c.b.insert(s);
    s
}

fn malloc_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let shadow = same_call_again(c);
    let size = c.args[0];
    c.b.memset_zero(shadow, size, 1);
    Ok(Some(shadow))
}

fn calloc_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    // calloc zeroes its memory already.
    Ok(Some(same_call_again(c)))
}

fn realloc_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let old = match c.tangents[0] {
        Some(s) => s,
        None if c.args[0].is_null_constant() => c.args[0],
        None => return Err(Error::at(
            c.src,
            "realloc of memory without a shadow (a constant argument or global); pass it as dup",
        )),
    };
    let s = c.call.clone_instruction();
    s.set_operand(0, old);
    c.b.insert(s);
    Ok(Some(s))
}

fn free_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    if let Some(shadow) = c.tangents[0] {
        let s = c.call.clone_instruction();
        s.set_operand(0, shadow);
        c.b.insert(s);
    }
    Ok(None)
}
