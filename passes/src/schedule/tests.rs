//! What [`balance_sums`] and [`interleave`] change and what they must keep: values (run before
//! and after), the order of memory effects, short blocks and sums without `reassoc`.

use super::*;
use crate::ir::{parse_test_module, Module};
use inkwell::context::Context;
use inkwell::execution_engine::JitFunction;
use inkwell::targets::{InitializationConfig, Target};
use inkwell::OptimizationLevel;

type Grad = unsafe extern "C" fn(f64, f64, *mut f64) -> f64;

/// A gradient of `x0 * x1^n` as a reverse sweep writes it after optimisation: the forward
/// chain, then the adjoint chain `dy = dy * x1` (independent of the forward one) and the sum
/// of `dy * y` into `dx1` (with `flags` on its additions), one block. Stores `dx1` into `out`
/// (a store in the middle, which loads and stores around it must stay ordered against) and
/// returns `dx0`.
fn gradient(n: usize, flags: &str) -> String {
    let mut s = String::from("define double @g(double %x0, double %x1, ptr %out) {\nentry:\n");
    s += "  %y0 = fadd double %x0, 0.0\n";
    for k in 1..=n {
        s += &format!("  %y{k} = fmul double %y{}, %x1\n", k - 1);
    }
    s += "  %a0 = fadd double 1.0, 0.0\n  %s0 = fadd double 0.0, 0.0\n";
    for k in 1..=n {
        s += &format!("  %a{k} = fmul double %a{}, %x1\n", k - 1);
        s += &format!("  %t{k} = fmul double %a{}, %y{}\n", k - 1, n - k);
        s += &format!("  %s{k} = fadd {flags} double %s{}, %t{k}\n", k - 1);
        if k == n / 2 {
            s += &format!("  store double %s{k}, ptr %out\n  %back = load double, ptr %out\n");
        }
    }
    s += &format!(
        "  %dx1 = fadd double %s{n}, %back\n  store double %dx1, ptr %out\n  ret double %a{n}\n}}\n"
    );
    s
}

/// Runs `@g` of `module` at (0.9, 0.99): (dx0, what it stored).
fn run(module: &inkwell::module::Module) -> (f64, f64) {
    Target::initialize_native(&InitializationConfig::default()).expect("native target");
    let ee = module
        .create_jit_execution_engine(OptimizationLevel::None)
        .expect("JIT");
    let mut out = 0.0;
    // SAFETY: `@g` has exactly this signature and does not outlive `ee`.
    let dx0 = unsafe {
        let g: JitFunction<Grad> = ee.get_function("g").expect("@g");
        g.call(0.9, 0.99, &mut out)
    };
    (dx0, out)
}

/// Position of each instruction of `@g` by name.
fn positions(m: Module) -> HashMap<String, usize> {
    let f = m.function("g").expect("@g");
    f.blocks()[0]
        .instructions()
        .into_iter()
        .enumerate()
        .map(|(k, i)| (i.name(), k))
        .collect()
}

/// An addition of `block` used once.
fn inner_add(v: Val, block: Block) -> bool {
    v.is_instruction()
        && v.opcode() == Opcode::LLVMFAdd
        && v.parent_block() == block
        && v.users().len() == 1
}

/// The number of additions on the longest path from a term to the sum `v`.
fn depth(v: Val) -> usize {
    let block = v.parent_block();
    1 + v
        .operands()
        .into_iter()
        .filter(|&o| inner_add(o, block))
        .map(depth)
        .max()
        .unwrap_or(0)
}

#[test]
fn a_long_reassoc_sum_becomes_a_tree_with_the_same_terms() {
    let ctx = Context::create();
    let before = run(&parse_test_module(&ctx, &gradient(300, "reassoc contract")));
    let module = parse_test_module(&ctx, &gradient(300, "reassoc contract"));
    let m = Module(module.as_mut_ptr());
    let f = m.function("g").expect("@g");
    let block = f.blocks()[0];
    let adds = |b: Block| {
        b.instructions()
            .into_iter()
            .filter(|&i| i.opcode() == Opcode::LLVMFAdd)
            .count()
    };
    let n_before = adds(block);
    balance_sums(&mut Builder::new(m), block);
    m.verify().expect("valid IR after balancing");
    assert_eq!(adds(block), n_before, "one addition per term, as before");
    let dx1 = block
        .instructions()
        .into_iter()
        .find(|i| i.name() == "dx1")
        .expect("%dx1");
    // 151 terms after the store (the first half's sum, stored, is a term of the second's).
    assert!(depth(dx1.operand(0)) <= 9, "log2(151) + 1 additions deep");
    // The tree's additions lose `contract`: with it the back end fused the products into
    // them and rotated the tree back into a chain of multiply-adds.
    assert_eq!(dx1.operand(0).fast_math_flags() & CONTRACT, 0);
    let after = run(&module);
    assert_eq!(before.0, after.0, "dx0 does not go through the sum");
    assert!(
        ((before.1 - after.1) / before.1).abs() < 1e-13,
        "the same sum up to rounding: {before:?} {after:?}"
    );
}

#[test]
fn a_sum_without_reassoc_keeps_its_order() {
    let ctx = Context::create();
    let module = parse_test_module(&ctx, &gradient(300, ""));
    let m = Module(module.as_mut_ptr());
    let text = m.function("g").expect("@g").print();
    balance_sums(
        &mut Builder::new(m),
        m.function("g").expect("@g").blocks()[0],
    );
    assert_eq!(m.function("g").expect("@g").print(), text);
}

#[test]
fn independent_chains_interleave_and_memory_keeps_its_order() {
    let ctx = Context::create();
    let before = run(&parse_test_module(&ctx, &gradient(300, "reassoc contract")));
    let module = parse_test_module(&ctx, &gradient(300, "reassoc contract"));
    let m = Module(module.as_mut_ptr());
    reorder_long_blocks(m, &[m.function("g").expect("@g")]);
    m.verify().expect("valid IR after reordering");
    let at = positions(m);
    // The adjoint chain starts long before the forward chain ends.
    assert!(
        at["a150"] < at["y300"],
        "a150 at {}, y300 at {}",
        at["a150"],
        at["y300"]
    );
    // The store, the load after it and the final store stay in order, and what they depend
    // on stays before them.
    assert!(at["s150"] < at["back"]);
    assert!(at["back"] < at["dx1"]);
    let stores: Vec<usize> = m.function("g").expect("@g").blocks()[0]
        .instructions()
        .into_iter()
        .enumerate()
        .filter(|(_, i)| i.opcode() == Opcode::LLVMStore)
        .map(|(k, _)| k)
        .collect();
    assert_eq!(stores.len(), 2);
    assert!(stores[0] < at["back"] && at["back"] < stores[1]);
    let after = run(&module);
    assert_eq!(before.0, after.0);
    assert!(((before.1 - after.1) / before.1).abs() < 1e-13);
}

#[test]
fn short_blocks_and_blocks_without_gain_keep_their_order() {
    let ctx = Context::create();
    // Too short to matter.
    let module = parse_test_module(&ctx, &gradient(40, "reassoc"));
    let m = Module(module.as_mut_ptr());
    let text = m.function("g").expect("@g").print();
    reorder_long_blocks(m, &[m.function("g").expect("@g")]);
    assert_eq!(m.function("g").expect("@g").print(), text);
    // Long, but one chain only: nothing to overlap.
    let mut chain =
        String::from("define double @h(double %x) {\nentry:\n  %v0 = fadd double %x, 1.0\n");
    for k in 1..400 {
        chain += &format!("  %v{k} = fmul double %v{}, %x\n", k - 1);
    }
    chain += "  ret double %v399\n}\n";
    let module = parse_test_module(&ctx, &chain);
    let m = Module(module.as_mut_ptr());
    let h = m.function("h").expect("@h");
    let text = h.print();
    assert!(!interleave(&mut Builder::new(m), h.blocks()[0]));
    assert_eq!(h.print(), text);
}

#[test]
fn a_block_ending_in_musttail_keeps_its_order() {
    let ctx = Context::create();
    let ending = |call: &str| {
        gradient(300, "reassoc").replace(
            "  ret double %a300\n}\n",
            &format!(
                "  %r = {call} double @ext(double %a300, double %x1, ptr %out)\n  ret double %r\n}}\ndeclare double @ext(double, double, ptr)\n"
            ),
        )
    };
    // The same block with a plain call is reordered...
    let module = parse_test_module(&ctx, &ending("call"));
    let m = Module(module.as_mut_ptr());
    let g = m.function("g").expect("@g");
    balance_sums(&mut Builder::new(m), g.blocks()[0]);
    assert!(interleave(&mut Builder::new(m), g.blocks()[0]));
    // ... but not with a `musttail` one, which only the `ret` may follow.
    let module = parse_test_module(&ctx, &ending("musttail call"));
    let m = Module(module.as_mut_ptr());
    let g = m.function("g").expect("@g");
    balance_sums(&mut Builder::new(m), g.blocks()[0]);
    let before = g.print();
    assert!(!interleave(&mut Builder::new(m), g.blocks()[0]));
    assert_eq!(g.print(), before);
}
