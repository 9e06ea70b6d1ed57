//! Attributes of functions, calls and parameters: LLVM's integer and string attributes,
//! calling conventions, and marking calls pure.

use super::*;

impl Val {
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
    /// Removes the enum attribute `name` from call `self`'s function attributes.
    pub fn remove_call_fn_attr(self, name: &str) {
        unsafe {
            let kind = c::LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            if kind != 0 {
                c::LLVMRemoveCallSiteEnumAttribute(self.0, FUNCTION_INDEX, kind);
            }
        }
    }
    /// Sets the enum attribute `name` with integer `value` on function `self` (`memory` with
    /// its effect bits, two per location: argument memory first, `1` reads, `2` writes).
    pub fn set_fn_attr_value(self, name: &str, value: u64) {
        unsafe {
            let kind = c::LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            if kind == 0 {
                return;
            }
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let a = c::LLVMCreateEnumAttribute(ctx, kind, value);
            c::LLVMAddAttributeAtIndex(self.0, FUNCTION_INDEX, a);
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

    /// Adds the value-less enum attribute `name` (`noalias`, ...) to parameter `k` of
    /// function `self`.
    pub fn add_param_attr(self, k: u32, name: &str) {
        unsafe {
            let kind = c::LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            if kind == 0 {
                return;
            }
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let a = c::LLVMCreateEnumAttribute(ctx, kind, 0);
            c::LLVMAddAttributeAtIndex(self.0, k + 1, a);
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
    /// True when call `self` itself (not its callee) carries the enum function attribute `name`
    /// (`alwaysinline`, ...).
    pub fn call_site_fn_attr(self, name: &str) -> bool {
        self.call_attr_value(FUNCTION_INDEX, name).is_some()
    }
    /// Adds (true) or removes (false) the value-less enum function attribute `name` on call
    /// `self` itself: `alwaysinline` there asks LLVM's always-inliner to inline this call only.
    pub fn set_call_site_fn_attr(self, name: &str, on: bool) {
        unsafe {
            let kind = c::LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            if kind == 0 {
                return;
            }
            if on {
                let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
                let a = c::LLVMCreateEnumAttribute(ctx, kind, 0);
                c::LLVMAddCallSiteAttribute(self.0, FUNCTION_INDEX, a);
            } else {
                c::LLVMRemoveCallSiteEnumAttribute(self.0, FUNCTION_INDEX, kind);
            }
        }
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
}
