//! Debug locations beyond `file:line:col`: which function an instruction was inlined from
//! (`-g` records each inlined copy's chain of call sites). Read-only; without debug information
//! every answer is "unknown".

use super::super::{string_from, sys};
use super::Val;
use sys::core as c;

impl Val {
    /// Where the optimiser inlined function `f`'s body into this instruction's function, when
    /// the instruction's debug location (`-g`) says it comes from such an inlined copy: the
    /// call site in the instruction's own function, `file:line:col` (`?` when unknown). `None`
    /// without debug information or when `f` has no debug-info subprogram.
    pub fn inlined_from(self, f: Val) -> Option<String> {
        use sys::debuginfo as di;

        if !self.is_instruction() {
            return None;
        }
        unsafe {
            let target = di::LLVMGetSubprogram(f.0);
            if target.is_null() {
                return None;
            }
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let mut loc = di::LLVMInstructionGetDebugLoc(self.0);
            let mut found = false;
            // Each level of the chain is a location in one (inlined) function; the last is in
            // the instruction's own function, where the outermost inlined call was.
            while !loc.is_null() {
                let outer = di::LLVMDILocationGetInlinedAt(loc);
                if outer.is_null() {
                    break;
                }
                found |= subprogram_of(ctx, di::LLVMDILocationGetScope(loc)) == Some(target);
                loc = outer;
            }
            if !found || loc.is_null() {
                return None;
            }
            let line = di::LLVMDILocationGetLine(loc);
            let col = di::LLVMDILocationGetColumn(loc);
            let file = di::LLVMDIScopeGetFile(di::LLVMDILocationGetScope(loc));
            let name = if file.is_null() {
                "?".to_string()
            } else {
                let mut len = 0;
                string_from(di::LLVMDIFileGetFilename(file, &mut len), len as usize)
            };
            Some(format!("{name}:{line}:{col}"))
        }
    }
}

/// The subprogram a debug-info scope belongs to: the scope itself, or the nearest subprogram
/// up its chain of lexical blocks (a block's scope is its operand 1).
///
/// # Safety
/// `scope` must be null or a metadata node of `ctx`.
unsafe fn subprogram_of(
    ctx: sys::prelude::LLVMContextRef,
    mut scope: sys::prelude::LLVMMetadataRef,
) -> Option<sys::prelude::LLVMMetadataRef> {
    use sys::debuginfo::{self as di, LLVMMetadataKind as K};
    // Lexical blocks nest as deep as the source does; the bound only guards against a cycle.
    for _ in 0..256 {
        if scope.is_null() {
            return None;
        }
        match di::LLVMGetMetadataKind(scope) {
            K::LLVMDISubprogramMetadataKind => return Some(scope),
            K::LLVMDILexicalBlockMetadataKind | K::LLVMDILexicalBlockFileMetadataKind => {
                let node = c::LLVMMetadataAsValue(ctx, scope);
                if c::LLVMGetMDNodeNumOperands(node) < 2 {
                    return None;
                }
                let mut ops =
                    vec![std::ptr::null_mut(); c::LLVMGetMDNodeNumOperands(node) as usize];
                c::LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
                scope = if ops[1].is_null() {
                    std::ptr::null_mut()
                } else {
                    c::LLVMValueAsMetadata(ops[1])
                };
            }
            _ => return None,
        }
    }
    None
}
