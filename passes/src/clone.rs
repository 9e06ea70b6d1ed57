//! [`Cloner`]: copies a source function's reachable body into a derived function and keeps the
//! maps every derived function needs: source value → primal copy, source value → shadow (or
//! tangent), source block → derived block, and where each source block's code ends in the
//! derived function (a visitor may split blocks).
//!
//! Also the one place deciding which shadow a pointer without one may stand in with
//! ([`Cloner::shadow_or_substitute`]).

use crate::analysis::cfg::reverse_post_order;
use crate::cache::Session;
use crate::diag::{Error, Result};
use crate::ir::{Block, Builder, Opcode, Ty, TyKind, Val};
use crate::rules::user::UserRules;
use crate::vocab::Activity;
use std::collections::{HashMap, HashSet};

/// Value and block maps from a source function into a derived one.
#[derive(Default)]
pub struct Cloner {
    primal: HashMap<Val, Val>,
    shadow: HashMap<Val, Val>,
    blocks: HashMap<Block, Block>,
    exit_block: HashMap<Block, Block>,
    /// For a source block ending in an `invoke`: the derived blocks ending in the invokes that
    /// unwind to its landing pad (see [`crate::unwind`]).
    unwind_preds: HashMap<Block, Vec<Block>>,
    /// The source function came out of the host's pipeline, which unrolled its loops as it saw
    /// fit ([`Cloner::keep_host_unrolling`]).
    host_unrolled: bool,
}

impl Cloner {
    /// Creates a derived block for each reachable source block (in layout order) and returns
    /// the reachable blocks in reverse post-order, the order to visit them in.
    pub fn create_blocks(&mut self, src: Val, dst: Val) -> Vec<Block> {
        let order = reverse_post_order(src);
        let reachable: HashSet<Block> = order.iter().copied().collect();
        for b in src.blocks() {
            if reachable.contains(&b) {
                let nb = dst.append_block("");
                self.blocks.insert(b, nb);
            }
        }
        order
    }

    /// Says that the source function came out of the host's optimisation pipeline: its loops
    /// (those carrying a loop ID, which the host's pipeline gives them) are unrolled as the
    /// host decided, and their copies are marked `llvm.loop.unroll.disable` so re-optimisation
    /// does not unroll them a second time (the unroller does not mark the loops it unrolled at
    /// run-time counts; gp_lml's forward sweep had three times the primal's multiplies).
    pub fn keep_host_unrolling(&mut self, host_unrolled: bool) {
        self.host_unrolled = host_unrolled;
    }

    /// The derived block for source block `b`.
    pub fn block(&self, b: Block) -> Option<Block> {
        self.blocks.get(&b).copied()
    }

    /// Records where source block `b`'s code ends in the derived function.
    pub fn set_exit_block(&mut self, b: Block, exit: Block) {
        self.exit_block.insert(b, exit);
    }

    /// Where source block `b`'s code ends (its terminator's block), once visited.
    pub fn exit_block_of(&self, b: Block) -> Option<Block> {
        self.exit_block.get(&b).copied()
    }

    /// Records what turning the calls emitted for source block `b`'s `invoke` into invokes
    /// did: the derived blocks that now unwind to its landing pad, and the calls replaced (the
    /// maps must not keep the erased calls).
    pub fn record_invoked(&mut self, b: Block, invoked: crate::unwind::Invoked) {
        for (old, new) in invoked.replaced {
            for v in self.primal.values_mut().chain(self.shadow.values_mut()) {
                if *v == old {
                    *v = new;
                }
            }
        }
        self.unwind_preds.insert(b, invoked.preds);
    }

    /// The derived blocks the edge from source block `from` to `to` leaves from: the blocks of
    /// the invokes emitted for `from`'s `invoke` when `to` is its landing pad (possibly none);
    /// otherwise where `from`'s code ends, once visited.
    pub fn edge_sources(&self, from: Block, to: Block) -> Vec<Block> {
        let unwinds = from
            .terminator()
            .is_some_and(|t| t.is_invoke() && t.unwind_dest() == to);
        if unwinds {
            return self.unwind_preds.get(&from).cloned().unwrap_or_default();
        }
        self.exit_block_of(from).into_iter().collect()
    }

    /// The primal copy of source value `v` (constants map to themselves, their `undef` and
    /// `poison` parts made defined: see [`Val::defined`]; values from unreachable code to
    /// poison, which no reachable code reads).
    pub fn map(&self, v: Val) -> Val {
        if let Some(&p) = self.primal.get(&v) {
            return p;
        }
        if v.is_block() {
            if let Some(nb) = self.blocks.get(&v.as_block()) {
                return nb.as_value();
            }
        }
        if v.is_instruction() || v.is_argument() {
            return v.ty().poison();
        }
        v.defined()
    }

    /// The primal copy of operand `k` of source instruction `i`, `v`: as [`Self::map`], except
    /// that an `undef` aggregate an `insertvalue` builds on stays as it is. Its fields are
    /// scalars the program reads only where it wrote them (unlike a vector's lanes, which are
    /// computed on together), and the optimiser folds such chains best from `poison`.
    pub fn map_operand(&self, i: Val, k: u32, v: Val) -> Val {
        if k == 0 && i.opcode() == crate::ir::Opcode::LLVMInsertValue && v.is_undef() {
            return v;
        }
        self.map(v)
    }

    /// Records the primal copy of `v`.
    pub fn set_primal(&mut self, v: Val, p: Val) {
        self.primal.insert(v, p);
    }

    /// The shadow (or tangent) of source value `v`, if it has one.
    pub fn shadow(&self, v: Val) -> Option<Val> {
        self.shadow.get(&v).copied()
    }

    /// Maps `src`'s parameters to `dst`'s (see [`crate::signature::paired_params`]).
    pub fn map_params(&mut self, src: Val, dst: Val, activity: &[Activity], skip: usize) {
        for (p, dp, shadow) in crate::signature::paired_params(src, dst, activity, skip) {
            self.set_primal(p, dp);
            self.set_shadow(p, shadow);
        }
    }

    /// Records, for each operand of `src`'s instructions that points into a global the user
    /// gave a shadow (`enzyme_shadow`), that shadow: such globals are active like duplicated
    /// arguments ([`UserRules::global_shadow_of`]). At `width` lanes, the array of the lanes'
    /// shadows where each lane has one ([`UserRules::wide_global_shadow_of`]).
    pub fn map_global_shadows(&mut self, src: Val, rules: &UserRules, width: u32) {
        if rules.global_shadows.is_empty() {
            return;
        }
        for b in src.blocks() {
            for i in b.instructions() {
                for k in 0..i.num_operands() {
                    let o = i.operand(k);
                    if let Some(s) = rules.wide_global_shadow_of(o, width) {
                        self.shadow.insert(o, s);
                    }
                }
            }
        }
    }

    /// Records the shadow of `v` (ignored for `None`).
    pub fn set_shadow(&mut self, v: Val, s: Option<Val>) {
        if let Some(s) = s {
            self.shadow.insert(v, s);
        }
    }

    /// Emits a copy of source instruction `i` with its operands mapped, and records it.
    pub fn clone_primal(&mut self, b: &mut Builder, i: Val) -> Val {
        let c = i.clone_instruction();
        // An invoke clones into a call: its arguments, then the callee.
        let ops = if i.is_invoke() {
            let mut ops = i.call_args();
            ops.push(i.called_value());
            ops
        } else {
            i.operands()
        };
        for (k, v) in ops.into_iter().enumerate() {
            c.set_operand(k as u32, self.map_operand(i, k as u32, v));
        }
        b.insert(c);
        // A shuffle's undefined lanes would be poison the derived code's partials meet.
        let c = crate::ir::with_defined_mask(b, c);
        let c = crate::contraction::settle_copy(b, c);
        c.strip_metadata_except_tbaa();
        if c.opcode() == crate::ir::Opcode::LLVMBr && i.has_loop_id() {
            // A loop's back edge keeps what the host's pipeline recorded about the loop (the
            // remainders it made are `llvm.loop.unroll.disable`): without it, re-optimisation
            // unrolls clang's loops and remainders again.
            c.copy_loop_metadata(i, self.host_unrolled);
        }
        if !c.ty().is_void() {
            c.set_name(&i.name());
        }
        if c.is_call() && is_pure_math(c) {
            // In derived code a math function is its value: errno is not observed (as under
            // -fno-math-errno), so the optimiser may drop a call whose result no derivative
            // uses.
            c.mark_call_pure();
        }
        self.primal.insert(i, c);
        c
    }

    /// A shadow for pointer `v` where one is needed (a phi, select or store mixing it with
    /// shadowed pointers): its own shadow; null for null; the same address for a dangling one;
    /// poison for undef; a zero-filled copy for read-only globals; itself for a vtable or a
    /// constant table of functions. Anything else (a constant argument, a mutable global) is an error
    /// at `at`: there is no memory to hold its derivative.
    pub fn shadow_or_substitute(&self, session: &mut Session, v: Val, at: Val) -> Result<Val> {
        match self.shadow(v) {
            Some(s) => Ok(s),
            // An offset from null (the end of an empty `std::vector`'s range, once the
            // optimiser threads `begin + n` through `n ? new[n] : nullptr`): like null, never
            // dereferenced, so it is its own shadow.
            None if is_offset_from_null(v) => Ok(self.map(v)),
            // A function pointer chosen among functions or vtables: no derivative is ever read
            // through it, so it is its own shadow (as those constants are).
            None if crate::analysis::objects::is_code_only_choice(v) => Ok(self.map(v)),
            None => substitute_shadow(session, v, at),
        }
    }
}

/// The shadow of a pointer made from integer `x`, an offset of pointer `base`
/// ([`crate::analysis::int_pointers`]): `base_shadow` plus the same byte offset,
/// `x - (uintptr_t)base` (primal values).
pub fn offset_shadow(b: &mut Builder, base_shadow: Val, base: Val, x: Val) -> Val {
    let at = b.cast(Opcode::LLVMPtrToInt, base, x.ty());
    let off = b.sub(x, at);
    let i8t = Ty::int(x.ty().context(), 8);
    b.gep(i8t, base_shadow, &[off], false)
}

/// Positions `b` after the phis at the top of `block`, where a new phi goes.
pub fn position_after_phis(b: &mut Builder, block: Block) {
    match block
        .instructions()
        .into_iter()
        .find(|i| i.opcode() != Opcode::LLVMPHI)
    {
        Some(i) => b.position_before(i),
        None => b.position_at_end(block),
    }
}

/// True for a call of a libm function with a math rule that touches no memory.
pub(crate) fn is_pure_math(call: Val) -> bool {
    is_math_value(call)
        && call
            .called_function()
            .is_some_and(|f| f.intrinsic_id() == 0)
}

/// True for a call of a function or intrinsic with a math rule that touches no memory
/// (`exp`, `llvm.fmuladd`, ...): a value computed from its arguments alone.
pub(crate) fn is_math_value(call: Val) -> bool {
    call.is_call()
        && call.called_function().is_some_and(|f| {
            f.is_declaration()
                && crate::rules::lookup(&f.name()).is_some_and(|r| {
                    matches!(r.kind, crate::rules::RuleKind::Math(_)) && !r.effects.touches_memory()
                })
        })
}

/// The shadow a pointer without one stands in with: null for null, itself for a dangling
/// address, poison for undef, a zero-filled copy for read-only data; an error at `at` for
/// anything else.
pub fn substitute_shadow(session: &mut Session, v: Val, at: Val) -> Result<Val> {
    {
        if v.is_null_constant() || is_dangling(v) {
            return Ok(v);
        }
        // The result of a dispatcher's fallback call: the derived code stops with a run-time
        // error just before that call, so no shadow of its result is ever used.
        if v.is_undef() || (v.is_call() && crate::devirt::is_fallback(v)) {
            return Ok(v.ty().poison());
        }
        if let Some(s) = session.rules.global_shadow_of(v) {
            return Ok(s);
        }
        // An inactive global met with pointers that have shadows: its sink drops what goes
        // there (`api::global_shadows`).
        if let Some(s) = session.rules.inactive_sink_of(v) {
            return Ok(s);
        }
        if let Some(s) = zero_shadow_of_constant_data(session, v) {
            return Ok(s);
        }
        if crate::analysis::objects::is_code_only_constant(v) {
            // A vtable or a constant table of functions: no derivative is ever read through
            // it, so it is its own shadow (an object's shadow gets the object's vtable).
            return Ok(v);
        }
        if crate::diag::made_from_integer(v) {
            return Err(Error::at(
                at,
                format!(
                    "pointer '{}' is made from an integer (`inttoptr`) that Umbra cannot tie to one pointer with a shadow (it follows `(uintptr_t)p` plus integer arithmetic on constants, where `p` is computed on every path to the cast or, for a phi or select of such integers and addresses below 4096, where each is chosen), but flows where differentiable memory is expected; keep the arithmetic on pointers",
                    short(v)
                ),
            ));
        }
        let (what, advice) = describe_unshadowed(v);
        Err(Error::at(
            at,
            format!(
                "{what} has no shadow memory but flows where pointers with shadows are expected (a phi, select or store mixing it with differentiable pointers, such as a struct holding both); {advice}"
            ),
        ))
    }
}

/// Names a pointer without a shadow for a message (a parameter by its source name from debug
/// information or its position, a global by name, a call's result with its callee), and what
/// the user can do about it.
fn describe_unshadowed(v: Val) -> (String, String) {
    const APART: &str = "keep pointers without derivatives apart from differentiable ones";
    let as_dup = "pass it as dup with a zeroed shadow of the same size (for integer data such as index arrays, any zeroed array of that size), or keep constant and differentiable pointers apart".to_string();
    if v.is_argument() {
        let what = format!(
            "pointer {}, passed as constant,",
            crate::diag::describe_parameter(v)
        );
        return (what, as_dup);
    }
    if v.is_global_variable() {
        return (
            format!("pointer '@{}' (a mutable global)", v.name()),
            as_dup,
        );
    }
    if let Some(callee) = v.is_call().then(|| v.called_function()).flatten() {
        let name = callee.name();
        let what = format!(
            "pointer '{}', returned by '{name}', which gives it no shadow (an inactive function or one without a rule for it),",
            short(v)
        );
        return (what, format!("{APART}, or register a rule for '{name}'"));
    }
    // Loaded from memory without shadow pointers: most often memory reached from an argument
    // passed as constant (a Fortran descriptor at -O0), whence the same advice.
    let origin = match v.opcode() {
        Opcode::LLVMLoad => " (loaded from memory that holds no shadow pointers)",
        Opcode::LLVMCall | Opcode::LLVMInvoke => " (returned by an indirect call)",
        _ => "",
    };
    (format!("pointer '{}'{origin}", short(v)), as_dup)
}

/// The shadow of a constant aggregate or vector holding pointers: the same constant with each
/// pointer replaced by the shadow it stands in with ([`substitute_shadow`]); non-pointer parts
/// are zero (reverse mode keeps float adjoints elsewhere). Errors at `at` as that does.
pub fn constant_aggregate_shadow(session: &mut Session, v: Val, at: Val) -> Result<Val> {
    let ty = v.ty();
    if !ty.contains_ptr() {
        return Ok(ty.zero());
    }
    if ty.is_ptr() {
        return substitute_shadow(session, v, at);
    }
    if v.is_null_constant() {
        return Ok(v);
    }
    if v.is_undef() {
        return Ok(ty.poison());
    }
    let n = match ty.kind() {
        TyKind::Struct => ty.struct_fields().len() as u32,
        TyKind::Array => ty.array_len() as u32,
        TyKind::Vector => ty.vector_len(),
        _ => return substitute_shadow(session, v, at),
    };
    let mut parts = Vec::new();
    for k in 0..n {
        let e = v.aggregate_element(k).ok_or_else(|| {
            Error::at(at, format!("cannot take apart the constant '{}'", short(v)))
        })?;
        parts.push(constant_aggregate_shadow(session, e, at)?);
    }
    Ok(Val::const_aggregate(ty, &parts))
}

/// A constant address in the first page (`inttoptr (i64 8 to ptr)`): Rust's
/// `NonNull::dangling()`, the data pointer of an empty `Vec` or `Box<[T]>` (its alignment). Like
/// null it is never dereferenced (nothing is mapped there), so it is its own shadow: an empty
/// buffer's shadow is empty too.
fn is_dangling(v: Val) -> bool {
    const FIRST_PAGE: u64 = 4096;
    v.is_constant_expr()
        && v.const_opcode() == Opcode::LLVMIntToPtr
        && v.operand(0)
            .const_int_value()
            .is_some_and(|a| a < FIRST_PAGE)
}

/// True for a getelementptr (instruction or constant) whose base, through further
/// getelementptrs, is null or a dangling address.
fn is_offset_from_null(mut v: Val) -> bool {
    let mut any_gep = false;
    loop {
        let is_gep = (v.is_instruction() && v.opcode() == Opcode::LLVMGetElementPtr)
            || (v.is_constant_expr() && v.const_opcode() == Opcode::LLVMGetElementPtr);
        if !is_gep {
            return any_gep && (v.is_null_constant() || is_dangling(v));
        }
        any_gep = true;
        v = v.operand(0);
    }
}

/// For a read-only global without pointers inside (or a constant GEP into one), the same
/// address in a zero-filled copy.
fn zero_shadow_of_constant_data(session: &mut Session, v: Val) -> Option<Val> {
    if v.is_global_variable() {
        let ty = v.global_value_type();
        if v.is_global_constant() && !ty.contains_ptr() {
            return Some(session.zero_shadow_of_constant(v));
        }
        return None;
    }
    if v.is_constant_expr() && v.const_opcode() == Opcode::LLVMGetElementPtr {
        let base = zero_shadow_of_constant_data(session, v.operand(0))?;
        let idx: Vec<Val> = (1..v.num_operands()).map(|k| v.operand(k)).collect();
        return Some(Val::const_gep(v.gep_source_type(), base, &idx));
    }
    None
}

pub use crate::diag::short;
