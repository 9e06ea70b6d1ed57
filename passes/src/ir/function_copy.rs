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
    !f.function_type().is_var_arg() && copyable_body(f)
}

/// True when `f` has a body without block addresses or `returns_twice` callees.
fn copyable_body(f: Val) -> bool {
    if f.is_declaration() {
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
    copy_with_type(f, name, f.function_type(), 0)
}

/// True when variadic `f` never reads its variable arguments: its body has no `va_start`
/// (a C++ deduction helper such as libstdc++'s `[](_V0& v, ...) { return v; }`). Such a
/// function computes the same with the extra arguments dropped.
pub fn ignores_variable_arguments(f: Val) -> bool {
    f.function_type().is_var_arg()
        && copyable_with_another_signature(f)
        && f.blocks().into_iter().all(|b| {
            b.instructions().into_iter().all(|i| {
                !i.is_call()
                    || i.called_function()
                        .is_none_or(|g| !g.name().starts_with("llvm.va_start"))
            })
        })
}

/// True when `f` has a body a copy with another signature reproduces: [`copyable`] but for
/// being variadic, and no `musttail` call (whose caller must return its result, with a
/// matching prototype).
pub fn copyable_with_another_signature(f: Val) -> bool {
    copyable_body(f)
        && !f.blocks().into_iter().any(|b| {
            b.instructions()
                .into_iter()
                .any(|i| i.is_call() && i.is_musttail())
        })
}

/// A copy of variadic `f`, which must [`ignores_variable_arguments`], taking its fixed
/// parameters only, named `name`, with internal linkage.
pub fn copy_fixed_arity(f: Val, name: &str) -> Val {
    let fty = f.function_type();
    let ty = super::Ty::function(fty.return_type(), &fty.param_types(), false);
    copy_with_type(f, name, ty, 0)
}

/// A copy of `f` (which must be [`copyable`] and [`copyable_with_another_signature`]) named
/// `name`, with internal linkage, that returns nothing and takes first a pointer to where it stores what `f` returns (a struct
/// returned through memory, as `sret` does). Each `ret %v` becomes stores of `%v`'s scalars
/// ([`scalar_paths`]) into that memory, laid out as `f`'s return type, and `ret void`.
pub fn copy_returning_through_memory(f: Val, name: &str) -> Val {
    let m = f.module();
    let ctx = m.context();
    let ret = f.function_type().return_type();
    let mut params = vec![super::Ty::ptr(ctx)];
    params.extend(f.function_type().param_types());
    let ty = super::Ty::function(super::Ty::void(ctx), &params, false);
    let copy = copy_with_type(f, name, ty, 1);
    // The copy writes memory `f` may have been known not to (`memory(argmem: read)` on a
    // helper at -O2): with that attribute kept, the optimiser dropped its stores.
    for attr in WRITES_NO_MEMORY {
        copy.set_fn_attr(attr, false);
    }
    let out = copy.params()[0];
    out.set_name("out");
    let i32_ty = super::Ty::int(ctx, 32);
    let mut b = Builder::new(m);
    for block in copy.blocks() {
        let Some(r) = block.terminator().filter(|t| t.opcode() == Opcode::LLVMRet) else {
            continue;
        };
        let v = r.operand(0);
        b.position_before(r);
        for path in scalar_paths(ret) {
            let mut e = v;
            for &k in &path {
                e = b.extract_value(e, k);
            }
            let mut idx = vec![i32_ty.int_const(0)];
            idx.extend(path.iter().map(|&k| i32_ty.int_const(k as u64)));
            let at = b.gep(ret, out, &idx, true);
            b.store(e, at, path_alignment(m, ret, &path));
        }
        let nr = b.ret_void();
        nr.copy_debug_location(r);
        r.erase();
    }
    copy
}

/// Function attributes that say a function writes no memory (or may run where it was not
/// called): wrong for a copy that stores what the original returned.
pub const WRITES_NO_MEMORY: [&str; 4] = ["memory", "readnone", "readonly", "speculatable"];

/// The alignment a scalar at `path` inside memory of type `t` aligned for `t` has (what a
/// packed struct leaves of it included).
pub fn path_alignment(m: super::Module, t: super::Ty, path: &[u32]) -> u32 {
    use super::TyKind;
    let mut offset = 0u64;
    let mut ty = t;
    for &k in path {
        match ty.kind() {
            TyKind::Struct => {
                offset += m.field_offset(ty, k);
                ty = ty.struct_fields()[k as usize];
            }
            _ => {
                ty = ty.element();
                offset += k as u64 * m.alloc_size(ty);
            }
        }
    }
    let mut align = m.abi_alignment(ty).min(m.abi_alignment(t));
    if offset > 0 {
        align = align.min(1 << offset.trailing_zeros().min(31));
    }
    align.max(1)
}

/// The index paths (as `extractvalue` takes them) of every scalar inside struct or array type
/// `t`, in memory order; `[[]]` for a scalar.
pub fn scalar_paths(t: super::Ty) -> Vec<Vec<u32>> {
    use super::TyKind;
    let fields: Vec<super::Ty> = match t.kind() {
        TyKind::Struct => t.struct_fields(),
        TyKind::Array => (0..t.array_len()).map(|_| t.element()).collect(),
        _ => return vec![Vec::new()],
    };
    let mut out = Vec::new();
    for (k, f) in fields.into_iter().enumerate() {
        for mut p in scalar_paths(f) {
            p.insert(0, k as u32);
            out.push(p);
        }
    }
    out
}

/// A function named `name` of type `ty` with `f`'s body, attributes and calling convention;
/// `f`'s parameters become the copy's from index `shift` on (the return value's attributes
/// are dropped when `shift` is not 0: the copy returns something else).
fn copy_with_type(f: Val, name: &str, ty: super::Ty, shift: u32) -> Val {
    let m = f.module();
    let copy = m.add_function(name, ty);
    unsafe {
        let n = f.params().len() as u32;
        // The function's, the return value's (index 0) and each parameter's attributes.
        for idx in std::iter::once(FUNCTION_INDEX).chain(0..=n) {
            if idx == 0 && shift != 0 {
                continue;
            }
            let to = if idx == FUNCTION_INDEX || idx == 0 {
                idx
            } else {
                idx + shift
            };
            let count = c::LLVMGetAttributeCountAtIndex(f.0, idx);
            let mut attrs = vec![std::ptr::null_mut(); count as usize];
            c::LLVMGetAttributesAtIndex(f.0, idx, attrs.as_mut_ptr());
            for a in attrs {
                c::LLVMAddAttributeAtIndex(copy.0, to, a);
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
    for (p, q) in f
        .params()
        .into_iter()
        .zip(copy.params().into_iter().skip(shift as usize))
    {
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
