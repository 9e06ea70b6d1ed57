//! Memory rules: `memcpy`, `memmove` and `memset` (intrinsics, inline variants and libc
//! functions) and masked vector loads and stores, forward and reverse halves side by side.
//!
//! Forward mode: shadows move alongside primals: a copy into shadowed memory copies the source's
//! shadow (or zeroes the destination's shadow when the source has none), a memset zeroes the
//! shadow. Reverse mode: shadow bytes at float offsets are adjoint accumulators, so a copy's
//! adjoint adds the destination's shadow into the source's and zeroes it (the element type comes
//! from [`crate::analysis::contents`]), and a memset's adjoint zeroes the destination's shadow.
//! Copying differentiable data into memory without a shadow is an error, never a silent loss of
//! derivative.

use super::calls::{primal_only, RuleEnv};
use super::calls::{
    AdjointCall, ArgAdjoints, ArgNeeds, AugmentCall, Augmented, CustomNeeds, CustomReverse,
    ForwardCall, ForwardRule,
};
use super::rule::{Area, Effects, Extent, Hidden, Reverse, Rule, RuleKind};
use crate::analysis::contents::{
    accessed_locally, infer_contents, infer_pointer_layout, layout_from_types, tbaa_struct_layout,
    Contents, PointerLayout,
};
use crate::analysis::lanes::{lanes_disjoint, lanes_uniform};
use crate::analysis::types::bytes::PARTIAL_ADVICE;
use crate::diag::{Error, Result};
use crate::ir::{Builder, IntPred, Module, Opcode, Ty, Val};

mod masked;

use masked::{
    masked_load_adjoint, masked_load_forward, masked_store_adjoint, masked_store_forward,
};

macro_rules! mem {
    ($name:literal, [$($alias:literal),*], $fwd:expr, $rev:expr, $effects:expr) => {
        Rule {
            name: $name,
            aliases: &[$($alias),*],
            libm_variants: false,
            area: Area::Memory,
            kind: RuleKind::Forward($fwd as ForwardRule, $rev),
            effects: $effects.hiding(Hidden::None),
        }
    };
}

/// `masked.load(ptr, mask, passthru)`, `masked.gather(ptrs, mask, passthru)`: the adjoint
/// reads the mask and the shadow of the address(es).
static MASKED_LOAD: CustomReverse = CustomReverse {
    augment: primal_only,
    adjoint: masked_load_adjoint,
    needs: CustomNeeds {
        args: ArgNeeds::Positions(&[-2]),
        result: false,
        saved: false,
        shadows_only: ArgNeeds::Positions(&[0]),
    },
};
/// `masked.store(value, ptr, mask)`, `masked.scatter(values, ptrs, mask)`.
static MASKED_STORE: CustomReverse = CustomReverse {
    augment: primal_only,
    adjoint: masked_store_adjoint,
    needs: CustomNeeds {
        args: ArgNeeds::Positions(&[-1]),
        result: false,
        saved: false,
        shadows_only: ArgNeeds::Positions(&[1]),
    },
};

/// `memcpy(dst, src, len)`, `memmove`: the adjoint reads both shadows and the length.
static COPY: CustomReverse = CustomReverse {
    augment: copy_augment,
    adjoint: copy_adjoint,
    needs: CustomNeeds {
        args: ArgNeeds::Positions(&[0, 1, 2]),
        result: false,
        saved: false,
        shadows_only: ArgNeeds::None,
    },
};
/// `memset(dst, byte, len)`: the adjoint reads the destination's shadow and the length.
static SET: CustomReverse = CustomReverse {
    augment: primal_only,
    adjoint: set_adjoint,
    needs: CustomNeeds {
        args: ArgNeeds::Positions(&[0, 2]),
        result: false,
        saved: false,
        shadows_only: ArgNeeds::None,
    },
};

/// True for the `memcpy`/`memmove` rules.
pub fn is_copy(rule: &Rule) -> bool {
    matches!(rule.kind, RuleKind::Forward(_, Reverse::Custom(c)) if std::ptr::eq(c, &COPY))
}

/// `memcpy(dst, src, len)`, `memmove`: `len` bytes written at `dst`, read at `src`.
const COPY_EFFECTS: Effects = Effects::READS_WRITES
    .writing_arg(0, Extent::CountIn(2))
    .reading_arg(1, Extent::CountIn(2));

/// Every memory rule.
pub static RULES: &[Rule] = &[
    mem!(
        "llvm.memcpy",
        ["llvm.memcpy.inline", "memcpy", "__asan_memcpy"],
        copy_forward,
        Reverse::Custom(&COPY),
        COPY_EFFECTS
    ),
    mem!(
        "llvm.memmove",
        ["memmove", "__asan_memmove"],
        copy_forward,
        Reverse::Custom(&COPY),
        COPY_EFFECTS
    ),
    mem!(
        "llvm.memset",
        ["llvm.memset.inline", "memset", "__asan_memset"],
        set_forward,
        Reverse::Custom(&SET),
        Effects::WRITES.writing_arg(0, Extent::CountIn(2))
    ),
    mem!(
        "llvm.masked.load",
        ["llvm.masked.gather"],
        masked_load_forward,
        Reverse::Custom(&MASKED_LOAD),
        Effects::READS.reading_arg(0, Extent::VectorOf(None))
    ),
    mem!(
        "llvm.masked.store",
        ["llvm.masked.scatter"],
        masked_store_forward,
        Reverse::Custom(&MASKED_STORE),
        Effects::READS_WRITES.writing_arg(1, Extent::VectorOf(Some(0)))
    ),
];

/// True when `source` is a global whose contents hold pointers.
fn holds_pointers(source: Val) -> bool {
    let base = if source.is_constant_expr() && source.const_opcode() == Opcode::LLVMGetElementPtr {
        source.operand(0)
    } else {
        source
    };
    base.is_global_variable() && base.global_value_type().contains_ptr()
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
        (Some(sd), None) if crate::analysis::objects::is_code_only_constant(c.src.operand(1)) => {
            // A table of functions (a local copy of one): its own shadow, as its pointers are.
            let source = c.args[1];
            shadow_call(c, &[(0, sd), (1, source)]);
        }
        (Some(sd), None) if holds_pointers(c.args[1]) => {
            // A constant table of pointers to read-only data: the tangents of what they point
            // at are zeros (read-only copies). Null shadow pointers would be read through.
            let m = c.env.module();
            let env = &mut *c.env;
            let zeros = stand_in_table(m, c.args[1], "tangent_zeros", &mut |base| {
                env.zero_shadow_of_constant(base)
            })
            .ok_or_else(|| {
                Error::at(
                    c.src,
                    "copies pointers from memory without a shadow (a constant global) into differentiable memory; their tangents are unknown: pass the source as dup",
                )
            })?;
            shadow_call(c, &[(0, sd), (1, zeros)]);
        }
        (Some(sd), None) => {
            // The source is constant memory: the copied values have zero tangent.
            let len = c.args[2];
            c.b.memset_zero(sd, len, 1);
        }
        (None, Some(_)) if !c.env.is_inactive_memory(c.src.operand(0)) => {
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

/// The augmented sweep of a copy: the primal copy, and the copy of the shadows of the pointers
/// it moves (where [`infer_pointer_layout`] locates them), so that later loads of those pointers
/// find their shadows. Shadow bytes at float offsets hold adjoints, which the forward sweep
/// leaves alone; copying differentiable memory into memory without a shadow is refused.
fn copy_augment(c: &mut AugmentCall) -> Result<Augmented> {
    if c.shadows[0].is_none()
        && c.shadows[1].is_some()
        && !c.env.is_inactive_memory(c.src.operand(0))
    {
        return Err(Error::at(
            c.src,
            "copies memory with derivatives into memory without a shadow (a constant argument or global); pass the destination as dup",
        ));
    }
    let call = c.primal_call();
    if let Some(sd) = c.shadows[0] {
        copy_pointer_shadows(c, sd)?;
    }
    Ok(Augmented {
        result: (!call.ty().is_void()).then_some(call),
        shadow: call.ty().is_ptr().then_some(c.shadows[0]).flatten(),
        saved: None,
    })
}

/// Where a copy moves pointers and floats: from the other accesses to the same memory in its
/// function, or, when it has none (a helper that only copies what it is given), from the
/// module-wide type analysis of what its callers pass.
fn copy_layout(env: &dyn RuleEnv, f: Val, copy: Val) -> Result<Option<PointerLayout>> {
    // The copy's own `!tbaa.struct` says it best, wherever the memory is accessed.
    if let Some(layout) = tbaa_struct_layout(env.module(), copy) {
        return Ok(layout);
    }
    if plain_constant_source(copy) {
        // What it copies carries neither a derivative nor a pointer.
        return Ok(Some(PointerLayout::Strided {
            stride: 1,
            pointers: Vec::new(),
            floats: Vec::new(),
        }));
    }
    if accessed_locally(f, copy) {
        // The accesses in `f` may not place every float and pointer (a copy of one field of a
        // larger object, Eigen's expression objects); the module-wide type analysis may,
        // byte by byte. Only when neither can is the copy refused.
        return match infer_pointer_layout(f, copy) {
            Err(local) => layout_from_types(env.types(), env.module(), copy)
                .map(Some)
                .map_err(|_| local),
            Ok(found) if !local_floats(f, copy, &found) => {
                // The accesses in `f` saw no float in the copied objects, but they may all be
                // to other bytes of them (libstdc++'s map copy clones a node's value with a
                // memcpy where it touches only the links and the colour): where the type
                // analysis places floats in the copied bytes themselves, those need adjoints.
                Ok(typed_floats(env, copy).map(Some).unwrap_or(found))
            }
            found => found,
        };
    }
    layout_from_types(env.types(), env.module(), copy).map(Some)
}

/// True when `copy` reads only constant globals whose initialisers hold neither floats nor
/// pointers: a string literal initialising a local `char s[] = "..."` (-O0 copies it with a
/// memcpy, which nothing else in the function may access to tell its type by).
fn plain_constant_source(copy: Val) -> bool {
    let bases = crate::analysis::objects::underlying_objects(copy.operand(1));
    !bases.is_empty()
        && bases.iter().all(|g| {
            g.is_global_variable()
                && g.is_global_constant()
                && g.initializer().is_some()
                && !g.global_value_type().contains_float()
                && !g.global_value_type().contains_ptr()
        })
}

/// Whether the local inference placed floats in what `copy` moves: the float slots of its
/// layout, or (without pointers) the element type [`infer_contents`] finds; an error there
/// counts as floats, so that it is still reported.
fn local_floats(f: Val, copy: Val, found: &Option<PointerLayout>) -> bool {
    match found {
        Some(PointerLayout::Strided { floats, .. }) => !floats.is_empty(),
        Some(PointerLayout::OnlyPointers | PointerLayout::IntegersUpTo(_)) => false,
        None => !matches!(infer_contents(f, copy), Ok(Contents::NoFloats)),
    }
}

/// The type analysis's layout of what `copy` moves, when it has floats.
fn typed_floats(env: &dyn RuleEnv, copy: Val) -> Option<PointerLayout> {
    match layout_from_types(env.types(), env.module(), copy) {
        Ok(l @ PointerLayout::Strided { .. }) if matches!(&l, PointerLayout::Strided { floats, .. } if !floats.is_empty()) => {
            Some(l)
        }
        _ => None,
    }
}

/// The shadow a constant global `table` of pointers to read-only data without pointers (or
/// null) stands in with (clang -O0 initialises a local `const double *s[] = {wa, wb}` by
/// copying one): a constant of the same layout whose pointers are replaced by `target(base)`
/// (with the same constant offsets). `None` for anything else. `kind` names the stand-in.
fn stand_in_table(
    m: crate::ir::Module,
    table: Val,
    kind: &str,
    target: &mut dyn FnMut(Val) -> Val,
) -> Option<Val> {
    if !table.is_global_variable() || !table.is_global_constant() {
        return None;
    }
    let name = format!("{}.{kind}", table.name());
    if let Some(s) = m.global(&name) {
        return Some(s);
    }
    let init = stand_in_constant(table.initializer()?, target)?;
    let s = m.add_global(init.ty(), &name);
    s.set_initializer(init);
    s.set_global_constant(true);
    s.set_internal();
    s.set_alignment(table.alignment());
    Some(s)
}

/// `c` (part of a table's initializer) with each pointer replaced as [`stand_in_table`] says;
/// `None` when a pointer is not to read-only data without pointers.
fn stand_in_constant(c: Val, target: &mut dyn FnMut(Val) -> Val) -> Option<Val> {
    let ty = c.ty();
    if !ty.contains_ptr() || c.is_null_constant() {
        return Some(c);
    }
    if ty.is_ptr() {
        let gep = c.is_constant_expr() && c.const_opcode() == Opcode::LLVMGetElementPtr;
        let base = if gep { c.operand(0) } else { c };
        if !base.is_global_variable()
            || !base.is_global_constant()
            || base.global_value_type().contains_ptr()
        {
            return None;
        }
        let t = target(base);
        if !gep {
            return Some(t);
        }
        let idx: Vec<Val> = (1..c.num_operands()).map(|k| c.operand(k)).collect();
        return Some(Val::const_gep(c.gep_source_type(), t, &idx));
    }
    let n = match ty.kind() {
        crate::ir::TyKind::Struct => ty.struct_fields().len() as u32,
        crate::ir::TyKind::Array => ty.array_len() as u32,
        crate::ir::TyKind::Vector => ty.vector_len(),
        _ => return None,
    };
    let parts: Option<Vec<Val>> = (0..n)
        .map(|k| {
            c.aggregate_element(k)
                .and_then(|e| stand_in_constant(e, target))
        })
        .collect();
    Some(Val::const_aggregate(ty, &parts?))
}

/// Reverse mode's stand-in for a constant table of pointers ([`stand_in_table`]): pointers to
/// *sinks*, zeroed writable globals as large as the data, which the adjoint adds the (unused)
/// adjoints of the constants read through the copied pointers into and nothing reads. A
/// read-only zero copy would not do: the adjoint writes where those loads read. (Not
/// thread-local: a constant table cannot hold a thread-local address; threads adding into a
/// sink at once only garble what nobody reads.)
fn sink_table(m: crate::ir::Module, table: Val) -> Option<Val> {
    stand_in_table(m, table, "adjoint_sinks", &mut |base| {
        let name = format!("{}.adjoint_sink", base.name());
        m.global(&name).unwrap_or_else(|| {
            let t = base.global_value_type();
            let g = m.add_global(t, &name);
            g.set_initializer(t.zero());
            g.set_internal();
            g.set_alignment(base.alignment());
            g
        })
    })
}

/// Copies the shadows of the pointers a copy moves into the destination's shadow.
fn copy_pointer_shadows(c: &mut AugmentCall, sd: Val) -> Result<()> {
    let f = c
        .src
        .parent_function()
        .ok_or_else(|| Error::internal(c.src, "a copy outside a function"))?;
    let Some(layout) = copy_layout(c.env, f, c.src)? else {
        return Ok(());
    };
    if let PointerLayout::IntegersUpTo(n) = layout {
        check_integer_bound(c, n);
        return Ok(());
    }
    if matches!(&layout, PointerLayout::Strided { pointers, .. } if pointers.is_empty()) {
        return Ok(());
    }
    let code_only_source = crate::analysis::objects::is_code_only_constant(c.src.operand(1));
    // A table of functions (copied into a local table) is its own shadow, as its pointers are.
    // A constant table of pointers to read-only data (clang -O0 initialises a local
    // `const double *s[] = {wa, wb}` by copying one) stands in with a table of pointers to
    // adjoint sinks ([`sink_table`]).
    let substitute = match c.shadows[1] {
        None if !code_only_source => sink_table(c.env.module(), c.args[1]),
        _ => None,
    };
    let Some(ss) = c.shadows[1]
        .or(code_only_source.then_some(c.args[1]))
        .or(substitute)
    else {
        // Pointers copied from memory without a shadow would leave null shadows behind.
        return Err(Error::at(
            c.src,
            "copies pointers from memory without a shadow (a constant argument or global) into differentiable memory; their shadows are unknown: pass the source as dup",
        ));
    };
    match layout {
        PointerLayout::OnlyPointers => {
            let s = c.src.clone_instruction();
            for (k, &a) in c.args.iter().enumerate() {
                s.set_operand(k as u32, a);
            }
            s.set_operand(0, sd);
            s.set_operand(1, ss);
            c.b.insert(s);
        }
        PointerLayout::Strided {
            stride, pointers, ..
        } => {
            let m = c.env.module();
            let ptr = Ty::ptr(m.context());
            let slots: Vec<(u64, Ty)> = pointers.into_iter().map(|o| (o, ptr)).collect();
            let helper = slot_helper(m, stride, &slots, SlotOp::Copy);
            let len = c.b.zext_or_trunc(c.args[2], Ty::int(m.context(), 64));
            c.b.call_function(helper, &[sd, ss, len]);
        }
        // Handled above.
        PointerLayout::IntegersUpTo(_) => {}
    }
    Ok(())
}

/// Adjoint of a copy: the destination's shadow is added into the source's, then zeroed (the
/// copy overwrote the destination). A source without a shadow only gets the zeroing.
fn copy_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    let adj = vec![None; c.args.len()];
    let Some(sd) = c.shadows[0] else {
        return Ok(adj);
    };
    let len = c.args[2];
    let f = c
        .src
        .parent_function()
        .ok_or_else(|| Error::internal(c.src, "a copy outside a function"))?;
    // Where pointers were copied, the destination's shadow holds their shadows (which stay for
    // the user's shadow memory): only the float slots get adjoint semantics.
    match copy_layout(c.env, f, c.src)? {
        // Integers (the forward sweep checked the length): no adjoint.
        Some(PointerLayout::OnlyPointers | PointerLayout::IntegersUpTo(_)) => return Ok(adj),
        Some(PointerLayout::Strided { stride, floats, .. }) => {
            if !floats.is_empty() {
                let m = c.env.module();
                let slots: Vec<(u64, u64, Ty)> = floats
                    .iter()
                    .map(|&(o, t)| (o, m.store_size(t), t))
                    .collect();
                check_whole_floats(c, len, stride, &slots)?;
                let helper = slot_helper(m, stride, &floats, SlotOp::Accumulate);
                let len = c.b.zext_or_trunc(len, Ty::int(m.context(), 64));
                // Without a source shadow, accumulating a slot into itself and zeroing it
                // leaves just the zeroing.
                let ss = c.shadows[1].unwrap_or(sd);
                c.b.call_function(helper, &[sd, ss, len]);
            }
            return Ok(adj);
        }
        None => {}
    }
    if let Some(ss) = c.shadows[1] {
        if let Contents::Floats(elem) = infer_contents(f, c.src)? {
            let size = c.env.module().alloc_size(elem);
            check_whole_floats(c, len, size, &[(0, size, elem)])?;
            let helper = adjoint_copy_helper(c.env.module(), elem);
            c.b.call_function(helper, &[sd, ss, len]);
            return Ok(adj);
        }
    }
    c.b.memset_zero(sd, len, 1);
    Ok(adj)
}

/// Refuses a copy whose length ends inside a float of its `stride`-byte elements (`slots`:
/// offset, size and type of each float): the adjoint moves floats whole, so the float copied in
/// part would get a wrong adjoint or none. A constant length is judged here (an error naming
/// the copy); any other is checked when the adjoint runs, which stops the program with the
/// copy's source location before a gradient is returned.
fn check_whole_floats(
    c: &mut AdjointCall,
    len: Val,
    stride: u64,
    slots: &[(u64, u64, Ty)],
) -> Result<()> {
    // The float at offset `o` of the element holding byte `len`: the copy ends inside it when
    // `0 < (len - o) mod stride < sz` (and always, past `o`, for a float longer than the
    // element: the layout then splits floats between elements).
    let ends_inside = |n: u64| {
        slots.iter().find(|&&(o, sz, _)| {
            n > o && (sz > stride || (!(n - o).is_multiple_of(stride) && (n - o) % stride < sz))
        })
    };
    let what = |t: Ty| {
        format!(
            "copies a length that ends inside a '{}' of the {stride}-byte elements it moves; {PARTIAL_ADVICE}",
            t.print()
        )
    };
    if let Some(n) = len.const_int_value() {
        return match ends_inside(n) {
            Some(&(_, _, t)) => Err(Error::at(c.src, what(t))),
            None => Ok(()),
        };
    }
    if slots.iter().all(|&(o, sz, _)| o + sz <= stride) && multiple_of(len, stride) {
        return Ok(()); // whole elements: `n * sizeof(T)`
    }
    let m = c.env.module();
    let i64t = Ty::int(m.context(), 64);
    let i1 = Ty::int(m.context(), 1);
    let len = c.b.zext_or_trunc(len, i64t);
    let mut partial = i1.zero();
    for &(o, sz, _) in slots {
        let past = c.b.icmp(IntPred::LLVMIntUGT, len, i64t.int_const(o));
        let inside = if sz > stride {
            past
        } else {
            let from = c.b.sub(len, i64t.int_const(o));
            let r = c.b.binop(Opcode::LLVMURem, from, i64t.int_const(stride));
            let some = c.b.icmp(IntPred::LLVMIntNE, r, i64t.zero());
            let short = c.b.icmp(IntPred::LLVMIntULT, r, i64t.int_const(sz));
            let r_inside = c.b.binop(Opcode::LLVMAnd, some, short);
            c.b.binop(Opcode::LLVMAnd, past, r_inside)
        };
        partial = c.b.binop(Opcode::LLVMOr, partial, inside);
    }
    let message = format!(
        "error: {}{}",
        crate::diag::Location::of_instruction(c.src),
        what(slots[0].2)
    );
    let (text, bytes) = crate::unwind::fatal_text(m, &message);
    let bytes = m.intptr_ty().int_const(bytes);
    c.b.call_function(partial_copy_check(m), &[partial, text, bytes]);
    Ok(())
}

/// The run-time check of a copy that moves integers only while it moves at most `n` bytes
/// ([`PointerLayout::IntegersUpTo`]): a longer one stops the program with an error naming the
/// copy, before any adjoint could be lost.
fn check_integer_bound(c: &mut AugmentCall, n: u64) {
    let m = c.env.module();
    let i64t = Ty::int(m.context(), 64);
    let len = c.b.zext_or_trunc(c.args[2], i64t);
    let longer = c.b.icmp(IntPred::LLVMIntUGT, len, i64t.int_const(n));
    let message = format!(
        "error: {}copies more than {n} bytes, past the integer data the type analysis found at its start into data it cannot tell apart; reverse mode cannot add adjoints there (copy with typed loads, or a constant length)",
        crate::diag::Location::of_instruction(c.src),
    );
    let (text, bytes) = crate::unwind::fatal_text(m, &message);
    let bytes = m.intptr_ty().int_const(bytes);
    c.b.call_function(partial_copy_check(m), &[longer, text, bytes]);
}

/// True when length `len` is evidently a multiple of `stride` (`n * 24`, `n << 3` for 8, and
/// their extensions), so no copy of whole elements needs checking.
fn multiple_of(len: Val, stride: u64) -> bool {
    if let Some(n) = len.const_int_value() {
        return n.is_multiple_of(stride);
    }
    if !len.is_instruction() {
        return false;
    }
    let factor = |v: Val| v.const_int_value();
    match len.opcode() {
        Opcode::LLVMZExt | Opcode::LLVMSExt => multiple_of(len.operand(0), stride),
        Opcode::LLVMMul => [len.operand(0), len.operand(1)]
            .into_iter()
            .any(|v| factor(v).is_some_and(|c| c.is_multiple_of(stride)) || multiple_of(v, stride)),
        Opcode::LLVMShl => factor(len.operand(1)).filter(|&k| k < 64).is_some_and(|k| {
            (1u64 << k).is_multiple_of(stride) || multiple_of(len.operand(0), stride)
        }),
        _ => false,
    }
}

/// `void umbra.check.copy(i1 partial, ptr text, intptr len)`: prints `text` and aborts when
/// `partial` (inactive when derived code is differentiated again, as every `umbra.check.`).
fn partial_copy_check(m: Module) -> Val {
    let name = format!("{}copy", super::inactive::CHECK_PREFIX);
    if let Some(f) = m.function(&name) {
        return f;
    }
    let ctx = m.context();
    let f = m.add_function(
        &name,
        Ty::function(
            Ty::void(ctx),
            &[Ty::int(ctx, 1), Ty::ptr(ctx), m.intptr_ty()],
            false,
        ),
    );
    f.set_internal();
    let p = f.params();
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let fail = f.append_block("partial");
    let done = f.append_block("done");
    b.position_at_end(entry);
    b.cond_br(p[0], fail, done);
    b.position_at_end(fail);
    crate::unwind::emit_fatal_text(&mut b, p[1], p[2]);
    b.unreachable();
    b.position_at_end(done);
    b.ret_void();
    f
}

/// Adjoint of a memset: the destination's shadow is zeroed (the set overwrote it).
fn set_adjoint(c: &mut AdjointCall) -> Result<ArgAdjoints> {
    if let Some(sd) = c.shadows[0] {
        c.b.memset_zero(sd, c.args[2], 1);
    }
    Ok(vec![None; c.args.len()])
}

/// `void umbra.adjoint.copy.<ty>(ptr dst_shadow, ptr src_shadow, i64 bytes)`: for each element,
/// `src[k] += dst[k]; dst[k] = 0`, from the last element down when `dst` is below `src` (a
/// memmove to a lower address), so that where the two overlap no adjoint is moved twice (see
/// [`adjoint_backwards`]). Plain IR, so it can be differentiated again.
pub fn adjoint_copy_helper(m: Module, elem: Ty) -> Val {
    let name = format!("umbra.adjoint.copy.{}", elem.print());
    if let Some(f) = m.function(&name) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let f = m.add_function(&name, Ty::function(Ty::void(ctx), &[ptr, ptr, i64t], false));
    f.set_internal();
    let [dst, src, bytes] = [f.params()[0], f.params()[1], f.params()[2]];
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let body = f.append_block("body");
    let done = f.append_block("done");
    b.position_at_end(entry);
    let size = i64t.int_const(m.alloc_size(elem));
    let n = b.binop(Opcode::LLVMUDiv, bytes, size);
    let backwards = adjoint_backwards(&mut b, dst, src);
    let empty = b.icmp(IntPred::LLVMIntEQ, n, i64t.zero());
    b.cond_br(empty, done, body);
    b.position_at_end(body);
    let j = b.phi(i64t);
    let last = b.sub(n, i64t.int_const(1));
    let back = b.sub(last, j);
    let k = b.select(backwards, back, j);
    let pd = b.gep(elem, dst, &[k], true);
    let ps = b.gep(elem, src, &[k], true);
    let d = b.load(elem, pd, 1);
    let s = b.load(elem, ps, 1);
    let sum = b.fadd(s, d);
    b.store(sum, ps, 1);
    b.store(elem.zero(), pd, 1);
    let next = b.add(j, i64t.int_const(1));
    let more = b.icmp(IntPred::LLVMIntULT, next, n);
    b.cond_br(more, body, done);
    j.add_incoming(i64t.zero(), entry);
    j.add_incoming(next, body);
    b.position_at_end(done);
    b.ret_void();
    f
}

/// Whether a copy's adjoint (`src += dst; dst = 0`, element by element) must run from the last
/// element down: when `dst` is below `src`. The adjoint undoes the copy in the order that
/// reads each destination element before anything is added into it: for a copy to a lower
/// address (`memmove(a, a + 1, ...)`) the destination element `k + 1` is source element `k`,
/// so going up would carry element `k`'s adjoint on into `k + 2` and beyond. (A copy is the
/// mirror image: it runs down when `dst` is above `src`.)
fn adjoint_backwards(b: &mut Builder, dst: Val, src: Val) -> Val {
    let i64t = Ty::int(dst.ty().context(), 64);
    let d = b.cast(Opcode::LLVMPtrToInt, dst, i64t);
    let s = b.cast(Opcode::LLVMPtrToInt, src, i64t);
    b.icmp(IntPred::LLVMIntULT, d, s)
}

/// What [`slot_helper`] does at each slot.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SlotOp {
    /// `dst = src` (the shadows of copied pointers; backwards when `dst` is above `src`, as
    /// memmove does).
    Copy,
    /// `src += dst; dst = 0` (the adjoint of copied floats).
    Accumulate,
}

/// `void umbra.{shadow,adjoint}.slots.<stride>.<slots>(ptr dst, ptr src, i64 bytes)`: applies
/// `op` at each slot `(offset, type)` of each `stride`-byte element of the first `bytes` bytes
/// (slots that do not fit whole are skipped). Plain IR, so it can be differentiated again.
fn slot_helper(m: Module, stride: u64, slots: &[(u64, Ty)], op: SlotOp) -> Val {
    let desc: String = slots
        .iter()
        .map(|(o, t)| format!(".{o}{}", t.print()))
        .collect();
    let kind = match op {
        SlotOp::Copy => "shadow",
        SlotOp::Accumulate => "adjoint",
    };
    let name = format!("umbra.{kind}.slots.{stride}{desc}");
    if let Some(f) = m.function(&name) {
        return f;
    }
    let ctx = m.context();
    let (ptr, i8t, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 8), Ty::int(ctx, 64));
    let f = m.add_function(&name, Ty::function(Ty::void(ctx), &[ptr, ptr, i64t], false));
    f.set_internal();
    let [dst, src, bytes] = [f.params()[0], f.params()[1], f.params()[2]];
    let mut b = Builder::new(m);
    let entry = f.append_block("entry");
    let body = f.append_block("body");
    let done = f.append_block("done");
    b.position_at_end(entry);
    let size = i64t.int_const(stride);
    let rounded = b.add(bytes, i64t.int_const(stride - 1));
    let n = b.binop(Opcode::LLVMUDiv, rounded, size);
    let backwards = match op {
        SlotOp::Copy => {
            let d = b.cast(Opcode::LLVMPtrToInt, dst, i64t);
            let s = b.cast(Opcode::LLVMPtrToInt, src, i64t);
            b.icmp(IntPred::LLVMIntUGT, d, s)
        }
        SlotOp::Accumulate => adjoint_backwards(&mut b, dst, src),
    };
    let empty = b.icmp(IntPred::LLVMIntEQ, n, i64t.zero());
    b.cond_br(empty, done, body);
    b.position_at_end(body);
    let j = b.phi(i64t);
    let last = b.sub(n, i64t.int_const(1));
    let back = b.sub(last, j);
    let k = b.select(backwards, back, j);
    let base = b.mul(k, size);
    // Going down, an element's slots go down too (a copy that moves by part of an element,
    // `memmove(c, (char *)c + 8, ...)` on pairs of doubles, overlaps slot by slot); slots of
    // different types cannot meet that way, so only equal types need the order at run time.
    let same_type = slots.windows(2).all(|w| w[0].1 == w[1].1);
    for (p, &(o, t)) in slots.iter().enumerate() {
        let offset = i64t.int_const(o);
        let offset = if same_type && slots.len() > 1 {
            let mirrored = i64t.int_const(slots[slots.len() - 1 - p].0);
            b.select(backwards, mirrored, offset)
        } else {
            offset
        };
        let at = b.add(base, offset);
        let end = b.add(at, i64t.int_const(m.store_size(t)));
        let fits = b.icmp(IntPred::LLVMIntULE, end, bytes);
        let slot = f.append_block("slot");
        let next = f.append_block("next");
        b.cond_br(fits, slot, next);
        b.position_at_end(slot);
        let pd = b.gep(i8t, dst, &[at], true);
        let ps = b.gep(i8t, src, &[at], true);
        match op {
            SlotOp::Copy => {
                let v = b.load(t, ps, 1);
                b.store(v, pd, 1);
            }
            SlotOp::Accumulate => {
                let d = b.load(t, pd, 1);
                let s = b.load(t, ps, 1);
                let sum = b.fadd(s, d);
                b.store(sum, ps, 1);
                b.store(t.zero(), pd, 1);
            }
        }
        b.br(next);
        b.position_at_end(next);
    }
    let latch = b.current_block();
    let j1 = b.add(j, i64t.int_const(1));
    let more = b.icmp(IntPred::LLVMIntULT, j1, n);
    b.cond_br(more, body, done);
    j.add_incoming(i64t.zero(), entry);
    j.add_incoming(j1, latch);
    b.position_at_end(done);
    b.ret_void();
    f
}
