//! [`Val`] and [`Block`]: handles on LLVM values and basic blocks, with the read-only queries the
//! analyses and visitors need (opcodes, operands, callees, debug locations, ...).

use super::{cstr, string_from, sys, take_message, Module, Ty, TyKind};
use sys::core as c;
pub use sys::LLVMOpcode as Opcode;

mod attributes;
mod debug_loc;
mod metadata;
pub use metadata::{new_alias_scopes, AliasScope};

/// LLVM's attribute index of a function itself (`LLVMAttributeFunctionIndex`).
const FUNCTION_INDEX: u32 = u32::MAX;

/// An LLVM value: an instruction, argument, constant, global or function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Val(pub(super) sys::prelude::LLVMValueRef);

/// A basic block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Block(pub(super) sys::prelude::LLVMBasicBlockRef);

impl Val {
    /// True for a handle to no value (an operand slot LLVM left empty, as some constant
    /// expressions' are): no query may be asked of it.
    pub fn is_null_handle(self) -> bool {
        self.0.is_null()
    }

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
    /// True for a `musttail` call (which only a `ret` may follow).
    pub fn is_musttail(self) -> bool {
        self.is_plain_call()
            && unsafe {
                c::LLVMGetTailCallKind(self.0) == sys::LLVMTailCallKind::LLVMTailCallKindMustTail
            }
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
        self.copy_call_site_shifted(from, 0)
    }
    /// [`Val::copy_call_site`] onto a call whose arguments are `from`'s from index `shift` on
    /// (the return value's attributes are dropped when `shift` is not 0: the call returns
    /// something else).
    pub fn copy_call_site_shifted(self, from: Val, shift: u32) {
        self.copy_call_site_args(from, shift, from.num_call_args())
    }
    /// [`Val::copy_call_site_shifted`] for `from`'s first `count` arguments only (a call that
    /// passes fewer).
    pub fn copy_call_site_args(self, from: Val, shift: u32, count: u32) {
        unsafe {
            let mut indices = vec![0, FUNCTION_INDEX];
            indices.extend(1..=count.min(from.num_call_args()));
            for idx in indices {
                if idx == 0 && shift != 0 {
                    continue;
                }
                let n = c::LLVMGetCallSiteAttributeCount(from.0, idx) as usize;
                if n == 0 {
                    continue;
                }
                let to = if idx == 0 || idx == FUNCTION_INDEX {
                    idx
                } else {
                    idx + shift
                };
                let mut attrs = vec![std::ptr::null_mut(); n];
                c::LLVMGetCallSiteAttributes(from.0, idx, attrs.as_mut_ptr());
                for a in attrs {
                    c::LLVMAddCallSiteAttribute(self.0, to, a);
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
    /// True for a definition another one may replace when linking (weak, linkonce without
    /// the one-definition rule, common, extern weak): its body is not necessarily the one
    /// that runs.
    pub fn is_interposable(self) -> bool {
        use sys::LLVMLinkage::*;
        let l = unsafe { c::LLVMGetLinkage(self.0) };
        matches!(
            l,
            LLVMWeakAnyLinkage
                | LLVMLinkOnceAnyLinkage
                | LLVMCommonLinkage
                | LLVMExternalWeakLinkage
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
    /// True for a thread-local global variable.
    pub fn is_thread_local(self) -> bool {
        unsafe { c::LLVMIsThreadLocal(self.0) != 0 }
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
    /// Deletes an instruction from its block. Panics unless `self` is an instruction in a block
    /// with no uses left: erasing a used instruction would leave its users pointing at freed
    /// memory. The handle (and every copy of it) is dangling afterwards and must not be used.
    pub fn erase(self) {
        assert!(
            self.is_instruction() && !self.parent_block().0.is_null(),
            "erase: not an instruction in a block"
        );
        assert!(!self.has_uses(), "erase: instruction still has uses");
        // SAFETY: an instruction in a block, without uses: LLVM unlinks and deletes it.
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
    /// The case value of successor `k` (from 1; 0 is the default) of a `switch`.
    pub fn switch_case_value(self, k: u32) -> Val {
        Val(unsafe { c::LLVMGetSwitchCaseValue(self.0, k) })
    }
    /// Makes successor `k` of a terminator `to`.
    pub fn set_successor(self, k: u32, to: Block) {
        unsafe { c::LLVMSetSuccessor(self.0, k, to.0) }
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
    /// True for an `atomicrmw` doing integer arithmetic on an integer (`add`, `sub`, `min`,
    /// `max` and their unsigned and wrapping forms): a reference count or a ticket, never a
    /// float moved as bits (unlike `xchg` or the bitwise operations).
    pub fn is_atomic_integer_arithmetic(self) -> bool {
        use sys::LLVMAtomicRMWBinOp::*;
        self.opcode() == Opcode::LLVMAtomicRMW
            && self.ty().kind() == TyKind::Int
            && matches!(
                unsafe { c::LLVMGetAtomicRMWBinOp(self.0) },
                LLVMAtomicRMWBinOpAdd
                    | LLVMAtomicRMWBinOpSub
                    | LLVMAtomicRMWBinOpMax
                    | LLVMAtomicRMWBinOpMin
                    | LLVMAtomicRMWBinOpUMax
                    | LLVMAtomicRMWBinOpUMin
                    | LLVMAtomicRMWBinOpUIncWrap
                    | LLVMAtomicRMWBinOpUDecWrap
                    | LLVMAtomicRMWBinOpUSubCond
                    | LLVMAtomicRMWBinOpUSubSat
            )
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
