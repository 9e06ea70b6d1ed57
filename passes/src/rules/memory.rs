//! Memory rules: `memcpy`, `memmove` and `memset` (intrinsics, inline variants and libc
//! functions). Shadows move alongside primals: a copy into shadowed memory copies the source's
//! shadow (or zeroes the destination's shadow when the source has none), a memset zeroes the
//! shadow. Copying differentiable data into memory without a shadow is an error, never a silent
//! loss of derivative.

use super::{Area, Effects, ForwardCall, ForwardRule, Reverse, Rule, RuleKind};
use crate::diag::{Error, Result};
use crate::ir::{Ty, Val};
use crate::rules::user::is_inactive_memory;

macro_rules! mem {
    ($name:literal, [$($alias:literal),*], $fwd:expr, $rev:expr, $effects:expr) => {
        Rule {
            name: $name,
            aliases: &[$($alias),*],
            libm_variants: false,
            area: Area::Memory,
            kind: RuleKind::Forward($fwd as ForwardRule, $rev),
            effects: $effects,
        }
    };
}

const MASKED_NOT_YET: Reverse =
    Reverse::NotYet("masked vector memory operations are not supported in reverse mode yet");

/// Every memory rule.
pub static RULES: &[Rule] = &[
    mem!(
        "llvm.memcpy",
        ["llvm.memcpy.inline", "memcpy"],
        copy_forward,
        Reverse::Copy,
        Effects::READS_WRITES
    ),
    mem!(
        "llvm.memmove",
        ["memmove"],
        copy_forward,
        Reverse::Copy,
        Effects::READS_WRITES
    ),
    mem!(
        "llvm.memset",
        ["llvm.memset.inline", "memset"],
        set_forward,
        Reverse::Set,
        Effects::WRITES
    ),
    mem!(
        "llvm.masked.load",
        ["llvm.masked.gather"],
        masked_load_forward,
        MASKED_NOT_YET,
        Effects::READS
    ),
    mem!(
        "llvm.masked.store",
        ["llvm.masked.scatter"],
        masked_store_forward,
        MASKED_NOT_YET,
        Effects::READS_WRITES
    ),
];

/// `masked.load(ptr, mask, passthru)` / `masked.gather(ptrs, mask, passthru)`: the same masked
/// load from the shadow, with the passthru's tangent in the masked-off lanes.
fn masked_load_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let Some(shadow) = c.tangents[0] else {
        // Memory without a shadow holds constants; the passthru lanes keep their tangent.
        return Ok(None);
    };
    let last = c.args.len() - 1;
    let passthru = c.tangents[last].unwrap_or_else(|| c.args[last].ty().zero());
    Ok(Some(shadow_call(
        c,
        &[(0, shadow), (last as u32, passthru)],
    )))
}

/// `masked.store(value, ptr, mask)` / `masked.scatter(values, ptrs, mask)`: the value's
/// tangent goes to the shadow under the same mask.
fn masked_store_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    match (c.tangents[1], c.tangents[0]) {
        (Some(shadow), t) => {
            let t = t.unwrap_or_else(|| c.args[0].ty().zero());
            shadow_call(c, &[(0, t), (1, shadow)]);
        }
        (None, Some(_)) => {
            return Err(Error::at(
                c.src,
                "stores values with derivatives into memory without a shadow (a constant argument or global); pass the destination as dup",
            ))
        }
        (None, None) => {}
    }
    Ok(None)
}

/// A second call like the primal one, on the shadow operands.
fn shadow_call(c: &mut ForwardCall, replace: &[(u32, Val)]) -> Val {
    let s = c.call.clone_instruction();
    for &(i, v) in replace {
        s.set_operand(i, v);
    }
    c.b.insert(s);
    s
}

fn copy_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    let (dst, src) = (c.tangents[0], c.tangents[1]);
    match (dst, src) {
        (Some(sd), Some(ss)) => {
            shadow_call(c, &[(0, sd), (1, ss)]);
        }
        (Some(sd), None) => {
            // The source is constant memory: the copied values have zero tangent.
            let len = c.args[2];
            c.b.memset_zero(sd, len, 1);
        }
        (None, Some(_)) if !is_inactive_memory(c.src.operand(0), &c.session.opts) => {
            return Err(Error::at(
                c.src,
                "copies memory with derivatives into memory without a shadow (a constant argument or global); pass the destination as dup",
            ))
        }
        (None, _) => {}
    }
    Ok(returned_pointer(c, dst))
}

fn set_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
    if let Some(sd) = c.tangents[0] {
        let zero = Ty::int(c.b.module().context(), 8).zero();
        let byte = if c.args[1].ty().int_width() == 8 {
            zero
        } else {
            c.args[1].ty().zero()
        };
        shadow_call(c, &[(0, sd), (1, byte)]);
    }
    Ok(returned_pointer(c, c.tangents[0]))
}

/// libc `memcpy`/`memset` return their destination; the intrinsics return nothing.
fn returned_pointer(c: &ForwardCall, shadow_dst: Option<Val>) -> Option<Val> {
    if c.call.ty().is_ptr() {
        shadow_dst
    } else {
        None
    }
}
