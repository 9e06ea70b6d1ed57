use super::*;
use crate::ir::parse_test_module;
use inkwell::context::Context;

/// The nest parents of a two-loop nest: outer `i < n` (header `outer`, latch `olatch`),
/// inner loop `j` starting at `jstart`, running while `j < jbound` (blocks `inner`, latch
/// `inner` itself), entered from `pre`, a block of the outer loop (where `%i2 = i + 2` and
/// `%ld`, a load, are computed); `inbetween` adds a cycle around the inner loop inside the
/// outer one. With the slope of each triangular loop.
fn nest_of(
    jstart: &str,
    jbound: &str,
    inbetween: bool,
) -> (HashMap<usize, usize>, HashMap<usize, i64>) {
    let ctx = Context::create();
    let (pre_br, olatch_br) = if inbetween {
        ("br label %inner", "br i1 %c, label %pre, label %olatch2\nolatch2:\n  br label %olatch3\nolatch3:\n  %i1 = add i64 %i, 1\n  %more.i = icmp ult i64 %i1, %n\n  br i1 %more.i, label %outer, label %exit")
    } else {
        ("br label %inner", "%i1 = add i64 %i, 1\n  %more.i = icmp ult i64 %i1, %n\n  br i1 %more.i, label %outer, label %exit")
    };
    let ir = format!(
            "define void @f(i64 %n, i64 %m, i1 %c, ptr %q) {{\nentry:\n  br label %outer\nouter:\n  %i = phi i64 [ 0, %entry ], [ %i1, %olatch{} ]\n  br label %pre\npre:\n  %i2 = add nsw i64 %i, 2\n  %i4 = and i64 %i, -4\n  %ld = load i64, ptr %q\n  {pre_br}\ninner:\n  %j = phi i64 [ {jstart}, %pre ], [ %j1, %inner ]\n  %j1 = add i64 %j, 1\n  %more.j = icmp ult i64 %j1, {jbound}\n  br i1 %more.j, label %inner, label %olatch\nolatch:\n  {olatch_br}\nexit:\n  ret void\n}}",
            if inbetween { "3" } else { "" }
        );
    let module = parse_test_module(&ctx, &ir);
    let m = crate::ir::Module(module.as_mut_ptr());
    let f = m.function("f").expect("f");
    let block = |name: &str| {
        f.blocks()
            .into_iter()
            .find(|b| b.as_value().name() == name)
            .expect(name)
    };
    let (outer, pre, inner) = (block("outer"), block("pre"), block("inner"));
    let olatch = if inbetween {
        block("olatch3")
    } else {
        block("olatch")
    };
    let outer_body: HashSet<Block> = f
        .blocks()
        .into_iter()
        .filter(|b| !["entry", "exit"].contains(&b.as_value().name().as_str()))
        .collect();
    let iv = |b: Block| b.instructions()[0];
    let loops = vec![
        StructuredLoop {
            header: outer,
            preheader: block("entry"),
            latch: olatch,
            iv: iv(outer),
            start: iv(outer).incoming()[0].0,
            step: iv(outer).ty().int_const(1),
            body: outer_body,
        },
        StructuredLoop {
            header: inner,
            preheader: pre,
            latch: inner,
            iv: iv(inner),
            start: iv(inner).incoming()[0].0,
            step: iv(inner).ty().int_const(1),
            body: [inner].into_iter().collect(),
        },
    ];
    let counts: Vec<Option<TripCount>> = loops.iter().map(trip_count).collect();
    assert!(counts.iter().all(Option::is_some));
    let (parents, triangles) = nest_parents(&loops, &counts, &[0, 1]);
    let triangles = triangles.into_iter().map(|(k, t)| (k, t.slope)).collect();
    (parents, triangles)
}

fn parents_of(jstart: &str, inbetween: bool) -> HashMap<usize, usize> {
    nest_of(jstart, "%m", inbetween).0
}

#[test]
fn an_inner_loop_with_the_same_count_in_every_outer_iteration_nests() {
    assert_eq!(parents_of("0", false), HashMap::from([(1, 0)]));
    // Entered several times per outer iteration: its own nest.
    assert_eq!(parents_of("0", true), HashMap::new());
}

#[test]
fn an_inner_loop_whose_count_is_affine_in_the_outer_index_nests_as_a_triangle() {
    let tri = |start: &str, bound: &str| {
        let (parents, triangles) = nest_of(start, bound, false);
        assert_eq!(parents, HashMap::from([(1, 0)]), "{start}..{bound}");
        triangles.get(&1).copied()
    };
    // `j = i .. m`, `j = i + 2 .. m`: one fewer per outer iteration; `j < i`: one more.
    assert_eq!(tri("%i", "%m"), Some(-1));
    assert_eq!(tri("%i2", "%m"), Some(-1));
    assert_eq!(tri("0", "%i"), Some(1));
    assert_eq!(tri("0", "%i2"), Some(1));
    // Both ends following the counter: a band of the same count for every i.
    assert_eq!(tri("%i", "%i2"), Some(0));
    // Neither: a rectangle.
    assert_eq!(tri("0", "%m"), None);
    // A bound loaded inside the outer loop, or rounded down to a multiple of 4 (the
    // unrolled part of a loop): its own nest.
    assert_eq!(nest_of("0", "%ld", false).0, HashMap::new());
    assert_eq!(nest_of("%i", "%ld", false).0, HashMap::new());
    assert_eq!(nest_of("0", "%i4", false).0, HashMap::new());
    // A triangle entered several times per outer iteration: its own nest too.
    assert_eq!(nest_of("%i", "%m", true).0, HashMap::new());
}

/// `Σ_{t < n} max(0, first + slope × t)`, over the `t` where the row is positive.
fn rows_summed(slope: i64, first: i64, n: i64) -> i128 {
    let (slope, first, n) = (slope as i128, first as i128, n as i128);
    let ceil = |a: i128, b: i128| (a + b - 1).div_euclid(b);
    let (lo, hi) = match slope.signum() {
        0 => (0, if first > 0 { n } else { 0 }),
        -1 => (0, n.min(ceil(first, -slope).max(0))),
        _ => (ceil(-first + 1, slope).clamp(0, n), n),
    };
    let ts = (lo..hi).map(|t| first + slope * t);
    if hi - lo <= 1 << 17 {
        ts.sum()
    } else {
        // `hi - lo` terms from `first + slope × lo` on.
        let k = hi - lo;
        k * (first + slope * lo) + slope * k * (k - 1) / 2
    }
}

#[test]
fn triangular_rows_and_their_sums_are_exact() {
    // On constants the builder folds what `row` and `rows` emit: compared with the rows
    // summed one by one, for falling, flat and growing counts, starting or stopping
    // half-way, and at the limits the reservation allows (2^32 parent iterations, slopes
    // of 2^21), where the products wrap around.
    let ctx = Context::create();
    let module = parse_test_module(&ctx, "define void @f() {\nentry:\n  ret void\n}");
    let m = crate::ir::Module(module.as_mut_ptr());
    let f = m.function("f").expect("f");
    let mut b = Builder::new(m);
    b.position_before(f.blocks()[0].terminator().expect("ret"));
    let i64t = Ty::int(m.context(), 64);
    let cst = |x: i64| i64t.int_const(x as u64);
    let folded = |v: Val| v.const_int_sext().expect("folded to a constant");
    for slope in [-3, -2, -1, 0, 1, 2, 3] {
        for first in [-20, -7, -1, 0, 1, 5, 12, 30] {
            for t in 0..25 {
                let r = folded(row(&mut b, slope, cst(first), cst(t)));
                assert_eq!(r, (first + slope * t).max(0), "row {slope} {first} {t}");
                let p = folded(rows(&mut b, slope, cst(first), cst(t)));
                assert_eq!(
                    p as i128,
                    rows_summed(slope, first, t),
                    "{slope} {first} {t}"
                );
            }
        }
    }
    let big = [
        (-1, 1 << 16, 1 << 32),
        (0, 1, 1 << 32),
        (1, -(1 << 32) + (1 << 16), 1 << 32),
        (1 << 21, -(1 << 32), 1 << 12),
        (-(1 << 21), 1 << 32, 1 << 12),
    ];
    for (slope, first, n) in big {
        let p = folded(rows(&mut b, slope, cst(first), cst(n)));
        assert_eq!(
            p as i128,
            rows_summed(slope, first, n),
            "{slope} {first} {n}"
        );
    }
}

#[test]
fn a_block_of_an_inner_cycle_runs_more_than_once_per_iteration() {
    let ctx = Context::create();
    let ir = "define void @f(i1 %c) {\nentry:\n  br label %loop\nloop:\n  br label %inner\ninner:\n  br i1 %c, label %inner, label %latch\nlatch:\n  br i1 %c, label %loop, label %exit\nexit:\n  ret void\n}";
    let module = parse_test_module(&ctx, ir);
    let m = crate::ir::Module(module.as_mut_ptr());
    let f = m.function("f").expect("f");
    let b = f.blocks();
    let (entry, header, inner, latch) = (b[0], b[1], b[2], b[3]);
    let l = StructuredLoop {
        header,
        preheader: entry,
        latch,
        iv: header.as_value(),
        start: header.as_value(),
        step: header.as_value(),
        body: [header, inner, latch].into_iter().collect(),
    };
    assert!(once_per_iteration(&l, header));
    assert!(!once_per_iteration(&l, inner));
    assert!(once_per_iteration(&l, latch));
}
