//! Memory rules: `memcpy`, `memmove` and `memset` (intrinsics, inline variants and libc
//! functions). Shadows move alongside primals: a copy into shadowed memory copies the source's
//! shadow (or zeroes the destination's shadow when the source has none), a memset zeroes the
//! shadow. Copying differentiable data into memory without a shadow is an error, never a silent
//! loss of derivative.

use super::{
    AdjointCall, Area, ArgAdjoints, ArgNeeds, AugmentCall, Augmented, CustomNeeds, CustomReverse,
    Effects, ForwardCall, ForwardRule, Reverse, Rule, RuleKind,
};
use crate::diag::{Error, Result};
use crate::ir::{Builder, Ty, Val};
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

/// `masked.load(ptr, mask, passthru)`, `masked.gather(ptrs, mask, passthru)`: the adjoint
/// reads the mask and the shadow of the address(es).
static MASKED_LOAD: CustomReverse = CustomReverse {
    augment: primal_only,
    adjoint: masked_load_adjoint,
    needs: CustomNeeds {
        args: ArgNeeds::Positions(&[0, -2]),
        result: false,
        saved: false,
    },
};
/// `masked.store(value, ptr, mask)`, `masked.scatter(values, ptrs, mask)`.
static MASKED_STORE: CustomReverse = CustomReverse {
    augment: primal_only,
    adjoint: masked_store_adjoint,
    needs: CustomNeeds {
        args: ArgNeeds::Positions(&[1, -1]),
        result: false,
        saved: false,
    },
};

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
        Reverse::Custom(&MASKED_LOAD),
        Effects::READS
    ),
    mem!(
        "llvm.masked.store",
        ["llvm.masked.scatter"],
        masked_store_forward,
        Reverse::Custom(&MASKED_STORE),
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

/// The augmented sweep of a masked access: the access itself (reverse mode's shadows hold
/// adjoints, which the forward sweep leaves alone).
fn primal_only(c: &mut AugmentCall) -> Result<Augmented> {
    let call = c.primal_call();
    Ok(Augmented {
        result: (!call.ty().is_void()).then_some(call),
        shadow: None,
        saved: None,
    })
}

fn is_gather_or_scatter(c: &AdjointCall) -> bool {
    let name = c
        .src
        .called_function()
        .map(|f| f.name())
        .unwrap_or_default();
    name.starts_with("llvm.masked.gather") || name.starts_with("llvm.masked.scatter")
}

/// `mask` with every lane but `k` cleared.
fn lane_mask(b: &mut Builder, mask: Val, k: u32) -> Val {
    let bit = b.extract_lane(mask, k);
    let i32t = Ty::int(mask.ty().context(), 32);
    b.insert_element(mask.ty().zero(), bit, i32t.int_const(k as u64))
}

/// A masked read of `vty` values from `at` (a pointer, or a vector of them for gathers).
fn masked_read(b: &mut Builder, gather: bool, vty: Ty, at: Val, mask: Val) -> Result<Val> {
    let (name, overloads) = if gather {
        ("llvm.masked.gather", [vty, at.ty()])
    } else {
        ("llvm.masked.load", [vty, at.ty()])
    };
    b.intrinsic(name, &overloads, &[at, mask, vty.zero()])
        .ok_or_else(|| Error::general(format!("LLVM has no intrinsic {name} for {}", vty.print())))
}

/// A masked write of `v` to `at`.
fn masked_write(b: &mut Builder, gather: bool, v: Val, at: Val, mask: Val) -> Result<()> {
    let name = if gather {
        "llvm.masked.scatter"
    } else {
        "llvm.masked.store"
    };
    b.intrinsic(name, &[v.ty(), at.ty()], &[v, at, mask])
        .map(|_| ())
        .ok_or_else(|| {
            Error::general(format!(
                "LLVM has no intrinsic {name} for {}",
                v.ty().print()
            ))
        })
}

/// Adjoint of a masked load: the result's adjoint goes to the shadow under the mask and to the
/// passthru elsewhere. A gather may read one address in several lanes, so it accumulates lane
/// by lane.
fn masked_load_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let n = c.args.len();
    let mut adj = vec![None; n];
    let Some(d) = c.d_result else {
        return Ok(adj);
    };
    let mask = c.args[n - 2];
    adj[n - 1] = Some(c.b.select(mask, d.ty().zero(), d));
    let Some(shadow) = c.shadows[0] else {
        return Ok(adj);
    };
    let gather = is_gather_or_scatter(c);
    let lanes: Vec<Val> = if gather {
        (0..d.ty().vector_len())
            .map(|k| lane_mask(c.b, mask, k))
            .collect()
    } else {
        vec![mask]
    };
    for m in lanes {
        let cur = masked_read(c.b, gather, d.ty(), shadow, m)?;
        let sum = c.b.fadd(cur, d);
        masked_write(c.b, gather, sum, shadow, m)?;
    }
    Ok(adj)
}

/// Adjoint of a masked store: the stored value's adjoint is read from the shadow under the
/// mask, which is then zeroed (the store overwrote those lanes). A scatter's highest lane wins
/// when lanes share an address, so lanes are visited from the highest down: a lower lane with
/// the same address then reads the zero its winner left.
fn masked_store_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let n = c.args.len();
    let mut adj = vec![None; n];
    let Some(shadow) = c.shadows[1] else {
        return Ok(adj);
    };
    let mask = c.args[n - 1];
    let vty = c.src.operand(0).ty();
    let gather = is_gather_or_scatter(c);
    let lanes: Vec<Val> = if gather {
        (0..vty.vector_len())
            .rev()
            .map(|k| lane_mask(c.b, mask, k))
            .collect()
    } else {
        vec![mask]
    };
    let mut dv = vty.zero();
    for m in lanes {
        let part = masked_read(c.b, gather, vty, shadow, m)?;
        dv = c.b.fadd(dv, part);
        masked_write(c.b, gather, vty.zero(), shadow, m)?;
    }
    if c.active[0] {
        adj[0] = Some(dv);
    }
    Ok(adj)
}
