//! The augmented sweep's memory instructions: shadow allocas, stores into shadow memory, and
//! byte-wise copies of float data (checked at run time where only the type analysis says the
//! bytes are whole floats).

use super::*;

impl AugmentedFn<'_> {
    /// Allocas get a heap shadow: the adjoint sweep runs after this function returns (and
    /// releases it; an exception before that releases it with the other owned blocks).
    pub(super) fn visit_alloca(&mut self, i: Val) -> Result<()> {
        let p = self.vals.clone_primal(&mut self.b, i);
        if !self.is_active(i) {
            return Ok(());
        }
        let m = self.session.module;
        let intptr = m.intptr_ty();
        let count = self.vals.map(i.operand(0));
        let count = self.b.zext_or_trunc(count, intptr);
        let size = intptr.int_const(m.alloc_size(i.allocated_type()));
        let bytes = self.b.mul(count, size);
        let ptr = Ty::ptr(m.context());
        let malloc = m.get_or_add_function("malloc", Ty::function(ptr, &[intptr], false));
        let shadow = self.b.call_function(malloc, &[bytes]);
        self.b.memset_zero(shadow, bytes, p.alignment().max(1));
        let free =
            m.get_or_add_function("free", Ty::function(Ty::void(m.context()), &[ptr], false));
        crate::tape::owned::record(&mut self.b, shadow, free, &[]);
        self.vals.set_shadow(i, Some(shadow));
        Ok(())
    }

    pub(super) fn visit_store(&mut self, i: Val) -> Result<()> {
        self.vals.clone_primal(&mut self.b, i);
        let (v, p) = (i.operand(0), i.operand(1));
        match self.vals.shadow(p) {
            Some(sp) => {
                if v.ty().contains_ptr() {
                    // Later loads of this pointer must find its shadow.
                    let sv = self.shadow_or_zero(v, i)?;
                    let s = self.vals.map(i).clone_instruction();
                    s.set_operand(0, sv);
                    s.set_operand(1, sp);
                    self.b.insert(s);
                } else if let Some(q) = pointer_as_integer(v) {
                    // A pointer kept as an integer (`std::function` holds a lambda's captured
                    // references so): later loads of it as a pointer must find its shadow.
                    let sq = self.shadow(q, i)?;
                    let sv = self.b.cast(Opcode::LLVMPtrToInt, sq, v.ty());
                    let s = self.vals.map(i).clone_instruction();
                    s.set_operand(0, sv);
                    s.set_operand(1, sp);
                    self.b.insert(s);
                } else if is_integer_data(v.ty()) {
                    match self.active_byte_copy(i) {
                        Some(bc) => self.byte_copy_shadows(i, &bc, sp)?,
                        None => match check_integer_copy(i, v, &self.active, self.session)? {
                            IntegerCopy::Plain => {}
                            IntegerCopy::PointerBits => {
                                // Later loads of these bytes as a pointer must find its
                                // shadow: move the shadow's bits along, as the load read them
                                // (nothing writes memory between the two).
                                let ss = self.shadow(v.operand(0), i)?;
                                let sv = self.b.load(v.ty(), ss, v.alignment());
                                self.b.store(sv, sp, i.alignment());
                            }
                        },
                    }
                }
            }
            None if self.is_active(v)
                && (v.ty().carries_derivative() || self.copies_float_bytes(i))
                && !is_inactive_memory(p, &self.session.rules) =>
            {
                return Err(Error::at(
                    i,
                    format!(
                        "stores a value with a derivative into memory without a shadow {}",
                        crate::diag::why_no_shadow(p)
                    ),
                ))
            }
            None => {}
        }
        Ok(())
    }

    /// The byte-wise copy store `i` performs from differentiable memory, if it is one.
    pub(super) fn active_byte_copy(&self, i: Val) -> Option<ByteCopy> {
        bytes::byte_copy(i).filter(|bc| self.is_active(bc.load.operand(0)))
    }

    /// True when store `i` copies bytes of differentiable memory that may hold floats.
    pub(super) fn copies_float_bytes(&self, i: Val) -> bool {
        self.active_byte_copy(i).is_some_and(|bc| {
            bytes::byte_layout(self.session.types(), self.session.module, i, &bc)
                .map_or(true, |l| !l.floats.is_empty())
        })
    }

    /// A byte-wise copy from differentiable memory: its layout must be known (the adjoint
    /// sweep moves the floats it touches), it must move whole floats (refused here, or checked
    /// as it runs, [`byte_cover`]), and the shadow bytes of the pointers it moves are copied
    /// along, so that later loads of those pointers find their shadows.
    pub(super) fn byte_copy_shadows(&mut self, i: Val, bc: &ByteCopy, sd: Val) -> Result<()> {
        let m = self.session.module;
        let layout = bytes::byte_layout(self.session.types(), m, i, bc)?;
        if self.session.runs_in_parallel(self.src) && !layout.floats.is_empty() {
            return Err(Error::at(
                i,
                "copies floating-point data byte by byte in a parallel region; reverse mode cannot move its adjoints atomically (copy with memcpy or typed loads)",
            ));
        }
        let index = bc.index.map(|x| self.vals.map(x));
        if !layout.floats.is_empty()
            && byte_cover::coverage(m, &layout, i, bc)? == Coverage::RunTime
        {
            let (pd, ps) = (
                self.vals.map(i.operand(1)),
                self.vals.map(bc.load.operand(0)),
            );
            let x = crate::reverse::bytes::position(&mut self.b, m, bc, index);
            self.byte_checks
                .check(&mut self.b, self.dst, &layout, i, bc, pd, ps, x);
        }
        if layout.pointers.is_empty() {
            return Ok(());
        }
        let ss = self.shadow(bc.load.operand(0), i)?;
        let x = crate::reverse::bytes::position(&mut self.b, m, bc, index);
        let w = Ty::int(m.context(), 64).int_const(bc.width);
        let helper = crate::reverse::bytes::helper(m, &layout, ByteOp::CopyShadow);
        self.b.call_function(helper, &[sd, ss, x, w]);
        Ok(())
    }
}

/// True when `store` runs right after load `v` ([`types::bytes::run_between`]: in one block,
/// or through checks whose failing side never continues) and nothing between them may write
/// the bytes `v` read, which are then still there when `store` runs. Stores in between
/// are fine when they write only this function's allocas and `v` reads an argument, a global
/// or another alloca (a fresh alloca cannot be reached through either); anything else that
/// writes memory is not.
pub(super) fn copied_right_after(v: Val, store: Val) -> bool {
    use crate::analysis::objects::underlying_objects;
    use Opcode::*;
    let Some(between) = types::bytes::run_between(v, store) else {
        return false;
    };
    let is_alloca = |o: &Val| o.is_instruction() && o.opcode() == LLVMAlloca;
    let read = underlying_objects(v.operand(0));
    let read_known = read
        .iter()
        .all(|o| o.is_argument() || o.is_global_variable() || is_alloca(o));
    between.into_iter().all(|i| match i.opcode() {
        LLVMStore => {
            let written = underlying_objects(i.operand(1));
            read_known && written.iter().all(|o| is_alloca(o) && !read.contains(o))
        }
        LLVMCall | LLVMInvoke | LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMFence | LLVMVAArg => false,
        _ => true,
    })
}

/// True when `addr` is, through a GEP into a struct or an array (struct fields chosen by
/// constant indices, array elements by any), a field or element whose declared type is the
/// integer type `v` has (`v` loaded from or stored to it). An address at the start of an
/// aggregate is that of its first scalar: at -O0 Umbra's clean-up folds the zero indices of
/// `&mesh[e].n0` away, leaving the address of the array element `mesh[e]`.
pub(super) fn declared_integer_field(addr: Val, v: Val) -> bool {
    let g = addr;
    if !(g.is_instruction() && g.opcode() == Opcode::LLVMGetElementPtr) {
        return false;
    }
    let mut ty = g.gep_source_type();
    if !matches!(ty.kind(), TyKind::Struct | TyKind::Array) || g.num_operands() < 3 {
        return false;
    }
    for k in 2..g.num_operands() {
        ty = match ty.kind() {
            TyKind::Struct => {
                let Some(idx) = g.operand(k).const_int_value() else {
                    return false;
                };
                match ty.struct_fields().get(idx as usize) {
                    Some(&f) => f,
                    None => return false,
                }
            }
            TyKind::Array => ty.element(),
            _ => return false,
        };
    }
    loop {
        ty = match ty.kind() {
            TyKind::Struct => match ty.struct_fields().first() {
                Some(&f) => f,
                None => return false,
            },
            TyKind::Array if ty.array_len() > 0 => ty.element(),
            _ => break,
        };
    }
    ty.is_int() && ty == v.ty()
}

/// What an integer stored into differentiable memory moves, as far as its shadow goes.
pub(super) enum IntegerCopy {
    /// Integer data, or float bits whose adjoint the adjoint sweep moves: no shadow to copy.
    Plain,
    /// Bytes the type analysis found a pointer in (or integers and pointers in, as the two
    /// variants of a Rust enum share a slot), copied by a load just before with nothing
    /// writing memory in between: the shadow's bytes are copied along.
    PointerBits,
}

/// An integer stored into differentiable memory may be floating-point data moved as bits (a
/// struct copy at -O2). Where the type analysis finds a whole float in it, its adjoint moves as
/// that float (the adjoint sweep reads and writes the shadow in the float's format). Where it
/// finds pointer data, and the copy is a load right before the store, the shadow bytes move
/// too. Otherwise it is refused unless the value is known to be integer data: loaded with an
/// integer TBAA type, or computed.
pub(super) fn check_integer_copy(
    store: Val,
    v: Val,
    active: &ActiveSet,
    session: &Session,
) -> Result<IntegerCopy> {
    if !(v.is_instruction() && v.opcode() == Opcode::LLVMLoad && active.contains(v.operand(0))) {
        return Ok(IntegerCopy::Plain);
    }
    let m = session.module;
    // First, even under an integer TBAA type (a type-punning copy): where the analysis saw
    // pointers and integers but no float, copying the shadow's bytes is what a pointer needs
    // and harmless for an integer, whose shadow bytes nothing reads.
    if session.types().kind(m, v) == Some(types::Kind::Pointer) && copied_right_after(v, store) {
        return Ok(IntegerCopy::PointerBits);
    }
    let integer_tbaa = |i: Val| {
        i.tbaa_access_type().is_some_and(|t| {
            matches!(
                t.as_str(),
                "int" | "long" | "long long" | "short" | "_Bool" | "bool" | tape::INT_TBAA
            )
        })
    };
    if integer_tbaa(v) {
        return Ok(IntegerCopy::Plain);
    }
    if types::float_bits(session.types(), m, v).is_some() {
        return Ok(IntegerCopy::Plain);
    }
    // An untyped load (a field copy SROA made of a memcpy, as in Eigen's copy constructors)
    // stored into an integer field: integer data when the type analysis agrees, having seen
    // integers and no float there. Likewise a copy whose load and store are both typed `char`
    // (a `std::string`'s short-string buffer moved eight bytes at a time into a map's node):
    // TBAA's `char` may alias anything, so it says nothing by itself, but the type analysis saw
    // the bytes' other accesses (`char` stores of `i8`, the length) and no float.
    let char_tbaa = |i: Val| i.tbaa_access_type().is_some_and(|t| t == "omnipotent char");
    if (integer_tbaa(store) || (char_tbaa(v) && char_tbaa(store)))
        && session.types().kind(m, v) == Some(types::Kind::Integer)
    {
        return Ok(IntegerCopy::Plain);
    }
    // A load of a struct field the front end declared integer (flang's descriptor fields at
    // -O0, which has no TBAA: an extent copied into a local descriptor): integer data too when
    // the type analysis agrees.
    if declared_integer_field(v.operand(0), v)
        && session.types().kind(m, v) == Some(types::Kind::Integer)
    {
        return Ok(IntegerCopy::Plain);
    }
    // Read through a pointer or reference declared to an integer of its width (debug
    // information, `-g`): integer data too when the type analysis agrees.
    if v.ty().is_int()
        && store
            .parent_function()
            .is_some_and(|f| types::declared_integer_target(f, v.operand(0), m.store_size(v.ty())))
        && session.types().kind(m, v) == Some(types::Kind::Integer)
    {
        return Ok(IntegerCopy::Plain);
    }
    // Stored into such a field (a `std::pair<double, int>` built at -O0 from an `int&`):
    // integer data when the type analysis agrees.
    if declared_integer_field(store.operand(1), v)
        && session.types().kind(m, v) == Some(types::Kind::Integer)
    {
        return Ok(IntegerCopy::Plain);
    }
    let found = match session.types().kind(m, v) {
        Some(types::Kind::Integer) => "the type analysis saw only integer accesses there, which without TBAA or a field declared integer do not rule out a float's bits".to_string(),
        Some(k) => format!("the type analysis found {k} data there"),
        None => "the type analysis cannot tell what it holds".to_string(),
    };
    // Compiling with TBAA helps only code that has none: at -O2 the suggestion misled.
    let has_tbaa = store.parent_function().is_some_and(|f| {
        f.blocks().iter().any(|b| {
            b.instructions()
                .iter()
                .any(|i| i.tbaa_access_type().is_some())
        })
    });
    let tbaa = if has_tbaa {
        ""
    } else {
        ", or compile with TBAA, i.e. -O1 or higher without -fno-strict-aliasing"
    };
    Err(Error::at(
        store,
        format!("copies differentiable memory through an integer ('{}', {}), which may hold floating-point data or only part of it; {found}, and reverse mode can only move whole floats (copy with memcpy or typed loads{tbaa})", short(v), v.ty().print()),
    ))
}
