//! [`copy_function`]: a second definition of a function, with the same body, attributes and
//! calling convention, under another name and with internal linkage.
//!
//! Guarantees: the copy computes what the original computes (every instruction cloned, its
//! operands mapped to the copy's arguments, blocks and instructions; constants, globals and
//! calls to the original itself left as they are). Debug locations stay on the instructions;
//! the copy has no debug-info subprogram of its own (as derived functions), and its debug
//! records are not copied. Functions this cannot copy faithfully ([`copyable`]) are refused.

use super::{cstr, sys, Builder, Opcode, Val};
use std::collections::HashMap;
use sys::core as c;

/// LLVM's attribute index of a function itself.
const FUNCTION_INDEX: u32 = u32::MAX;

/// True when `f` has a body [`copy_function`] can copy: not variadic, no block addresses
/// (`indirectbr`, `callbr`), no `returns_twice` callee (`setjmp`), whose frames a copy
/// would not share.
pub fn copyable(f: Val) -> bool {
    if f.is_declaration() || f.function_type().is_var_arg() {
        return false;
    }
    let sets_jump = |i: Val| {
        i.is_call()
            && i.called_function()
                .is_some_and(|g| g.has_fn_attr("returns_twice"))
    };
    f.blocks().into_iter().all(|b| {
        b.instructions().into_iter().all(|i| {
            !matches!(i.opcode(), Opcode::LLVMIndirectBr | Opcode::LLVMCallBr) && !sets_jump(i)
        })
    })
}

/// A copy of `f` (which must be [`copyable`]) named `name`, with internal linkage.
pub fn copy_function(f: Val, name: &str) -> Val {
    let m = f.module();
    let copy = m.add_function(name, f.function_type());
    unsafe {
        let n = f.params().len() as u32;
        // The function's, the return value's (index 0) and each parameter's attributes.
        for idx in std::iter::once(FUNCTION_INDEX).chain(0..=n) {
            let count = c::LLVMGetAttributeCountAtIndex(f.0, idx);
            let mut attrs = vec![std::ptr::null_mut(); count as usize];
            c::LLVMGetAttributesAtIndex(f.0, idx, attrs.as_mut_ptr());
            for a in attrs {
                c::LLVMAddAttributeAtIndex(copy.0, idx, a);
            }
        }
        c::LLVMSetFunctionCallConv(copy.0, c::LLVMGetFunctionCallConv(f.0));
        if c::LLVMHasPersonalityFn(f.0) != 0 {
            c::LLVMSetPersonalityFn(copy.0, c::LLVMGetPersonalityFn(f.0));
        }
        let section = c::LLVMGetSection(f.0);
        if !section.is_null() {
            c::LLVMSetSection(copy.0, section);
        }
        c::LLVMSetAlignment(copy.0, c::LLVMGetAlignment(f.0));
    }
    copy.set_internal();
    let mut map: HashMap<Val, Val> = HashMap::new();
    for (p, q) in f.params().into_iter().zip(copy.params()) {
        q.set_name(&p.name());
        map.insert(p, q);
    }
    let blocks = f.blocks();
    let copies: Vec<_> = blocks
        .iter()
        .map(|b| copy.append_block(&b.as_value().name()))
        .collect();
    for (b, nb) in blocks.iter().zip(&copies) {
        map.insert(b.as_value(), nb.as_value());
    }
    // Instructions first, operands mapped once every value has its copy (a phi may read a
    // value defined further down).
    let mut builder = Builder::new(m);
    let mut made: Vec<(Val, Val)> = Vec::new();
    for (b, &nb) in blocks.iter().zip(&copies) {
        builder.position_at_end(nb);
        for i in b.instructions() {
            let n = if i.opcode() == Opcode::LLVMPHI {
                builder.phi(i.ty())
            } else {
                let n = Val(unsafe { c::LLVMInstructionClone(i.0) });
                n.drop_assignment_link();
                builder.insert(n);
                n
            };
            n.set_name(&i.name());
            map.insert(i, n);
            made.push((i, n));
        }
    }
    let mapped = |v: Val| {
        if v.is_null_handle() {
            v
        } else {
            map.get(&v).copied().unwrap_or(v)
        }
    };
    for (i, n) in made {
        if i.opcode() == Opcode::LLVMPHI {
            for (v, b) in i.incoming() {
                n.add_incoming(mapped(v), mapped(b.as_value()).as_block());
            }
            continue;
        }
        for k in 0..i.num_operands() {
            let o = i.operand(k);
            let to = mapped(o);
            if to != o {
                n.set_operand(k, to);
            }
        }
    }
    copy
}

/// A name no global of `f`'s module has yet: `base`, or `base` with a counter.
pub fn fresh_name(f: Val, base: &str) -> String {
    let m = f.module();
    let taken = |n: &str| unsafe { !c::LLVMGetNamedFunction(m.0, cstr(n).as_ptr()).is_null() };
    if !taken(base) {
        return base.to_string();
    }
    (1..)
        .map(|k| format!("{base}.{k}"))
        .find(|n| !taken(n))
        .unwrap_or_default()
}
