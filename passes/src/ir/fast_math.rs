//! Fast-math flags of floating-point instructions. LLVM's C API only adds flags: taking some
//! off means rebuilding the instruction ([`super::Builder::rebuilt_without_flags`]).

use super::sys;
use super::Val;
use sys::core as c;

/// `contract`: `a * b + c` may become one fused multiply-add.
pub const CONTRACT: u32 = sys::LLVMFastMathAllowContract;
/// `reassoc`: sums and products may be regrouped.
pub const REASSOC: u32 = sys::LLVMFastMathAllowReassoc;

impl Val {
    /// The fast-math flags of a floating-point operation (0 for anything else).
    pub fn fast_math_flags(self) -> u32 {
        unsafe {
            if self.is_instruction() && c::LLVMCanValueUseFastMathFlags(self.0) != 0 {
                c::LLVMGetFastMathFlags(self.0)
            } else {
                0
            }
        }
    }

    /// Adds fast-math flags to a floating-point operation (nothing for anything else).
    pub fn add_fast_math_flags(self, flags: u32) {
        unsafe {
            if self.is_instruction() && c::LLVMCanValueUseFastMathFlags(self.0) != 0 {
                c::LLVMSetFastMathFlags(self.0, flags)
            }
        }
    }
}
