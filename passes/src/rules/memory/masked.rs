//! The masked loads and stores (`llvm.masked.{load,store,gather,scatter}`): their forward
//! halves, and adjoints that add into (or move out of) the shadow lanes the mask selects.

use super::*;

/// `masked.load(ptr, mask, passthru)` / `masked.gather(ptrs, mask, passthru)`: the same masked
/// load from the shadow, with the passthru's tangent in the masked-off lanes.
pub(super) fn masked_load_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
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
pub(super) fn masked_store_forward(c: &mut ForwardCall) -> Result<Option<Val>> {
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

pub(super) fn is_gather_or_scatter(c: &AdjointCall) -> bool {
    let name = c
        .src
        .called_function()
        .map(|f| f.name())
        .unwrap_or_default();
    name.starts_with("llvm.masked.gather") || name.starts_with("llvm.masked.scatter")
}

/// True when no two lanes of the gather's or scatter's address vector (operand `k` of the
/// primal call) touch the same memory: then one masked access serves every lane at once.
pub(super) fn lanes_apart(c: &AdjointCall, k: u32, vty: Ty) -> bool {
    let m = c.env.module();
    lanes_disjoint(m, c.src.operand(k), m.store_size(vty.element()))
}

/// `mask` with every lane but `k` cleared.
pub(super) fn lane_mask(b: &mut Builder, mask: Val, k: u32) -> Val {
    let bit = b.extract_lane(mask, k);
    let i32t = Ty::int(mask.ty().context(), 32);
    b.insert_element(mask.ty().zero(), bit, i32t.int_const(k as u64))
}

/// A masked read of `vty` values from `at` (a pointer, or a vector of them for gathers).
pub(super) fn masked_read(
    b: &mut Builder,
    gather: bool,
    vty: Ty,
    at: Val,
    mask: Val,
) -> Result<Val> {
    let (name, overloads) = if gather {
        ("llvm.masked.gather", [vty, at.ty()])
    } else {
        ("llvm.masked.load", [vty, at.ty()])
    };
    b.intrinsic(name, &overloads, &[at, mask, vty.zero()])
        .ok_or_else(|| Error::general(format!("LLVM has no intrinsic {name} for {}", vty.print())))
}

/// A masked write of `v` to `at`.
pub(super) fn masked_write(
    b: &mut Builder,
    gather: bool,
    v: Val,
    at: Val,
    mask: Val,
) -> Result<()> {
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
pub(super) fn masked_load_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
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
    if gather && lanes_uniform(c.env.module(), c.src.operand(0)) {
        return gather_one_address_adjoint(c, d, shadow, mask).map(|()| adj);
    }
    let lanes: Vec<Val> = if gather && !lanes_apart(c, 0, d.ty()) {
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

/// A gather whose lanes all read one address (a loop-invariant element broadcast under a
/// mask): the active lanes' adjoints are summed and added to that one shadow element, which is
/// touched only when some lane is active (masked-off lanes need not point anywhere valid).
pub(super) fn gather_one_address_adjoint(
    c: &mut AdjointCall,
    d: Val,
    shadow: Val,
    mask: Val,
) -> Result<()> {
    let ety = d.ty().element();
    let ctx = ety.context();
    let active = c.b.select(mask, d, d.ty().zero());
    let sum =
        c.b.intrinsic(
            "llvm.vector.reduce.fadd",
            &[d.ty()],
            &[ety.float_const(-0.0), active],
        )
        .ok_or_else(|| Error::general("LLVM has no intrinsic llvm.vector.reduce.fadd"))?;
    let any =
        c.b.intrinsic("llvm.vector.reduce.or", &[mask.ty()], &[mask])
            .ok_or_else(|| Error::general("LLVM has no intrinsic llvm.vector.reduce.or"))?;
    let one = Ty::vector(ety, 1);
    let i32t = Ty::int(ctx, 32);
    let any1 =
        c.b.insert_element(Ty::vector(Ty::int(ctx, 1), 1).poison(), any, i32t.zero());
    let at = c.b.extract_lane(shadow, 0);
    let cur = masked_read(c.b, false, one, at, any1)?;
    let sum1 = c.b.insert_element(one.poison(), sum, i32t.zero());
    let new = c.b.fadd(cur, sum1);
    masked_write(c.b, false, new, at, any1)
}

/// Adjoint of a masked store: the stored value's adjoint is read from the shadow under the
/// mask, which is then zeroed (the store overwrote those lanes). A scatter's highest lane wins
/// when lanes share an address, so lanes are visited from the highest down: a lower lane with
/// the same address then reads the zero its winner left. The zeroing is skipped when nothing
/// reads those shadow bytes again ([`AdjointCall::zeroing_dead`]) and no two lanes share an
/// address (the analysis does not look at lanes of one execution).
pub(super) fn masked_store_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let n = c.args.len();
    let mut adj = vec![None; n];
    let Some(shadow) = c.shadows[1] else {
        return Ok(adj);
    };
    let mask = c.args[n - 1];
    let vty = c.src.operand(0).ty();
    let gather = is_gather_or_scatter(c);
    let lanes: Vec<Val> = if gather && !lanes_apart(c, 1, vty) {
        (0..vty.vector_len())
            .rev()
            .map(|k| lane_mask(c.b, mask, k))
            .collect()
    } else {
        vec![mask]
    };
    let clear = !(c.zeroing_dead && lanes.len() == 1);
    let mut dv: Option<Val> = None;
    for m in lanes {
        let part = masked_read(c.b, gather, vty, shadow, m)?;
        dv = Some(match dv {
            Some(sum) => c.b.fadd(sum, part),
            None => part,
        });
        if clear {
            masked_write(c.b, gather, vty.zero(), shadow, m)?;
        }
    }
    if c.active[0] {
        adj[0] = dv;
    }
    Ok(adj)
}
