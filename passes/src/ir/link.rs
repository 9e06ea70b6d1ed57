//! Bringing function bodies in from outside the module: the `.llvmbc` section of an object
//! file (where rustc embeds each codegen unit's bitcode in an rlib), parsing that bitcode into
//! the module's context, and linking chosen definitions in as `internal` copies. Used by
//! [`crate::rustlib`]; kept here so that only `ir` touches LLVM's C API.

use super::{cstr, sys, take_message, Module, Val};
use std::collections::HashSet;

/// The contents of section `name` of the object file `bytes` (ELF, Mach-O, COFF: whatever
/// LLVM's object reader knows), or `Err` with why not.
pub fn object_section(
    ctx: sys::prelude::LLVMContextRef,
    bytes: &[u8],
    name: &str,
) -> std::result::Result<Option<Vec<u8>>, String> {
    use sys::object as o;
    let buf_name = cstr("rlib member");
    unsafe {
        // No copy and no NUL terminator: `bytes` outlives the binary, which is disposed below.
        let buf = sys::core::LLVMCreateMemoryBufferWithMemoryRange(
            bytes.as_ptr() as *const _,
            bytes.len(),
            buf_name.as_ptr(),
            0,
        );
        let mut err = std::ptr::null_mut();
        let bin = o::LLVMCreateBinary(buf, ctx, &mut err);
        if bin.is_null() {
            sys::core::LLVMDisposeMemoryBuffer(buf);
            return Err(take_message(err));
        }
        let it = o::LLVMObjectFileCopySectionIterator(bin);
        let mut found = None;
        while o::LLVMObjectFileIsSectionIteratorAtEnd(bin, it) == 0 {
            let p = o::LLVMGetSectionName(it);
            if !p.is_null() && std::ffi::CStr::from_ptr(p).to_bytes() == name.as_bytes() {
                let size = o::LLVMGetSectionSize(it) as usize;
                let data = o::LLVMGetSectionContents(it) as *const u8;
                if !data.is_null() {
                    found = Some(std::slice::from_raw_parts(data, size).to_vec());
                }
                break;
            }
            o::LLVMMoveToNextSection(it);
        }
        o::LLVMDisposeSectionIterator(it);
        o::LLVMDisposeBinary(bin);
        sys::core::LLVMDisposeMemoryBuffer(buf);
        Ok(found)
    }
}

/// Parses `bitcode` into a new module of `ctx`. The caller links it away or disposes of it.
pub fn parse_bitcode(
    ctx: sys::prelude::LLVMContextRef,
    bitcode: &[u8],
) -> std::result::Result<Module, String> {
    let buf_name = cstr("rlib bitcode");
    unsafe {
        let buf = sys::core::LLVMCreateMemoryBufferWithMemoryRangeCopy(
            bitcode.as_ptr() as *const _,
            bitcode.len(),
            buf_name.as_ptr(),
        );
        let mut m = std::ptr::null_mut();
        let failed = sys::bit_reader::LLVMParseBitcodeInContext2(ctx, buf, &mut m);
        sys::core::LLVMDisposeMemoryBuffer(buf);
        if failed != 0 || m.is_null() {
            return Err("LLVM could not read it as bitcode".to_string());
        }
        Ok(Module(m))
    }
}

/// Links the definitions `wanted` of `src` into `dest` (which declares them), with whatever
/// they refer to in `src`, and gives each linked definition `internal` linkage: the final link
/// against the library `src` came from then sees no second definition of any symbol. `src` is
/// consumed. Returns the names linked in (those of `wanted` that `src` defines).
pub fn link_internal(
    dest: Module,
    src: Module,
    wanted: &HashSet<String>,
) -> std::result::Result<Vec<String>, String> {
    let mut linked = Vec::new();
    // Everything but the wanted definitions becomes internal before linking, so that the
    // linker neither clashes with nor resolves against `dest`'s own symbols of the same names
    // (it renames internal ones), and global DCE drops what the wanted ones do not reach.
    for v in src.functions().into_iter().chain(src.globals()) {
        if v.is_declaration_value() {
            continue;
        }
        unsafe { sys::comdat::LLVMSetComdat(v.0, std::ptr::null_mut()) };
        if v.is_function() && wanted.contains(&v.name()) {
            unsafe { sys::core::LLVMSetLinkage(v.0, sys::LLVMLinkage::LLVMExternalLinkage) };
            linked.push(v.name());
        } else {
            v.set_internal();
        }
    }
    for a in aliases(src) {
        a.set_internal();
    }
    // Constant arguments the caller substituted for parameters reach the helpers the wanted
    // function alone calls (IPSCCP propagates into internal functions).
    if let Err(e) = src.run_passes("globaldce,ipsccp,globaldce", std::ptr::null_mut()) {
        unsafe { sys::core::LLVMDisposeModule(src.0) };
        return Err(e);
    }
    // rustc's module flags (PIC level, ...) agree across one toolchain's crates; a conflict
    // is reported through the context's diagnostics and fails the link.
    if unsafe { sys::linker::LLVMLinkModules2(dest.0, src.0) } != 0 {
        return Err("LLVM's linker refused the module".to_string());
    }
    for name in &linked {
        if let Some(f) = dest.function(name) {
            f.set_internal();
        }
    }
    Ok(linked)
}

/// Disposes of a module parsed by [`parse_bitcode`] that is not linked anywhere.
pub fn dispose(m: Module) {
    unsafe { sys::core::LLVMDisposeModule(m.0) }
}

/// The module's global aliases.
fn aliases(m: Module) -> Vec<Val> {
    let mut out = Vec::new();
    let mut a = unsafe { sys::core::LLVMGetFirstGlobalAlias(m.0) };
    while !a.is_null() {
        out.push(Val(a));
        a = unsafe { sys::core::LLVMGetNextGlobalAlias(a) };
    }
    out
}

impl Val {
    /// True for a function or global variable without a definition in its module (an alias
    /// always has one).
    fn is_declaration_value(self) -> bool {
        unsafe { sys::core::LLVMIsDeclaration(self.0) != 0 }
    }
}
