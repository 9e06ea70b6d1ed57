//! Thin, copyable handles over LLVM's C API: values ([`Val`]), types ([`Ty`]) and blocks
//! ([`Block`]), plus an instruction [`Builder`].
//!
//! The rest of the crate never touches `llvm_sys` directly except through this module. Handles
//! are plain pointers: they stay valid as long as the module that owns them, which outlives every
//! differentiation session. Queries here never mutate IR; mutation goes through [`Builder`] or the
//! few explicit `set_*`/`erase` methods.

// Handles wrap LLVM's opaque pointers; the module they come from vouches for them, so the
// public functions taking raw LLVM refs (target machines, modules) are not `unsafe fn`.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

mod builder;
pub mod debug_types;
mod defined;
pub mod fast_math;
mod function_copy;
pub mod link;
mod types;
mod values;

pub use builder::{intrinsic_declaration, inverse_pred, swapped_pred, Builder, IntPred, RealPred};
pub use defined::with_defined_mask;
pub use function_copy::{
    copy_fixed_arity, copy_function, copy_returning_through_memory, copyable,
    copyable_with_another_signature, fresh_name, ignores_variable_arguments, path_alignment,
    scalar_paths, WRITES_NO_MEMORY,
};
pub use types::{Ty, TyKind};
pub use values::{new_alias_scopes, AliasScope, Block, Opcode, Val};

pub(crate) use inkwell::llvm_sys as sys;

use std::ffi::{CStr, CString};

/// Copies an LLVM-owned string of known length.
pub(crate) fn string_from(ptr: *const std::os::raw::c_char, len: usize) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: LLVM hands out `len` valid bytes at `ptr`.
    let bytes = unsafe { std::slice::from_raw_parts(ptr as *const u8, len) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// Takes ownership of an LLVM-allocated message (from `LLVMPrint*ToString`).
pub(crate) fn take_message(ptr: *mut std::os::raw::c_char) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: `ptr` is a NUL-terminated string LLVM allocated for us; we free it once.
    unsafe {
        let s = CStr::from_ptr(ptr).to_string_lossy().into_owned();
        sys::core::LLVMDisposeMessage(ptr);
        s
    }
}

/// A C string for passing names to LLVM. Interior NULs (impossible in LLVM names) become empty.
pub(crate) fn cstr(s: &str) -> CString {
    CString::new(s).unwrap_or_default()
}

/// A module that exists only while this guard lives (see [`Module::scratch`]).
pub struct ScratchModule(pub Module);

impl Drop for ScratchModule {
    fn drop(&mut self) {
        // SAFETY: the scratch module is owned by this guard alone and disposed once.
        unsafe { sys::core::LLVMDisposeModule((self.0).0) }
    }
}

/// An LLVM context handle.
pub type Context = sys::prelude::LLVMContextRef;

/// The raw module handle the C ABI passes in.
pub type RawModule = sys::prelude::LLVMModuleRef;

/// A raw target machine handle (null for none), as the driver and the plugin pass one to
/// [`crate::reoptimize::run_pipeline`].
pub type RawTargetMachine = sys::target_machine::LLVMTargetMachineRef;

/// The module a function or global lives in, and module-level queries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Module(pub sys::prelude::LLVMModuleRef);

impl Module {
    /// The module's context.
    pub fn context(self) -> sys::prelude::LLVMContextRef {
        unsafe { sys::core::LLVMGetModuleContext(self.0) }
    }

    /// All functions (definitions and declarations), in module order.
    pub fn functions(self) -> Vec<Val> {
        let mut out = Vec::new();
        let mut f = unsafe { sys::core::LLVMGetFirstFunction(self.0) };
        while !f.is_null() {
            out.push(Val(f));
            f = unsafe { sys::core::LLVMGetNextFunction(f) };
        }
        out
    }

    /// All global variables, in module order.
    pub fn globals(self) -> Vec<Val> {
        let mut out = Vec::new();
        let mut g = unsafe { sys::core::LLVMGetFirstGlobal(self.0) };
        while !g.is_null() {
            out.push(Val(g));
            g = unsafe { sys::core::LLVMGetNextGlobal(g) };
        }
        out
    }

    /// The function called `name`, if any.
    pub fn function(self, name: &str) -> Option<Val> {
        let c = cstr(name);
        let f = unsafe { sys::core::LLVMGetNamedFunction(self.0, c.as_ptr()) };
        (!f.is_null()).then_some(Val(f))
    }

    /// Declares (or returns the existing) function `name` of type `fn_ty`.
    pub fn get_or_add_function(self, name: &str, fn_ty: Ty) -> Val {
        if let Some(f) = self.function(name) {
            return f;
        }
        let c = cstr(name);
        Val(unsafe { sys::core::LLVMAddFunction(self.0, c.as_ptr(), fn_ty.0) })
    }

    /// Adds a fresh function; LLVM renames it if `name` is taken.
    pub fn add_function(self, name: &str, fn_ty: Ty) -> Val {
        let c = cstr(name);
        Val(unsafe { sys::core::LLVMAddFunction(self.0, c.as_ptr(), fn_ty.0) })
    }

    /// The global variable called `name`, if any.
    pub fn global(self, name: &str) -> Option<Val> {
        let c = cstr(name);
        let g = unsafe { sys::core::LLVMGetNamedGlobal(self.0, c.as_ptr()) };
        (!g.is_null()).then_some(Val(g))
    }

    /// Adds a global variable of type `ty`.
    pub fn add_global(self, ty: Ty, name: &str) -> Val {
        let c = cstr(name);
        Val(unsafe { sys::core::LLVMAddGlobal(self.0, ty.0, c.as_ptr()) })
    }

    /// The module's identifier (the file it was read from, for clang the source file).
    pub fn identifier(self) -> String {
        let mut len = 0;
        let p = unsafe { sys::core::LLVMGetModuleIdentifier(self.0, &mut len) };
        if p.is_null() {
            return String::new();
        }
        let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, len) };
        String::from_utf8_lossy(bytes).into_owned()
    }

    /// The module's target triple (empty when it has none).
    pub fn target_triple(self) -> String {
        let t = unsafe { sys::core::LLVMGetTarget(self.0) };
        if t.is_null() {
            return String::new();
        }
        unsafe { CStr::from_ptr(t) }.to_string_lossy().into_owned()
    }

    /// An empty module in `ctx` for building throw-away code (probing what a rule's partials
    /// read); disposed when the guard drops.
    pub fn scratch(ctx: sys::prelude::LLVMContextRef) -> ScratchModule {
        let name = cstr("umbra.scratch");
        ScratchModule(Module(unsafe {
            sys::core::LLVMModuleCreateWithNameInContext(name.as_ptr(), ctx)
        }))
    }

    /// The module's data layout.
    pub fn data_layout(self) -> sys::target::LLVMTargetDataRef {
        unsafe { sys::target::LLVMGetModuleDataLayout(self.0) }
    }

    /// Allocation size of `ty` in bytes under this module's data layout.
    pub fn alloc_size(self, ty: Ty) -> u64 {
        unsafe { sys::target::LLVMABISizeOfType(self.data_layout(), ty.0) }
    }

    /// ABI alignment of `ty` in bytes under this module's data layout.
    pub fn abi_alignment(self, ty: Ty) -> u32 {
        unsafe { sys::target::LLVMABIAlignmentOfType(self.data_layout(), ty.0) }
    }

    /// Store size of `ty` in bytes (what a load or store of it touches).
    pub fn store_size(self, ty: Ty) -> u64 {
        unsafe { sys::target::LLVMStoreSizeOfType(self.data_layout(), ty.0) }
    }

    /// Byte offset of field `k` in struct type `ty`.
    pub fn field_offset(self, ty: Ty, k: u32) -> u64 {
        unsafe { sys::target::LLVMOffsetOfElement(self.data_layout(), ty.0, k) }
    }

    /// The byte offset a getelementptr (instruction or constant expression) adds to its base,
    /// when every index is a constant and every type stepped over has a fixed size; `None`
    /// otherwise, for a vector of addresses, and on overflow.
    pub fn const_gep_offset(self, gep: Val) -> Option<i64> {
        if !gep.ty().is_ptr() {
            return None;
        }
        let fixed_size = |t: Ty| {
            (!t.is_scalable_vector() && !t.is_void())
                .then(|| i64::try_from(self.alloc_size(t)).ok())?
        };
        let mut ty = gep.gep_source_type();
        if gep.num_operands() < 2 {
            return Some(0);
        }
        let mut off = gep
            .operand(1)
            .const_int_sext()?
            .checked_mul(fixed_size(ty)?)?;
        for k in 2..gep.num_operands() {
            let idx = gep.operand(k).const_int_sext()?;
            match ty.kind() {
                TyKind::Struct => {
                    let field = u32::try_from(idx).ok()?;
                    let next = *ty.struct_fields().get(field as usize)?;
                    off = off.checked_add(i64::try_from(self.field_offset(ty, field)).ok()?)?;
                    ty = next;
                }
                TyKind::Array | TyKind::Vector => {
                    ty = ty.element();
                    off = off.checked_add(idx.checked_mul(fixed_size(ty)?)?)?;
                }
                _ => return None,
            }
        }
        Some(off)
    }

    /// The integer type as wide as a pointer (`i64` on the usual targets).
    pub fn intptr_ty(self) -> Ty {
        Ty(unsafe { sys::target::LLVMIntPtrTypeInContext(self.context(), self.data_layout()) })
    }

    /// Verifies the module; `Err` carries LLVM's report.
    pub fn verify(self) -> std::result::Result<(), String> {
        let mut msg = std::ptr::null_mut();
        let failed = unsafe {
            sys::analysis::LLVMVerifyModule(
                self.0,
                sys::analysis::LLVMVerifierFailureAction::LLVMReturnStatusAction,
                &mut msg,
            )
        };
        let text = take_message(msg);
        if failed != 0 {
            Err(text)
        } else {
            Ok(())
        }
    }

    /// Runs a new-pass-manager pipeline (`passes` in `opt -passes=` syntax) over the module.
    pub fn run_passes(
        self,
        passes: &str,
        tm: sys::target_machine::LLVMTargetMachineRef,
    ) -> std::result::Result<(), String> {
        use sys::transforms::pass_builder as pb;
        let p = cstr(passes);
        unsafe {
            let opts = pb::LLVMCreatePassBuilderOptions();
            let err = pb::LLVMRunPasses(self.0, p.as_ptr(), tm, opts);
            pb::LLVMDisposePassBuilderOptions(opts);
            error_to_result(err)
        }
    }
}

/// Runs a function pipeline on one function only.
pub fn run_function_passes(f: Val, passes: &str) -> std::result::Result<(), String> {
    use sys::transforms::pass_builder as pb;
    let p = cstr(passes);
    unsafe {
        let opts = pb::LLVMCreatePassBuilderOptions();
        let err = pb::LLVMRunPassesOnFunction(f.0, p.as_ptr(), std::ptr::null_mut(), opts);
        pb::LLVMDisposePassBuilderOptions(opts);
        error_to_result(err)
    }
}

fn error_to_result(err: sys::error::LLVMErrorRef) -> std::result::Result<(), String> {
    if err.is_null() {
        return Ok(());
    }
    let msg = unsafe { sys::error::LLVMGetErrorMessage(err) };
    let text = unsafe { CStr::from_ptr(msg).to_string_lossy().into_owned() };
    unsafe { sys::error::LLVMDisposeErrorMessage(msg) };
    Err(text)
}

/// Parses textual IR into a module of `ctx` (tests only); panics with LLVM's message on error.
#[cfg(test)]
pub(crate) fn parse_test_module<'c>(
    ctx: &'c inkwell::context::Context,
    text: &str,
) -> inkwell::module::Module<'c> {
    let buf = inkwell::memory_buffer::MemoryBuffer::create_from_memory_range_copy(
        text.as_bytes(),
        "test",
    );
    match ctx.create_module_from_ir(buf) {
        Ok(m) => m,
        Err(e) => panic!("invalid test IR: {e}\n{text}"),
    }
}

#[cfg(test)]
mod tests;
