//! [`Val`] and [`Block`]: handles on LLVM values and basic blocks, with the read-only queries the
//! analyses and visitors need (opcodes, operands, callees, debug locations, ...).

use super::{cstr, string_from, sys, take_message, Module, Ty, TyKind};
use sys::core as c;
pub use sys::LLVMOpcode as Opcode;

/// LLVM's attribute index of a function itself (`LLVMAttributeFunctionIndex`).
const FUNCTION_INDEX: u32 = u32::MAX;

/// An LLVM value: an instruction, argument, constant, global or function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Val(pub sys::prelude::LLVMValueRef);

/// A basic block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Block(pub sys::prelude::LLVMBasicBlockRef);

impl Val {
    /// The value's type.
    pub fn ty(self) -> Ty {
        Ty(unsafe { c::LLVMTypeOf(self.0) })
    }

    /// The value's name (empty for unnamed values).
    pub fn name(self) -> String {
        let mut len = 0;
        let p = unsafe { c::LLVMGetValueName2(self.0, &mut len) };
        string_from(p, len)
    }

    /// Sets the value's name.
    pub fn set_name(self, name: &str) {
        unsafe { c::LLVMSetValueName2(self.0, name.as_ptr() as *const _, name.len()) }
    }

    /// The value printed as IR, on one line, without trailing metadata attachments.
    pub fn print(self) -> String {
        let s = take_message(unsafe { c::LLVMPrintValueToString(self.0) });
        let s = s.trim();
        let s = s.split(", !").next().unwrap_or(s);
        s.to_string()
    }

    /// True for instructions.
    pub fn is_instruction(self) -> bool {
        unsafe { !c::LLVMIsAInstruction(self.0).is_null() }
    }
    /// True for function arguments.
    pub fn is_argument(self) -> bool {
        unsafe { !c::LLVMIsAArgument(self.0).is_null() }
    }
    /// True for constants (including globals and functions).
    pub fn is_constant(self) -> bool {
        unsafe { c::LLVMIsConstant(self.0) != 0 }
    }
    /// True for functions.
    pub fn is_function(self) -> bool {
        unsafe { !c::LLVMIsAFunction(self.0).is_null() }
    }
    /// True for global variables.
    pub fn is_global_variable(self) -> bool {
        unsafe { !c::LLVMIsAGlobalVariable(self.0).is_null() }
    }
    /// True for `undef` or `poison`.
    pub fn is_undef(self) -> bool {
        unsafe { c::LLVMIsUndef(self.0) != 0 || c::LLVMIsPoison(self.0) != 0 }
    }
    /// True for the null pointer / zero constant.
    pub fn is_null_constant(self) -> bool {
        unsafe { c::LLVMIsNull(self.0) != 0 }
    }
    /// True for constant expressions.
    pub fn is_constant_expr(self) -> bool {
        unsafe { !c::LLVMIsAConstantExpr(self.0).is_null() }
    }
    /// True for basic blocks used as values (branch targets).
    pub fn is_block(self) -> bool {
        unsafe { c::LLVMValueIsBasicBlock(self.0) != 0 }
    }
    /// The block this value denotes (for branch-target operands).
    pub fn as_block(self) -> Block {
        Block(unsafe { c::LLVMValueAsBasicBlock(self.0) })
    }

    /// Opcode of an instruction.
    pub fn opcode(self) -> Opcode {
        unsafe { c::LLVMGetInstructionOpcode(self.0) }
    }
    /// Opcode of a constant expression.
    pub fn const_opcode(self) -> Opcode {
        unsafe { c::LLVMGetConstOpcode(self.0) }
    }

    /// Number of operands (for a call, the callee is the last).
    pub fn num_operands(self) -> u32 {
        unsafe { c::LLVMGetNumOperands(self.0) as u32 }
    }
    /// Operand `i`.
    pub fn operand(self, i: u32) -> Val {
        Val(unsafe { c::LLVMGetOperand(self.0, i) })
    }
    /// All operands.
    pub fn operands(self) -> Vec<Val> {
        (0..self.num_operands()).map(|i| self.operand(i)).collect()
    }
    /// Replaces operand `i`.
    pub fn set_operand(self, i: u32, v: Val) {
        unsafe { c::LLVMSetOperand(self.0, i, v.0) }
    }

    /// The block containing an instruction.
    pub fn parent_block(self) -> Block {
        Block(unsafe { c::LLVMGetInstructionParent(self.0) })
    }
    /// The function containing an instruction or argument.
    pub fn parent_function(self) -> Option<Val> {
        if self.is_argument() {
            return Some(Val(unsafe { c::LLVMGetParamParent(self.0) }));
        }
        if !self.is_instruction() {
            return None;
        }
        let b = self.parent_block();
        if b.0.is_null() {
            return None;
        }
        Some(b.parent())
    }

    /// `file:line:col` of an instruction's debug location, when it has one.
    pub fn debug_location(self) -> Option<String> {
        if !self.is_instruction() {
            return None;
        }
        unsafe {
            if sys::debuginfo::LLVMInstructionGetDebugLoc(self.0).is_null() {
                return None;
            }
            let mut len = 0;
            let file = string_from(c::LLVMGetDebugLocFilename(self.0, &mut len), len as usize);
            let line = c::LLVMGetDebugLocLine(self.0);
            let col = c::LLVMGetDebugLocColumn(self.0);
            if file.is_empty() {
                return None;
            }
            Some(format!("{file}:{line}:{col}"))
        }
    }
    /// `file:line` of function `self`'s definition from its debug information (`-g`).
    pub fn function_debug_location(self) -> Option<String> {
        unsafe {
            if c::LLVMIsAFunction(self.0).is_null()
                || sys::debuginfo::LLVMGetSubprogram(self.0).is_null()
            {
                return None;
            }
            let mut len = 0;
            let file = string_from(c::LLVMGetDebugLocFilename(self.0, &mut len), len as usize);
            let line = c::LLVMGetDebugLocLine(self.0);
            (!file.is_empty()).then(|| format!("{file}:{line}"))
        }
    }
    /// Removes an instruction's debug location.
    pub fn clear_debug_location(self) {
        unsafe { sys::debuginfo::LLVMInstructionSetDebugLoc(self.0, std::ptr::null_mut()) }
    }
    /// Copies `from`'s debug location onto this instruction.
    pub fn copy_debug_location(self, from: Val) {
        unsafe {
            sys::debuginfo::LLVMInstructionSetDebugLoc(
                self.0,
                sys::debuginfo::LLVMInstructionGetDebugLoc(from.0),
            )
        }
    }

    // ----- calls -----

    /// True for call instructions (including intrinsic calls) and `invoke`s: every instruction
    /// that calls a function and carries on (an `invoke` carries on at its normal destination).
    pub fn is_call(self) -> bool {
        unsafe { !c::LLVMIsACallInst(self.0).is_null() || !c::LLVMIsAInvokeInst(self.0).is_null() }
    }
    /// True for `call` instructions only (not `invoke`).
    pub fn is_plain_call(self) -> bool {
        unsafe { !c::LLVMIsACallInst(self.0).is_null() }
    }
    /// True for `invoke` instructions.
    pub fn is_invoke(self) -> bool {
        unsafe { !c::LLVMIsAInvokeInst(self.0).is_null() }
    }
    /// Where an `invoke` continues when the callee returns.
    pub fn normal_dest(self) -> Block {
        Block(unsafe { c::LLVMGetNormalDest(self.0) })
    }
    /// Where an `invoke` continues when the callee unwinds (its landing pad).
    pub fn unwind_dest(self) -> Block {
        Block(unsafe { c::LLVMGetUnwindDest(self.0) })
    }
    /// The instruction before this one in its block.
    pub fn previous_instruction(self) -> Option<Val> {
        let p = unsafe { c::LLVMGetPreviousInstruction(self.0) };
        (!p.is_null()).then_some(Val(p))
    }
    /// The instruction after this one in its block.
    pub fn next_instruction(self) -> Option<Val> {
        let p = unsafe { c::LLVMGetNextInstruction(self.0) };
        (!p.is_null()).then_some(Val(p))
    }
    /// True for a plain call that may unwind: not an intrinsic, not inline assembly, not
    /// `nounwind` (at the call or on the callee).
    pub fn call_may_unwind(self) -> bool {
        if !self.is_plain_call() || self.has_call_fn_attr("nounwind") {
            return false;
        }
        if self.calls_inline_asm() {
            return false;
        }
        match self.called_function() {
            Some(f) => f.intrinsic_id() == 0 && !f.has_fn_attr("nounwind"),
            None => true,
        }
    }
    /// True for a call of inline assembly (`call void asm "..."`): no function pointer.
    pub fn calls_inline_asm(self) -> bool {
        unsafe { !c::LLVMIsAInlineAsm(self.called_value().0).is_null() }
    }
    /// True when the call site itself carries the enum function attribute `name`.
    fn has_call_fn_attr(self, name: &str) -> bool {
        unsafe {
            let kind = c::LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            !c::LLVMGetCallSiteEnumAttribute(self.0, FUNCTION_INDEX, kind).is_null()
        }
    }
    /// Copies every call-site attribute, the calling convention and the debug location of call
    /// or invoke `from` onto `self` (a call or invoke of the same callee and arguments).
    pub fn copy_call_site(self, from: Val) {
        unsafe {
            let mut indices = vec![0, FUNCTION_INDEX];
            indices.extend(1..=from.num_call_args());
            for idx in indices {
                let n = c::LLVMGetCallSiteAttributeCount(from.0, idx) as usize;
                if n == 0 {
                    continue;
                }
                let mut attrs = vec![std::ptr::null_mut(); n];
                c::LLVMGetCallSiteAttributes(from.0, idx, attrs.as_mut_ptr());
                for a in attrs {
                    c::LLVMAddCallSiteAttribute(self.0, idx, a);
                }
            }
            c::LLVMSetInstructionCallConv(self.0, c::LLVMGetInstructionCallConv(from.0));
        }
        self.copy_debug_location(from);
    }
    /// The personality function of a function with exception handling.
    pub fn personality(self) -> Option<Val> {
        unsafe {
            if c::LLVMHasPersonalityFn(self.0) == 0 {
                return None;
            }
            Some(Val(c::LLVMGetPersonalityFn(self.0)))
        }
    }
    /// Sets a function's personality function.
    pub fn set_personality(self, p: Val) {
        unsafe { c::LLVMSetPersonalityFn(self.0, p.0) }
    }
    /// The called operand of a call (a function, or any pointer for indirect calls).
    pub fn called_value(self) -> Val {
        Val(unsafe { c::LLVMGetCalledValue(self.0) })
    }
    /// The directly called function, if the callee is a function (not an indirect call).
    pub fn called_function(self) -> Option<Val> {
        let v = self.called_value();
        v.is_function().then_some(v)
    }
    /// The function type a call uses.
    pub fn call_function_type(self) -> Ty {
        Ty(unsafe { c::LLVMGetCalledFunctionType(self.0) })
    }
    /// The type of the `sret` attribute on call argument `k`, when it has one (a struct returned
    /// through memory, as the x86-64 ABI does for three or more doubles).
    pub fn call_arg_sret_type(self, k: u32) -> Option<Ty> {
        let name = "sret";
        unsafe {
            let kind = c::LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            let mut a = c::LLVMGetCallSiteEnumAttribute(self.0, k + 1, kind);
            if a.is_null() {
                if let Some(f) = self.called_function() {
                    a = c::LLVMGetEnumAttributeAtIndex(f.0, k + 1, kind);
                }
            }
            (!a.is_null()).then(|| Ty(c::LLVMGetTypeAttributeValue(a)))
        }
    }
    /// Number of call arguments.
    pub fn num_call_args(self) -> u32 {
        unsafe { c::LLVMGetNumArgOperands(self.0) }
    }
    /// The call's arguments.
    pub fn call_args(self) -> Vec<Val> {
        (0..self.num_call_args()).map(|i| self.operand(i)).collect()
    }

    // ----- functions -----

    /// Intrinsic id of a function (0 when not an intrinsic).
    pub fn intrinsic_id(self) -> u32 {
        unsafe { c::LLVMGetIntrinsicID(self.0) }
    }
    /// True for a function without a body.
    pub fn is_declaration(self) -> bool {
        unsafe { c::LLVMIsDeclaration(self.0) != 0 }
    }
    /// A function's type (`ret (params)`).
    pub fn function_type(self) -> Ty {
        Ty(unsafe { c::LLVMGlobalGetValueType(self.0) })
    }
    /// A function's parameters.
    pub fn params(self) -> Vec<Val> {
        let n = unsafe { c::LLVMCountParams(self.0) } as usize;
        let mut out = vec![std::ptr::null_mut(); n];
        unsafe { c::LLVMGetParams(self.0, out.as_mut_ptr()) };
        out.into_iter().map(Val).collect()
    }
    /// A function's blocks in layout order.
    pub fn blocks(self) -> Vec<Block> {
        let mut out = Vec::new();
        let mut b = unsafe { c::LLVMGetFirstBasicBlock(self.0) };
        while !b.is_null() {
            out.push(Block(b));
            b = unsafe { c::LLVMGetNextBasicBlock(b) };
        }
        out
    }
    /// Deletes a function's body (it becomes a declaration). Uses of its instructions are
    /// dropped first, as they may reach across blocks in any order.
    pub fn delete_body(self) {
        let blocks = self.blocks();
        for b in &blocks {
            for i in b.instructions() {
                if !i.ty().is_void() {
                    i.replace_all_uses_with(i.ty().poison());
                }
            }
        }
        for b in &blocks {
            for i in b.instructions() {
                i.erase();
            }
        }
        for b in blocks {
            unsafe { c::LLVMDeleteBasicBlock(b.0) }
        }
    }
    /// A function's entry block.
    pub fn entry_block(self) -> Block {
        Block(unsafe { c::LLVMGetEntryBasicBlock(self.0) })
    }
    /// Appends a new block to a function.
    pub fn append_block(self, name: &str) -> Block {
        let ctx = self.ty().context();
        let n = cstr(name);
        Block(unsafe { c::LLVMAppendBasicBlockInContext(ctx, self.0, n.as_ptr()) })
    }
    /// The module a global value lives in.
    pub fn module(self) -> Module {
        Module(unsafe { c::LLVMGetGlobalParent(self.0) })
    }
    /// Value type of a global (what it points to).
    pub fn global_value_type(self) -> Ty {
        Ty(unsafe { c::LLVMGlobalGetValueType(self.0) })
    }
    /// True for a global declared `constant`.
    pub fn is_global_constant(self) -> bool {
        unsafe { c::LLVMIsGlobalConstant(self.0) != 0 }
    }
    /// Marks a global `constant`.
    pub fn set_global_constant(self, yes: bool) {
        unsafe { c::LLVMSetGlobalConstant(self.0, yes as i32) }
    }
    /// A global variable's initializer (`None` for declarations).
    pub fn initializer(self) -> Option<Val> {
        let i = unsafe { c::LLVMGetInitializer(self.0) };
        (!i.is_null()).then_some(Val(i))
    }
    /// The text of a constant string (`c"log1p\00"`), without its terminating NUL; for a
    /// global, the string it is initialised with.
    pub fn const_string(self) -> Option<String> {
        let v = if self.is_global_variable() {
            self.initializer()?.without_asan_redzone()
        } else {
            self
        };
        if unsafe {
            c::LLVMIsAConstantDataSequential(v.0).is_null() || c::LLVMIsConstantString(v.0) == 0
        } {
            return None;
        }
        let mut len = 0usize;
        let p = unsafe { c::LLVMGetAsString(v.0, &mut len) };
        if p.is_null() {
            return None;
        }
        // SAFETY: LLVM returns `len` bytes owned by the constant, alive as long as the module.
        let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, len) };
        let text = String::from_utf8_lossy(bytes);
        Some(text.trim_end_matches('\0').to_string())
    }
    /// True for a terminator instruction (`br`, `ret`, `switch`, `invoke`, `unreachable`, ...).
    pub fn is_terminator(self) -> bool {
        unsafe { !c::LLVMIsATerminatorInst(self.0).is_null() }
    }
    /// A global's initializer without the redzone AddressSanitizer appends when it instruments
    /// the global (`{ original, [N x i8] zeroinitializer }`): the original; else itself.
    pub fn without_asan_redzone(self) -> Val {
        let ty = self.ty();
        if ty.kind() != TyKind::Struct {
            return self;
        }
        let fields = ty.struct_fields();
        // A zeroinitializer has no operands to take the original from.
        let padded = fields.len() == 2
            && self.num_operands() == 2
            && matches!(fields[0].kind(), TyKind::Array | TyKind::Struct)
            && fields[1].kind() == TyKind::Array
            && fields[1].element().is_int()
            && fields[1].element().int_width() == 8;
        if padded {
            self.operand(0)
        } else {
            self
        }
    }
    /// The text of a metadata-string argument (`metadata !"enzyme_dup"`), else `None`.
    pub fn metadata_string(self) -> Option<String> {
        // LLVMIsAMDString: a metadata-as-value argument wrapping a string.
        if unsafe { c::LLVMIsAMDString(self.0).is_null() } {
            return None;
        }
        let mut len = 0;
        let p = unsafe { c::LLVMGetMDString(self.0, &mut len) };
        (!p.is_null()).then(|| string_from(p, len as usize))
    }
    /// Sets a global's initializer.
    pub fn set_initializer(self, init: Val) {
        unsafe { c::LLVMSetInitializer(self.0, init.0) }
    }
    /// True for a global with internal or private linkage (no other module sees it).
    pub fn is_local_linkage(self) -> bool {
        let l = unsafe { c::LLVMGetLinkage(self.0) };
        matches!(
            l,
            sys::LLVMLinkage::LLVMInternalLinkage | sys::LLVMLinkage::LLVMPrivateLinkage
        )
    }
    /// Gives a global weak linkage (a definition any strong one elsewhere replaces).
    pub fn set_weak(self) {
        unsafe { c::LLVMSetLinkage(self.0, sys::LLVMLinkage::LLVMWeakAnyLinkage) }
    }
    /// Gives a global `weak_odr` linkage: one definition of many equal ones in the program's
    /// objects is kept, and the optimiser may still inline it.
    pub fn set_weak_odr(self) {
        unsafe { c::LLVMSetLinkage(self.0, sys::LLVMLinkage::LLVMWeakODRLinkage) }
    }
    /// Gives a global internal linkage.
    pub fn set_internal(self) {
        unsafe { c::LLVMSetLinkage(self.0, sys::LLVMLinkage::LLVMInternalLinkage) }
    }
    /// Drops a function's debug-info subprogram (a declaration's, which a definition may not
    /// keep: definitions need a distinct one).
    pub fn clear_subprogram(self) {
        unsafe { sys::debuginfo::LLVMSetSubprogram(self.0, std::ptr::null_mut()) }
    }
    /// Gives a global hidden visibility (not exported from the shared object defining it).
    pub fn set_hidden(self) {
        unsafe { c::LLVMSetVisibility(self.0, sys::LLVMVisibility::LLVMHiddenVisibility) }
    }
    /// Makes a global variable thread-local (one instance per thread).
    pub fn set_thread_local(self) {
        unsafe { c::LLVMSetThreadLocal(self.0, 1) }
    }
    /// Sets the alignment of a global, alloca, load or store.
    pub fn set_alignment(self, align: u32) {
        unsafe { c::LLVMSetAlignment(self.0, align) }
    }
    /// Alignment of a global, alloca, load or store.
    pub fn alignment(self) -> u32 {
        unsafe { c::LLVMGetAlignment(self.0) }
    }

    /// Number of uses.
    pub fn has_uses(self) -> bool {
        unsafe { !c::LLVMGetFirstUse(self.0).is_null() }
    }
    /// The users of this value (with repetition when a user uses it twice).
    pub fn users(self) -> Vec<Val> {
        let mut out = Vec::new();
        let mut u = unsafe { c::LLVMGetFirstUse(self.0) };
        while !u.is_null() {
            out.push(Val(unsafe { c::LLVMGetUser(u) }));
            u = unsafe { c::LLVMGetNextUse(u) };
        }
        out
    }
    /// Replaces every use of this value with `with`.
    pub fn replace_all_uses_with(self, with: Val) {
        unsafe { c::LLVMReplaceAllUsesWith(self.0, with.0) }
    }
    /// Deletes an instruction (which must have no uses).
    pub fn erase(self) {
        unsafe { c::LLVMInstructionEraseFromParent(self.0) }
    }
    /// Deletes a function or global.
    pub fn delete_global(self) {
        if self.is_function() {
            unsafe { c::LLVMDeleteFunction(self.0) }
        } else {
            unsafe { c::LLVMDeleteGlobal(self.0) }
        }
    }

    // ----- instruction details -----

    /// Source element type of a GEP.
    pub fn gep_source_type(self) -> Ty {
        Ty(unsafe { c::LLVMGetGEPSourceElementType(self.0) })
    }
    /// Allocated type of an alloca.
    pub fn allocated_type(self) -> Ty {
        Ty(unsafe { c::LLVMGetAllocatedType(self.0) })
    }
    /// Indices of an extractvalue/insertvalue.
    pub fn aggregate_indices(self) -> Vec<u32> {
        let n = unsafe { c::LLVMGetNumIndices(self.0) } as usize;
        let p = unsafe { c::LLVMGetIndices(self.0) };
        // SAFETY: LLVM returns `n` indices at `p`.
        unsafe { std::slice::from_raw_parts(p, n) }.to_vec()
    }
    /// Incoming (value, block) pairs of a phi.
    pub fn incoming(self) -> Vec<(Val, Block)> {
        let n = unsafe { c::LLVMCountIncoming(self.0) };
        (0..n)
            .map(|i| unsafe {
                (
                    Val(c::LLVMGetIncomingValue(self.0, i)),
                    Block(c::LLVMGetIncomingBlock(self.0, i)),
                )
            })
            .collect()
    }
    /// Adds an incoming edge to a phi.
    pub fn add_incoming(self, v: Val, b: Block) {
        let mut vs = [v.0];
        let mut bs = [b.0];
        unsafe { c::LLVMAddIncoming(self.0, vs.as_mut_ptr(), bs.as_mut_ptr(), 1) }
    }
    /// Successor blocks of a terminator.
    pub fn successors(self) -> Vec<Block> {
        let n = unsafe { c::LLVMGetNumSuccessors(self.0) };
        (0..n)
            .map(|i| Block(unsafe { c::LLVMGetSuccessor(self.0, i) }))
            .collect()
    }
    /// The predicate of an `icmp` instruction.
    pub fn int_predicate(self) -> super::IntPred {
        unsafe { c::LLVMGetICmpPredicate(self.0) }
    }
    /// Integer value of a constant integer (zero-extended), if it is one.
    pub fn const_int_value(self) -> Option<u64> {
        unsafe {
            if c::LLVMIsAConstantInt(self.0).is_null() {
                None
            } else {
                Some(c::LLVMConstIntGetZExtValue(self.0))
            }
        }
    }
    /// The value of a floating-point constant, or of a vector constant holding the same value in
    /// every lane; `None` for anything else (including constants LLVM cannot read as a double).
    pub fn const_float_splat(self) -> Option<f64> {
        unsafe {
            if !c::LLVMIsAConstantFP(self.0).is_null() {
                let mut lost = 0;
                return Some(c::LLVMConstRealGetDouble(self.0, &mut lost));
            }
            if c::LLVMIsAConstant(self.0).is_null() || !self.ty().is_vector() {
                return None;
            }
            let n = self.ty().vector_len();
            let mut first = None;
            for k in 0..n {
                let e = c::LLVMGetAggregateElement(self.0, k);
                if e.is_null() {
                    return None;
                }
                let x = Val(e).const_float_splat()?;
                if first.is_some_and(|f: f64| f != x && !(f.is_nan() && x.is_nan())) {
                    return None;
                }
                first = Some(x);
            }
            first
        }
    }
    /// `nsw` on an `add`, `sub`, `mul` or `shl`.
    pub fn has_nsw(self) -> bool {
        unsafe { c::LLVMGetNSW(self.0) != 0 }
    }
    /// `inbounds` on a `getelementptr` (base and result lie in one allocated object).
    pub fn gep_inbounds(self) -> bool {
        let flags = unsafe { c::LLVMGEPGetNoWrapFlags(self.0) };
        flags & sys::LLVMGEPFlagInBounds != 0
    }
    /// `disjoint` on an `or` (no common bits: the `or` is an `add`).
    pub fn is_disjoint(self) -> bool {
        unsafe { c::LLVMGetIsDisjoint(self.0) != 0 }
    }
    /// `nneg` on a `zext` (its operand is non-negative).
    pub fn has_nneg(self) -> bool {
        unsafe { c::LLVMGetNNeg(self.0) != 0 }
    }
    /// `samesign` on an `icmp` (its operands have the same sign, so signed and unsigned
    /// comparison agree).
    pub fn icmp_same_sign(self) -> bool {
        unsafe { c::LLVMGetICmpSameSign(self.0) != 0 }
    }
    /// Volatile flag of a load or store.
    pub fn is_volatile(self) -> bool {
        unsafe { c::LLVMGetVolatile(self.0) != 0 }
    }
    /// Element `k` of a constant aggregate or vector, when LLVM can take it apart.
    pub fn aggregate_element(self, k: u32) -> Option<Val> {
        let e = unsafe { c::LLVMGetAggregateElement(self.0, k) };
        (!e.is_null()).then_some(Val(e))
    }
    /// A constant of aggregate or vector type `ty` with the given elements.
    pub fn const_aggregate(ty: Ty, parts: &[Val]) -> Val {
        let mut raw: Vec<_> = parts.iter().map(|v| v.0).collect();
        let n = raw.len() as u32;
        Val(unsafe {
            match ty.kind() {
                super::TyKind::Struct if c::LLVMIsLiteralStruct(ty.0) != 0 => {
                    let packed = c::LLVMIsPackedStruct(ty.0);
                    c::LLVMConstStructInContext(ty.context(), raw.as_mut_ptr(), n, packed)
                }
                super::TyKind::Struct => c::LLVMConstNamedStruct(ty.0, raw.as_mut_ptr(), n),
                super::TyKind::Array => {
                    c::LLVMConstArray2(ty.element().0, raw.as_mut_ptr(), n as u64)
                }
                _ => c::LLVMConstVector(raw.as_mut_ptr(), n),
            }
        })
    }
    /// A constant `getelementptr` on `base`.
    pub fn const_gep(source: Ty, base: Val, indices: &[Val]) -> Val {
        let mut idx: Vec<_> = indices.iter().map(|v| v.0).collect();
        Val(unsafe { c::LLVMConstGEP2(source.0, base.0, idx.as_mut_ptr(), idx.len() as u32) })
    }
    /// The shuffle mask of a `shufflevector` (`None` for undefined lanes).
    pub fn shuffle_mask(self) -> Vec<Option<u32>> {
        let n = unsafe { c::LLVMGetNumMaskElements(self.0) };
        let undef = unsafe { c::LLVMGetUndefMaskElem() };
        (0..n)
            .map(|i| {
                let m = unsafe { c::LLVMGetMaskValue(self.0, i) };
                (m != undef && m >= 0).then_some(m as u32)
            })
            .collect()
    }
    /// The name of the access type in an instruction's TBAA tag (`double`, `int`, `any
    /// pointer`, ...), when it has one.
    pub fn tbaa_access_type(self) -> Option<String> {
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let k = "tbaa";
            let kind = c::LLVMGetMDKindIDInContext(ctx, k.as_ptr() as *const _, k.len() as u32);
            let tag = c::LLVMGetMetadata(self.0, kind);
            if tag.is_null() || c::LLVMGetMDNodeNumOperands(tag) < 2 {
                return None;
            }
            let mut ops = vec![std::ptr::null_mut(); c::LLVMGetMDNodeNumOperands(tag) as usize];
            c::LLVMGetMDNodeOperands(tag, ops.as_mut_ptr());
            let access = ops[1];
            if access.is_null() || c::LLVMGetMDNodeNumOperands(access) < 1 {
                return None;
            }
            let mut aops = vec![std::ptr::null_mut(); c::LLVMGetMDNodeNumOperands(access) as usize];
            c::LLVMGetMDNodeOperands(access, aops.as_mut_ptr());
            let mut len = 0u32;
            let s = c::LLVMGetMDString(aops[0], &mut len);
            (!s.is_null()).then(|| string_from(s, len as usize))
        }
    }
    /// The fields a `memcpy` with `!tbaa.struct` metadata copies, as (offset, size, name of
    /// the TBAA access type), when it has that metadata in the usual format.
    pub fn tbaa_struct_fields(self) -> Option<Vec<(u64, u64, String)>> {
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let k = "tbaa.struct";
            let kind = c::LLVMGetMDKindIDInContext(ctx, k.as_ptr() as *const _, k.len() as u32);
            let node = c::LLVMGetMetadata(self.0, kind);
            if node.is_null() {
                return None;
            }
            let ops = md_operands(node);
            if !ops.len().is_multiple_of(3) {
                return None;
            }
            let mut out = Vec::new();
            for f in ops.chunks(3) {
                let int = |v: sys::prelude::LLVMValueRef| {
                    (!v.is_null() && !c::LLVMIsAConstantInt(v).is_null())
                        .then(|| c::LLVMConstIntGetZExtValue(v))
                };
                let (off, size) = (int(f[0])?, int(f[1])?);
                if f[2].is_null() || c::LLVMIsAMDNode(f[2]).is_null() {
                    return None;
                }
                let tag = md_operands(f[2]);
                let access = *tag.get(1)?;
                if access.is_null() || c::LLVMIsAMDNode(access).is_null() {
                    return None;
                }
                let name = *md_operands(access).first()?;
                let mut len = 0u32;
                let s = if name.is_null() {
                    std::ptr::null()
                } else {
                    c::LLVMGetMDString(name, &mut len)
                };
                if s.is_null() {
                    return None;
                }
                out.push((off, size, string_from(s, len as usize)));
            }
            Some(out)
        }
    }
    /// The chain of TBAA type nodes of an instruction's access type, from the access type up
    /// to the root (node identities), when its tag is a struct-path tag over scalar type nodes
    /// in the classic format (`!{!"double", !parent, i64 0}`); `None` otherwise.
    pub fn tbaa_access_chain(self) -> Option<Vec<usize>> {
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let k = "tbaa";
            let kind = c::LLVMGetMDKindIDInContext(ctx, k.as_ptr() as *const _, k.len() as u32);
            let tag = c::LLVMGetMetadata(self.0, kind);
            if tag.is_null() {
                return None;
            }
            let ops = md_operands(tag);
            // A struct-path tag: `!{base type, access type, offset, ...}`.
            if ops.len() < 3 || ops[0].is_null() || c::LLVMIsAMDNode(ops[0]).is_null() {
                return None;
            }
            let mut node = ops[1];
            let mut chain = Vec::new();
            for _ in 0..64 {
                if node.is_null() || c::LLVMIsAMDNode(node).is_null() {
                    return None;
                }
                let n = md_operands(node);
                let mut len = 0u32;
                if n.is_empty() || n[0].is_null() || c::LLVMGetMDString(n[0], &mut len).is_null() {
                    return None;
                }
                chain.push(node as usize);
                if n.len() < 2 {
                    return Some(chain);
                }
                node = n[1];
            }
            None
        }
    }
    /// True for an atomic load or store (any ordering but `not_atomic`).
    pub fn is_atomic_access(self) -> bool {
        unsafe {
            c::LLVMGetOrdering(self.0) != sys::LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic
        }
    }
    /// True for `atomicrmw fadd` (the one read-modify-write OpenMP reductions emit on floats).
    pub fn is_atomic_fadd(self) -> bool {
        self.opcode() == Opcode::LLVMAtomicRMW
            && unsafe { c::LLVMGetAtomicRMWBinOp(self.0) }
                == sys::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFAdd
    }
    /// Integer value of a constant integer, sign-extended, if it is one.
    pub fn const_int_sext(self) -> Option<i64> {
        unsafe {
            if c::LLVMIsAConstantInt(self.0).is_null() {
                None
            } else {
                Some(c::LLVMConstIntGetSExtValue(self.0))
            }
        }
    }

    // ----- attributes -----

    /// The integer value of enum attribute `name` at attribute index `idx` (`0` the return,
    /// `k + 1` parameter `k`, `u32::MAX` the function) of a function, `None` when absent or
    /// unknown to this LLVM.
    pub fn fn_attr_value(self, idx: u32, name: &str) -> Option<u64> {
        unsafe {
            let kind = c::LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            if kind == 0 {
                return None;
            }
            let a = c::LLVMGetEnumAttributeAtIndex(self.0, idx, kind);
            (!a.is_null()).then(|| c::LLVMGetEnumAttributeValue(a))
        }
    }
    /// Like [`Val::fn_attr_value`], on a call site's own attributes.
    pub fn call_attr_value(self, idx: u32, name: &str) -> Option<u64> {
        unsafe {
            let kind = c::LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            if kind == 0 {
                return None;
            }
            let a = c::LLVMGetCallSiteEnumAttribute(self.0, idx, kind);
            (!a.is_null()).then(|| c::LLVMGetEnumAttributeValue(a))
        }
    }
    /// True when function `self` carries the enum attribute `name` (`optnone`, ...).
    pub fn has_fn_attr(self, name: &str) -> bool {
        self.fn_attr_value(FUNCTION_INDEX, name).is_some()
    }
    /// Adds (true) or removes (false) the value-less enum attribute `name` on function `self`.
    pub fn set_fn_attr(self, name: &str, on: bool) {
        unsafe {
            let kind = c::LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            if kind == 0 {
                return;
            }
            if on {
                let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
                let a = c::LLVMCreateEnumAttribute(ctx, kind, 0);
                c::LLVMAddAttributeAtIndex(self.0, FUNCTION_INDEX, a);
            } else {
                c::LLVMRemoveEnumAttributeAtIndex(self.0, FUNCTION_INDEX, kind);
            }
        }
    }
    /// Copies the string attributes `keys` (`target-cpu`, ...) of function `from` to `self`.
    pub fn copy_string_fn_attrs(self, from: Val, keys: &[&str]) {
        for key in keys {
            unsafe {
                let a = c::LLVMGetStringAttributeAtIndex(
                    from.0,
                    FUNCTION_INDEX,
                    key.as_ptr() as *const _,
                    key.len() as u32,
                );
                if !a.is_null() {
                    c::LLVMAddAttributeAtIndex(self.0, FUNCTION_INDEX, a);
                }
            }
        }
    }
    /// Sets the string attribute `key` = `value` on function `self`.
    pub fn set_string_fn_attr(self, key: &str, value: &str) {
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let a = c::LLVMCreateStringAttribute(
                ctx,
                key.as_ptr() as *const _,
                key.len() as u32,
                value.as_ptr() as *const _,
                value.len() as u32,
            );
            c::LLVMAddAttributeAtIndex(self.0, FUNCTION_INDEX, a);
        }
    }
    /// Removes function `self`'s string attribute `key` (if any).
    pub fn remove_string_fn_attr(self, key: &str) {
        unsafe {
            c::LLVMRemoveStringAttributeAtIndex(
                self.0,
                FUNCTION_INDEX,
                key.as_ptr() as *const _,
                key.len() as u32,
            )
        }
    }
    /// The value of function `self`'s string attribute `key`, if it has one.
    pub fn string_fn_attr(self, key: &str) -> Option<String> {
        unsafe {
            let a = c::LLVMGetStringAttributeAtIndex(
                self.0,
                FUNCTION_INDEX,
                key.as_ptr() as *const _,
                key.len() as u32,
            );
            if a.is_null() {
                return None;
            }
            let mut len = 0u32;
            let p = c::LLVMGetStringAttributeValue(a, &mut len);
            let bytes = std::slice::from_raw_parts(p as *const u8, len as usize);
            Some(String::from_utf8_lossy(bytes).into_owned())
        }
    }
    /// The calling convention of call or invoke `self` (0: C).
    pub fn call_conv(self) -> u32 {
        unsafe { c::LLVMGetInstructionCallConv(self.0) }
    }
    /// Marks call `self` as free of side effects (`memory(none) nounwind willreturn`), so the
    /// optimiser may drop it when its result is unused.
    pub fn mark_call_pure(self) {
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            for (name, value) in [("memory", 0u64), ("nounwind", 0), ("willreturn", 0)] {
                let kind =
                    c::LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
                if kind == 0 {
                    continue;
                }
                let a = c::LLVMCreateEnumAttribute(ctx, kind, value);
                c::LLVMAddCallSiteAttribute(self.0, FUNCTION_INDEX, a);
            }
        }
    }
    /// Attaches a scalar TBAA tag of access type `name` (a child of clang's `omnipotent char`
    /// under the `Simple C/C++ TBAA` root) to load or store `self`.
    pub fn set_tbaa_scalar(self, name: &str) {
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let string = |t: &str| c::LLVMMDStringInContext2(ctx, t.as_ptr() as *const _, t.len());
            let node = |ops: &mut [sys::prelude::LLVMMetadataRef]| {
                c::LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), ops.len())
            };
            let zero =
                c::LLVMValueAsMetadata(c::LLVMConstInt(c::LLVMInt64TypeInContext(ctx), 0, 0));
            let root = node(&mut [string("Simple C/C++ TBAA")]);
            let char_ty = node(&mut [string("omnipotent char"), root, zero]);
            let ty = node(&mut [string(name), char_ty, zero]);
            let tag = node(&mut [ty, ty, zero]);
            let k = "tbaa";
            let kind = c::LLVMGetMDKindIDInContext(ctx, k.as_ptr() as *const _, k.len() as u32);
            c::LLVMSetMetadata(self.0, kind, c::LLVMMetadataAsValue(ctx, tag));
        }
    }
    /// Attaches loop metadata `!llvm.loop !{self-ref, !{!"llvm.loop.vectorize.enable", i1
    /// false}}` to branch `self`, the back edge of a loop, so the loop vectoriser leaves the
    /// loop to the SLP vectoriser.
    pub fn set_loop_no_vectorize(self) {
        self.set_loop_id(None, true, false);
    }
    /// True when instruction `self` (a loop's back edge) carries a loop ID (`!llvm.loop`).
    pub fn has_loop_id(self) -> bool {
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let k = "llvm.loop";
            let kind = c::LLVMGetMDKindIDInContext(ctx, k.as_ptr() as *const _, k.len() as u32);
            !c::LLVMGetMetadata(self.0, kind).is_null()
        }
    }
    /// Gives branch `self` the loop properties (`!llvm.loop`) of branch `from`, under a loop ID
    /// of its own (a new self-referential node with `from`'s other operands): what the host's
    /// pipeline recorded about the loop (`llvm.loop.unroll.disable` on a remainder it made,
    /// `llvm.loop.isvectorized`, `mustprogress`, user pragmas) holds for the loop's copy too;
    /// with `no_unroll`, the copy is also `llvm.loop.unroll.disable`.
    pub fn copy_loop_metadata(self, from: Val, no_unroll: bool) {
        self.set_loop_id(Some(from), false, no_unroll);
    }
    /// Attaches to branch `self` (a loop's back edge) a new loop ID holding the properties of
    /// `from`'s loop ID (if any), with `no_vectorize` `llvm.loop.vectorize.enable false`
    /// (replacing any vectorize hint of `from`'s) and with `no_unroll`
    /// `llvm.loop.unroll.disable` (replacing any unroll hint). Attaches nothing when there is
    /// nothing to say.
    pub fn set_loop_id(self, from: Option<Val>, no_vectorize: bool, no_unroll: bool) {
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let kind_name = "llvm.loop";
            let kind = c::LLVMGetMDKindIDInContext(
                ctx,
                kind_name.as_ptr() as *const _,
                kind_name.len() as u32,
            );
            let key = "llvm.loop.vectorize.enable";
            // A loop ID refers to itself: build it around a temporary, then replace that.
            let temp = sys::debuginfo::LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0);
            let mut ops = vec![temp];
            if let Some(from) = from {
                let node = c::LLVMGetMetadata(from.0, kind);
                // The first operand of a loop ID is the ID itself.
                let inherited = if node.is_null() {
                    Vec::new()
                } else {
                    md_operands(node).into_iter().skip(1).collect()
                };
                for op in inherited {
                    if op.is_null() {
                        continue;
                    }
                    let name = md_first_string(op);
                    let name = name.as_deref().unwrap_or("");
                    if (no_vectorize && name == key)
                        || (no_unroll && name.starts_with("llvm.loop.unroll."))
                    {
                        continue;
                    }
                    ops.push(c::LLVMValueAsMetadata(op));
                }
            }
            if no_unroll {
                let k = "llvm.loop.unroll.disable";
                let mut hint = [c::LLVMMDStringInContext2(
                    ctx,
                    k.as_ptr() as *const _,
                    k.len(),
                )];
                ops.push(c::LLVMMDNodeInContext2(ctx, hint.as_mut_ptr(), 1));
            }
            if no_vectorize {
                let name = c::LLVMMDStringInContext2(ctx, key.as_ptr() as *const _, key.len());
                let i1 = c::LLVMInt1TypeInContext(ctx);
                let off = c::LLVMValueAsMetadata(c::LLVMConstInt(i1, 0, 0));
                let mut hint_ops = [name, off];
                ops.push(c::LLVMMDNodeInContext2(ctx, hint_ops.as_mut_ptr(), 2));
            }
            if ops.len() == 1 {
                sys::debuginfo::LLVMDisposeTemporaryMDNode(temp);
                return;
            }
            let id = c::LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), ops.len());
            sys::debuginfo::LLVMMetadataReplaceAllUsesWith(temp, id);
            c::LLVMSetMetadata(self.0, kind, c::LLVMMetadataAsValue(ctx, id));
        }
    }
    /// True when parameter `k` of function `self` carries attribute `name`.
    pub fn param_has_attr(self, k: u32, name: &str) -> bool {
        self.fn_attr_value(k + 1, name).is_some()
    }
    /// True when argument `k` of call `self` carries attribute `name`, on the call site or on
    /// the directly called function's parameter.
    pub fn call_arg_has_attr(self, k: u32, name: &str) -> bool {
        self.call_arg_attr_value(k, name).is_some()
    }
    /// Removes the call-site attributes `names` (`nonnull`, `noundef`, ...) from argument `k`
    /// of call `self`, for an argument replaced by a value they would not hold for.
    pub fn remove_call_arg_attrs(self, k: u32, names: &[&str]) {
        for name in names {
            let kind =
                unsafe { c::LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len()) };
            unsafe { c::LLVMRemoveCallSiteEnumAttribute(self.0, k + 1, kind) };
        }
    }
    /// The value of attribute `name` on argument `k` of call `self` (call site first, then the
    /// directly called function's parameter).
    pub fn call_arg_attr_value(self, k: u32, name: &str) -> Option<u64> {
        self.call_attr_value(k + 1, name).or_else(|| {
            self.called_function()
                .filter(|f| k < f.params().len() as u32)
                .and_then(|f| f.fn_attr_value(k + 1, name))
        })
    }

    /// Clones an instruction (detached, same operands). An `invoke` clones into the equivalent
    /// detached `call` (same callee, arguments, attributes; operands: the arguments, then the
    /// callee): derived code continues after the call in the same block, and the code that
    /// emitted it turns the calls that may unwind back into invokes ([`crate::unwind`]).
    pub fn clone_instruction(self) -> Val {
        if self.is_invoke() {
            return self.call_twin();
        }
        let clone = Val(unsafe { c::LLVMInstructionClone(self.0) });
        clone.drop_assignment_link();
        clone
    }
    /// Drops `!DIAssignID` (assignment tracking, which clang emits at -O1 and above with `-g`):
    /// it ties a store, copy or alloca to `#dbg_assign` records of its own function, and a copy
    /// of it in another function (a derived one) makes the module invalid.
    pub fn drop_assignment_link(self) {
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let k = "DIAssignID";
            let kind = c::LLVMGetMDKindIDInContext(ctx, k.as_ptr() as *const _, k.len() as u32);
            if !c::LLVMGetMetadata(self.0, kind).is_null() {
                c::LLVMSetMetadata(self.0, kind, std::ptr::null_mut());
            }
        }
    }
    /// A detached `call` doing what this `invoke` does.
    fn call_twin(self) -> Val {
        let mut args: Vec<_> = self.call_args().iter().map(|v| v.0).collect();
        let call = unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            // Built beside the invoke, then detached.
            let b = c::LLVMCreateBuilderInContext(ctx);
            c::LLVMPositionBuilderBefore(b, self.0);
            let call = c::LLVMBuildCall2(
                b,
                self.call_function_type().0,
                self.called_value().0,
                args.as_mut_ptr(),
                args.len() as u32,
                c"".as_ptr(),
            );
            c::LLVMDisposeBuilder(b);
            c::LLVMInstructionRemoveFromParent(call);
            Val(call)
        };
        call.copy_call_site(self);
        call
    }
    /// A constant byte array holding `text` and a terminating NUL.
    pub fn const_string_in(ctx: sys::prelude::LLVMContextRef, text: &str) -> Val {
        Val(unsafe { c::LLVMConstStringInContext2(ctx, text.as_ptr() as *const _, text.len(), 0) })
    }
    /// Detaches an instruction from its block without deleting it.
    pub fn remove_from_parent(self) {
        unsafe { c::LLVMInstructionRemoveFromParent(self.0) }
    }
    /// Removes every metadata attachment other than TBAA (and the debug location).
    pub fn strip_metadata_except_tbaa(self) {
        unsafe {
            let mut n = 0usize;
            let entries = c::LLVMInstructionGetAllMetadataOtherThanDebugLoc(self.0, &mut n);
            let tbaa = {
                let k = "tbaa";
                let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
                c::LLVMGetMDKindIDInContext(ctx, k.as_ptr() as *const _, k.len() as u32)
            };
            let mut kinds = Vec::with_capacity(n);
            for i in 0..n {
                kinds.push(c::LLVMValueMetadataEntriesGetKind(entries, i as u32));
            }
            if !entries.is_null() {
                c::LLVMDisposeValueMetadataEntries(entries);
            }
            for k in kinds {
                if k != tbaa {
                    c::LLVMSetMetadata(self.0, k, std::ptr::null_mut());
                }
            }
            sys::debuginfo::LLVMInstructionSetDebugLoc(self.0, std::ptr::null_mut());
        }
    }
}

/// The string a metadata node starts with (`!{!"llvm.loop.unroll.disable"}`), if it does.
unsafe fn md_first_string(node: sys::prelude::LLVMValueRef) -> Option<String> {
    if c::LLVMIsAMDNode(node).is_null() {
        return None;
    }
    let first = *md_operands(node).first()?;
    if first.is_null() {
        return None;
    }
    let mut len = 0u32;
    let s = c::LLVMGetMDString(first, &mut len);
    (!s.is_null()).then(|| string_from(s, len as usize))
}

/// The operands of a metadata node (as values).
unsafe fn md_operands(node: sys::prelude::LLVMValueRef) -> Vec<sys::prelude::LLVMValueRef> {
    let n = c::LLVMGetMDNodeNumOperands(node) as usize;
    let mut ops = vec![std::ptr::null_mut(); n];
    if n > 0 {
        c::LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
    }
    ops
}

impl Block {
    /// The function a block belongs to.
    pub fn parent(self) -> Val {
        Val(unsafe { c::LLVMGetBasicBlockParent(self.0) })
    }
    /// The block's instructions in order.
    pub fn instructions(self) -> Vec<Val> {
        let mut out = Vec::new();
        let mut i = unsafe { c::LLVMGetFirstInstruction(self.0) };
        while !i.is_null() {
            out.push(Val(i));
            i = unsafe { c::LLVMGetNextInstruction(i) };
        }
        out
    }
    /// The block's terminator, if it has one.
    pub fn terminator(self) -> Option<Val> {
        let t = unsafe { c::LLVMGetBasicBlockTerminator(self.0) };
        (!t.is_null()).then_some(Val(t))
    }
    /// The last instruction, if any.
    pub fn last_instruction(self) -> Option<Val> {
        let i = unsafe { c::LLVMGetLastInstruction(self.0) };
        (!i.is_null()).then_some(Val(i))
    }
    /// The first instruction, if any.
    pub fn first_instruction(self) -> Option<Val> {
        let i = unsafe { c::LLVMGetFirstInstruction(self.0) };
        (!i.is_null()).then_some(Val(i))
    }
    /// This block as a value (for branch operands and phi incoming blocks).
    pub fn as_value(self) -> Val {
        Val(unsafe { c::LLVMBasicBlockAsValue(self.0) })
    }
    /// The block's successors (empty without a terminator).
    pub fn successors(self) -> Vec<Block> {
        self.terminator().map(Val::successors).unwrap_or_default()
    }
}
