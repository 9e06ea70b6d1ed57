//! The functions an indirect call may reach, read off where its function pointer comes from:
//!
//! - a function (directly, or as an operand of what follows);
//! - a `select` or `phi`: every operand's targets (a pointer chosen at run time among known
//!   ones);
//! - a load from a global with an initializer (a table of functions): the functions stored in
//!   the initializer;
//! - a load through a loaded pointer (a vtable slot, Itanium ABI): the functions in that slot
//!   of the module's vtables (`_ZTV*`), the slot being the load's constant offset from the
//!   loaded pointer and counted from each address point the module takes of a vtable (what
//!   constructors store into objects); every function of a vtable when the offset is not
//!   constant or the vtable's address points are not all known. A virtual destructor's call
//!   thus reaches destructors, not also `std::shared_ptr`'s `_M_dispose` of the same type (a
//!   control block taken for a model: the type analysis climbed on that for minutes);
//! - a load from a local variable or array (an `alloca`): the targets of every value stored into
//!   it, and the functions of every constant table copied into it (`memcpy`/`memmove` from a
//!   global with an initializer, or from another such local); `memset` writes null. That set is
//!   complete only if the local's address goes nowhere else, so any other use (passed to a call,
//!   stored, converted to an integer) makes the targets unknown;
//! - a load from an address that is itself a `select` or `phi`: every operand's memory;
//! - the result of a call to a function with a body: the targets of what its body returns.
//!
//! Anything else (an argument, a field of an object, a computed value) is unknown; the reason
//! is what the call's compile-time error says when the open set of candidates (the module's
//! address-taken functions of the call's type, [`super::open`]) cannot stand in. Null and
//! `undef` pointers add no target: a call through them never runs.

use crate::ir::{Module, Opcode, TyKind, Val};
use std::collections::HashSet;

/// The possible targets of a call through `callee`, in order of discovery without repeats (any
/// function type: the caller filters), or why they cannot be known.
pub(super) fn possible_targets(callee: Val) -> Result<Vec<Val>, &'static str> {
    let mut t = Targets {
        found: Vec::new(),
        seen: HashSet::new(),
        slots_added: HashSet::new(),
    };
    t.value(callee)?;
    Ok(t.found)
}

struct Targets {
    found: Vec<Val>,
    /// Values and memory already visited (phis may form cycles).
    seen: HashSet<Val>,
    /// The vtable slots (byte offsets from an address point; `None`: any) already added.
    slots_added: HashSet<Option<i64>>,
}

/// Strips getelementptrs (instructions or constant expressions) off pointer `p`.
pub(super) fn strip_geps(mut p: Val) -> Val {
    loop {
        let is_gep = (p.is_instruction() && p.opcode() == Opcode::LLVMGetElementPtr)
            || (p.is_constant_expr() && p.const_opcode() == Opcode::LLVMGetElementPtr);
        if !is_gep {
            return p;
        }
        p = p.operand(0);
    }
}

/// The functions stored anywhere in constant `c` (nested aggregates and constant expressions),
/// in order, without repeats.
pub(super) fn functions_in(c: Val, out: &mut Vec<Val>) {
    if c.is_function() {
        if !out.contains(&c) {
            out.push(c);
        }
        return;
    }
    if c.is_global_variable() || !(c.is_constant() || c.is_constant_expr()) {
        return;
    }
    for k in 0..c.num_operands() {
        functions_in(c.operand(k), out);
    }
}

impl Targets {
    /// The targets of function pointer `v`.
    fn value(&mut self, v: Val) -> Result<(), &'static str> {
        if !self.seen.insert(v) {
            return Ok(());
        }
        if v.is_function() {
            self.found.push(v);
            return Ok(());
        }
        if v.is_null_constant() || v.is_undef() {
            return Ok(());
        }
        if v.is_argument() {
            return Err("it is an argument of the calling function");
        }
        if !v.is_instruction() {
            return Err("it is computed, not loaded from a table or a vtable");
        }
        match v.opcode() {
            Opcode::LLVMSelect => {
                self.value(v.operand(1))?;
                self.value(v.operand(2))
            }
            Opcode::LLVMPHI => {
                for (x, _) in v.incoming() {
                    self.value(x)?;
                }
                Ok(())
            }
            Opcode::LLVMLoad => self.memory(v.operand(0)),
            Opcode::LLVMCall => self.returned(v),
            _ => Err("it is computed, not loaded from a table or a vtable"),
        }
    }

    /// A function pointer returned by a call: whatever the callee's body returns.
    fn returned(&mut self, call: Val) -> Result<(), &'static str> {
        const UNKNOWN: &str = "it is returned by a function whose body is not in this module";
        let Some(f) = call.called_function().filter(|f| !f.is_declaration()) else {
            return Err(UNKNOWN);
        };
        for b in f.blocks() {
            match b.terminator() {
                Some(t) if t.opcode() == Opcode::LLVMRet && t.num_operands() == 1 => {
                    self.value(t.operand(0))?
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The targets of a function pointer loaded from (somewhere in) the memory at `p`.
    fn memory(&mut self, p: Val) -> Result<(), &'static str> {
        self.memory_at(p, Some(0))
    }

    /// [`Targets::memory`] at `p` plus `extra` bytes (`None`: unknown), the offset that
    /// getelementptrs past a `select` or `phi` of addresses add to each of its operands: a vtable
    /// slot counts it.
    fn memory_at(&mut self, p: Val, extra: Option<i64>) -> Result<(), &'static str> {
        let base = strip_geps(p);
        // The byte offset from `base`, when all the getelementptrs are constant.
        let offset = |m: Module| {
            let mut off = extra?;
            let mut q = p;
            while q != base {
                off = off.checked_add(m.const_gep_offset(q)?)?;
                q = q.operand(0);
            }
            Some(off)
        };
        let module = base.parent_function().map(|f| f.module());
        let offset = module.and_then(offset);
        if base.is_global_variable() {
            return match base.initializer() {
                Some(init) => {
                    functions_in(init, &mut self.found);
                    Ok(())
                }
                None => Err("it is loaded from a global defined in another module"),
            };
        }
        if !base.is_instruction() {
            return Err("it is loaded from memory that is neither a table nor a vtable");
        }
        match base.opcode() {
            Opcode::LLVMLoad => {
                if let Some(m) = module {
                    self.vtable_slot(m, offset);
                }
                Ok(())
            }
            Opcode::LLVMAlloca => self.local(base),
            Opcode::LLVMCall => match address_argument(base) {
                // An element's address computed by a function (`std::array::operator[]`), at an
                // offset not followed.
                Some(a) => self.memory_at(a, None),
                None => Err("it is loaded from an address returned by a function that does more than compute it"),
            },
            Opcode::LLVMSelect => {
                self.memory_at(base.operand(1), offset)?;
                self.memory_at(base.operand(2), offset)
            }
            Opcode::LLVMPHI => {
                for (x, _) in base.incoming() {
                    if self.seen.insert(x) {
                        self.memory_at(x, offset)?;
                    }
                }
                Ok(())
            }
            _ => Err("it is loaded from memory that is neither a global table nor a vtable"),
        }
    }

    /// Vtable slot `slot` (a byte offset from an address point; `None`: unknown): the functions
    /// there in the module's vtables.
    fn vtable_slot(&mut self, m: Module, slot: Option<i64>) {
        if !self.slots_added.insert(slot) {
            return;
        }
        for g in m.globals() {
            let Some(init) = g.initializer().filter(|_| g.name().starts_with("_ZTV")) else {
                continue;
            };
            match slot.zip(address_points(m, g)) {
                Some((slot, points)) => {
                    for a in points {
                        if let Some(entry) = a.checked_add(slot).and_then(|o| entry_at(m, init, o))
                        {
                            functions_in(entry, &mut self.found);
                        }
                    }
                }
                None => functions_in(init, &mut self.found),
            }
        }
    }

    /// A local variable or array of function pointers: what is written into it.
    fn local(&mut self, alloca: Val) -> Result<(), &'static str> {
        const ESCAPES: &str =
            "it is loaded from a local variable whose address is passed on, so what it holds is unknown";
        if !self.seen.insert(alloca) {
            return Ok(());
        }
        let mut addresses = vec![alloca];
        let mut visited = HashSet::new();
        while let Some(a) = addresses.pop() {
            if !visited.insert(a) {
                continue;
            }
            for u in a.users() {
                if !u.is_instruction() {
                    return Err(ESCAPES);
                }
                match u.opcode() {
                    Opcode::LLVMGetElementPtr if u.operand(0) == a => addresses.push(u),
                    Opcode::LLVMCall if address_argument(u) == Some(a) => {
                        // Only computes an element's address: a getelementptr in a function.
                        if u.call_args().iter().filter(|&&x| x == a).count() != 1 {
                            return Err(ESCAPES);
                        }
                        addresses.push(u);
                    }
                    Opcode::LLVMLoad => {}
                    Opcode::LLVMICmp => {}
                    Opcode::LLVMStore if u.operand(1) == a && u.operand(0) != a => {
                        let stored = u.operand(0);
                        if stored.ty().is_ptr() {
                            self.value(stored)?;
                        } else if stored.is_constant() {
                            // A vector or aggregate of pointers stored at once.
                            functions_in(stored, &mut self.found);
                        } else {
                            return Err("it is loaded from a local variable written with values that are not pointers");
                        }
                    }
                    Opcode::LLVMCall => self.local_call(u, a)?,
                    _ => return Err(ESCAPES),
                }
            }
        }
        Ok(())
    }

    /// A call that takes address `a` of a local table: a copy into it adds the source's
    /// targets; copies out of it, zeroing and lifetime markers add none; any other call may
    /// write anything there.
    fn local_call(&mut self, call: Val, a: Val) -> Result<(), &'static str> {
        let name = call.called_function().map(|f| f.name()).unwrap_or_default();
        let args = call.call_args();
        let is_copy = name.starts_with("llvm.memcpy") || name.starts_with("llvm.memmove");
        if is_copy && args[0] == a && args[1] != a {
            return self.memory(args[1]);
        }
        if (is_copy && args[1] == a && args[0] != a)
            || (name.starts_with("llvm.memset") && args[0] == a)
            || name.starts_with("llvm.lifetime.")
        {
            return Ok(());
        }
        Err("it is loaded from a local variable whose address is passed to a call, which may write any function there")
    }
}

/// For a call of a function that only computes an address inside one of its pointer arguments
/// (`std::array::operator[]`, `std::vector::data` and their helpers, once canonical): that
/// argument. Such a function writes nothing and passes the pointer nowhere else.
fn address_argument(call: Val) -> Option<Val> {
    let f = call.called_function()?;
    let k = address_param(f, 0)?;
    call.call_args().get(k).copied()
}

/// The parameter of `f` whose address `f` returns, offset by getelementptrs or by calls of
/// other such functions, when `f` does nothing else (no memory access, no other call); `depth`
/// bounds the chain of calls.
fn address_param(f: Val, depth: u32) -> Option<usize> {
    if f.is_declaration() || depth > 8 || !f.function_type().return_type().is_ptr() {
        return None;
    }
    let params = f.params();
    let mut which = None;
    for b in f.blocks() {
        for i in b.instructions() {
            match i.opcode() {
                Opcode::LLVMGetElementPtr | Opcode::LLVMBr => {}
                Opcode::LLVMCall => {
                    let g = i.called_function()?;
                    let lifetime = g.name().starts_with("llvm.lifetime.");
                    if !lifetime && address_param(g, depth + 1).is_none() {
                        return None;
                    }
                }
                Opcode::LLVMRet => {
                    let mut r = strip_geps(i.operand(0));
                    if r.is_instruction() && r.opcode() == Opcode::LLVMCall {
                        let g = r.called_function()?;
                        r = strip_geps(r.call_args()[address_param(g, depth + 1)?]);
                    }
                    let k = params.iter().position(|&p| p == r)?;
                    if which.is_some_and(|w| w != k) {
                        return None;
                    }
                    which = Some(k);
                }
                _ => return None,
            }
        }
    }
    which
}

/// The address points the module takes of vtable `g`: the byte offsets of the constant
/// getelementptrs on it (what constructors store into objects, and what a VTT holds); `None`
/// when `g` has another use, or none, so that where objects point into it is not known.
fn address_points(m: Module, g: Val) -> Option<Vec<i64>> {
    let mut points = Vec::new();
    for u in g.users() {
        let is_gep = u.is_constant_expr()
            && u.const_opcode() == Opcode::LLVMGetElementPtr
            && u.operand(0) == g;
        let a = is_gep.then(|| m.const_gep_offset(u)).flatten()?;
        if !points.contains(&a) {
            points.push(a);
        }
    }
    (!points.is_empty()).then_some(points)
}

/// The element of constant aggregate `c` that starts at byte `offset` and is a pointer (a
/// vtable entry), if any.
fn entry_at(m: Module, c: Val, offset: i64) -> Option<Val> {
    let ty = c.ty();
    let offset = u64::try_from(offset).ok()?;
    if offset >= m.alloc_size(ty) {
        return None;
    }
    match ty.kind() {
        TyKind::Ptr => (offset == 0).then_some(c),
        TyKind::Struct => {
            let fields = ty.struct_fields().len() as u32;
            let k = (0..fields)
                .rev()
                .find(|&k| m.field_offset(ty, k) <= offset)?;
            let rest = offset - m.field_offset(ty, k);
            entry_at(m, c.aggregate_element(k)?, i64::try_from(rest).ok()?)
        }
        TyKind::Array => {
            let size = m.alloc_size(ty.element());
            let k = u32::try_from(offset / size.max(1)).ok()?;
            entry_at(
                m,
                c.aggregate_element(k)?,
                i64::try_from(offset % size.max(1)).ok()?,
            )
        }
        _ => None,
    }
}
