//! Floating-point contraction made explicit, so that the derived functions' copies of the
//! primal round exactly as the program does.
//!
//! Under `-ffast-math` (`-ffp-contract=fast`) clang leaves `a * b + c` as an `fmul` and an
//! `fadd` flagged `contract`, and the back end fuses them into one `fma` where the product has
//! no other use, within one block. That decision depends on the code around it: a gradient's
//! forward sweep drops values the program computes but the adjoint does not need (a running sum
//! returned by the function), which leaves a product with one use and fuses it where the
//! program did not (or the other way round). The sweep then computes primal values that differ
//! from the program's in the last bits, and a comparison that ties within an ulp (`std::max` of
//! two face areas) goes the other way: forward and reverse mode disagree. Regrouping under
//! `reassoc` (the machine combiner's reassociation of chains of additions) depends on context
//! the same way.
//!
//! So, before differentiation, every contraction the back end would make in the program is
//! written out as `llvm.fmuladd` (which code generation fuses on every FMA target and leaves as
//! a multiply and an add elsewhere, the same way everywhere) in every function of the module;
//! copies of primal instructions in derived code lose `contract` and `reassoc`
//! ([`PRIMAL_COPY_FLAGS`]); and after differentiation the program's own functions lose them
//! too ([`settle_primal`]). The adjoint's own arithmetic keeps the program's flags: it rounds
//! its own way anyway, and `reassoc` is what lets its accumulations vectorise.
//!
//! Guarantee: in a module with requests, every floating-point operation of the primal and of
//! its copies in derived code is computed by the same instruction sequence.

use crate::ir::fast_math::{CONTRACT, REASSOC};
use crate::ir::{Builder, Module, Opcode, Val};

/// The flags taken off the arithmetic of copies of primal instructions and, after
/// differentiation, off the primal's own.
pub(crate) const PRIMAL_COPY_FLAGS: u32 = CONTRACT | REASSOC;

/// `copy`, a copy of a primal instruction in derived code just emitted by `b`, without
/// [`PRIMAL_COPY_FLAGS`] (rebuilt after it by `b`, which then replaces it, where it has them).
/// Only arithmetic is rebuilt: on calls, comparisons, selects and conversions the two flags
/// change no rounding code generation does (the `reassoc` of a call chooses a reduction's
/// shape, the same everywhere).
pub(crate) fn settle_copy(b: &mut Builder, copy: Val) -> Val {
    b.rebuilt_without_flags(copy, PRIMAL_COPY_FLAGS)
}

/// Writes out every contraction the back end would make, in every defined function of
/// `module`: an `fadd`/`fsub` allowed to contract whose operand is an `fmul` allowed to
/// contract, in the same block, with no other use, becomes `llvm.fmuladd` (`a*b - c` as
/// `fmuladd(a, b, -c)`, `c - a*b` as `fmuladd(-a, b, c)`, as the back end fuses them).
pub(crate) fn make_explicit(module: Module) {
    for f in module.functions() {
        if f.is_declaration() || !may_fuse(f) {
            continue;
        }
        let mut b = Builder::new(module);
        for block in f.blocks() {
            for i in block.instructions() {
                fuse(&mut b, i);
            }
        }
    }
}

/// True when code generation may fuse multiply-adds in `f`: its target has FMA, or `f` does
/// not say (then the driver's target, the host's, decides). Where it cannot, the program's
/// `contract` pairs stay a multiply and an add everywhere, and writing them out as
/// `llvm.fmuladd` would only change how the optimiser treats them (an Enzyme test's two
/// gradients of one function, one a loop, one straight code, drifted apart by 5e-13 so).
fn may_fuse(f: Val) -> bool {
    match f.string_fn_attr("target-features") {
        Some(features) => features.split(',').any(|x| x == "+fma" || x == "+fma4"),
        None => true,
    }
}

/// True when `f`'s target says it has FMA (`target-features` with `+fma` or `+fma4`): the
/// adjoint's own arithmetic of `f` may then be fused ([`crate::reverse`]'s adjoint sweep flags
/// it `contract`). Unlike [`may_fuse`], a function that does not say is left alone: hand-written
/// IR without target attributes keeps its derivative's operations as they are written.
pub(crate) fn has_fma(f: Val) -> bool {
    f.string_fn_attr("target-features")
        .is_some_and(|features| features.split(',').any(|x| x == "+fma" || x == "+fma4"))
}

/// Takes [`PRIMAL_COPY_FLAGS`] off the operations of `functions` (the program's own, after
/// differentiation, so that they round as their copies do).
pub(crate) fn settle_primal(module: Module, functions: &[Val]) {
    let mut b = Builder::new(module);
    for &f in functions {
        for block in f.blocks() {
            for i in block.instructions() {
                if i.fast_math_flags() & PRIMAL_COPY_FLAGS != 0 {
                    b.position_before(i);
                    b.rebuilt_without_flags(i, PRIMAL_COPY_FLAGS);
                }
            }
        }
    }
}

/// `i` as `llvm.fmuladd` when it is an addition or subtraction the back end would fuse with
/// its product.
fn fuse(b: &mut Builder, i: Val) {
    let sub = match i.opcode() {
        Opcode::LLVMFAdd => false,
        Opcode::LLVMFSub => true,
        _ => return,
    };
    if i.fast_math_flags() & CONTRACT == 0 {
        return;
    }
    let (x, y) = (i.operand(0), i.operand(1));
    let (product, addend, product_first) = if fusable_product(x, i) {
        (x, y, true)
    } else if fusable_product(y, i) {
        (y, x, false)
    } else {
        return;
    };
    b.position_before(i);
    // Not `fast` (all flags): InstCombine splits a `fast` fmuladd back into a multiply and an
    // add, which code generation then fuses or not by context (an Enzyme test's two gradients
    // of one function, written as a loop and straight, drifted apart by 5e-13 so).
    b.set_fast_math(i.fast_math_flags() & !PRIMAL_COPY_FLAGS);
    let (mut p, q) = (product.operand(0), product.operand(1));
    let mut c = addend;
    match (sub, product_first) {
        (true, true) => c = b.fneg(addend),
        (true, false) => p = b.fneg(p),
        _ => {}
    }
    let Some(r) = b.intrinsic("llvm.fmuladd", &[i.ty()], &[p, q, c]) else {
        return;
    };
    r.copy_debug_location(i);
    let name = i.name();
    i.set_name("");
    r.set_name(&name);
    i.replace_all_uses_with(r);
    i.erase();
    product.erase();
}

/// True when `v` is an `fmul` allowed to contract whose only use is `user`, in `user`'s block.
fn fusable_product(v: Val, user: Val) -> bool {
    v.is_instruction()
        && v.opcode() == Opcode::LLVMFMul
        && v.fast_math_flags() & CONTRACT != 0
        && v.parent_block() == user.parent_block()
        && v.users() == [user]
}
