//! The index reasoning through the overwrite analysis's verdicts: which loads are re-read
//! because later stores miss them by index, and which must stay "may be overwritten".

use crate::analysis::overwrite::{is_memory_read, OverwriteContext, Overwrites};
use crate::ir::{parse_test_module, Module};
use crate::rules::user::UserRules;
use inkwell::context::Context;

const HEADER: &str = r#"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
"#;

/// For each named load of `@f`: `Some(true)` re-read by index, `Some(false)` re-read without
/// it, `None` cached; with the report.
fn verdicts(body: &str) -> (Vec<(String, Option<bool>)>, String) {
    let ctx = Context::create();
    let text = format!("{HEADER}\n{body}");
    let module = parse_test_module(&ctx, &text);
    let m = Module(module.as_mut_ptr());
    m.verify().expect("valid test IR");
    let f = m.function("f").expect("a function @f");
    let ctx = OverwriteContext::stable(true);
    let o = Overwrites::analyze(f, ctx, &UserRules::default());
    let report = o.describe().join("\n");
    let mut out = Vec::new();
    for b in f.blocks() {
        for i in b.instructions() {
            if is_memory_read(i) && !i.name().is_empty() {
                let line = report
                    .lines()
                    .find(|l| l.trim_start().starts_with(&format!("%{} =", i.name())))
                    .unwrap_or_default();
                let v = o.rereadable(i).then(|| line.contains("by index"));
                out.push((i.name(), v));
            }
        }
    }
    (out, report)
}

#[track_caller]
fn expect(body: &str, want: &[(&str, Option<bool>)]) {
    let (got, report) = verdicts(body);
    for (name, v) in want {
        let g = got.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
        assert_eq!(g, Some(*v), "load %{name}; report:\n{report}");
    }
}

const REREAD_BY_INDEX: Option<bool> = Some(true);
const CACHED: Option<bool> = None;

#[test]
fn a_symbolic_bound_separates_two_halves() {
    // for i < n: s += a[i]^2; a[n + i] = ...: a[i] lies below n, every store at n or above.
    expect(
        r#"
define double @f(ptr noalias %a, i64 %n) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i1, %body ]
  %s = phi double [ 0.0, %entry ], [ %s1, %body ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %body, label %exit
body:
  %pa = getelementptr inbounds double, ptr %a, i64 %i
  %x = load double, ptr %pa
  %sq = fmul double %x, %x
  %s1 = fadd double %s, %sq
  %j = add nsw i64 %n, %i
  %pb = getelementptr inbounds double, ptr %a, i64 %j
  store double %sq, ptr %pb
  %i1 = add nsw i64 %i, 1
  br label %head
exit:
  ret double %s
}"#,
        &[("x", REREAD_BY_INDEX)],
    );
}

#[test]
fn a_value_overwritten_by_the_next_iteration_stays_cached() {
    // Iteration i reads a[i + 1] and writes a[i]: iteration i + 1 writes a[i + 1].
    expect(
        r#"
define double @f(ptr noalias %a, i64 %n) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i1, %body ]
  %s = phi double [ 0.0, %entry ], [ %s1, %body ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %body, label %exit
body:
  %k = add nsw i64 %i, 1
  %pn = getelementptr inbounds double, ptr %a, i64 %k
  %x = load double, ptr %pn
  %sq = fmul double %x, %x
  %s1 = fadd double %s, %sq
  %pa = getelementptr inbounds double, ptr %a, i64 %i
  store double %sq, ptr %pa
  %i1 = add nsw i64 %i, 1
  br label %head
exit:
  ret double %s
}"#,
        &[("x", CACHED)],
    );
}

/// `for j < 16: { for k < j + extra: s += a[16 j + k]^2; a[16 j + j] = s }`.
fn triangular(extra: i64) -> String {
    format!(
        r#"
define double @f(ptr noalias %a) {{
entry:
  br label %outer
outer:
  %j = phi i64 [ 0, %entry ], [ %j1, %latch ]
  %s = phi double [ 0.0, %entry ], [ %s2, %latch ]
  %row = mul nsw i64 %j, 16
  %bound = add nsw i64 %j, {extra}
  br label %inner
inner:
  %k = phi i64 [ 0, %outer ], [ %k1, %inner.body ]
  %s1 = phi double [ %s, %outer ], [ %t, %inner.body ]
  %ck = icmp slt i64 %k, %bound
  br i1 %ck, label %inner.body, label %latch
inner.body:
  %idx = add nsw i64 %row, %k
  %p = getelementptr inbounds double, ptr %a, i64 %idx
  %x = load double, ptr %p
  %sq = fmul double %x, %x
  %t = fadd double %s1, %sq
  %k1 = add nsw i64 %k, 1
  br label %inner
latch:
  %s2 = phi double [ %s1, %inner ]
  %d = add nsw i64 %row, %j
  %pd = getelementptr inbounds double, ptr %a, i64 %d
  store double %s2, ptr %pd
  %j1 = add nsw i64 %j, 1
  %cj = icmp slt i64 %j1, 16
  br i1 %cj, label %outer, label %exit
exit:
  ret double %s2
}}"#
    )
}

#[test]
fn a_triangular_nest_reads_below_the_diagonal_it_writes_later() {
    // k < j: row j's entries left of the diagonal; the stores hit diagonals j' ≥ j.
    expect(&triangular(0), &[("x", REREAD_BY_INDEX)]);
}

#[test]
fn a_triangular_nest_that_reaches_the_diagonal_stays_cached() {
    // k ≤ j: the load of (j, j) is overwritten by the store after the inner loop.
    expect(&triangular(1), &[("x", CACHED)]);
}

#[test]
fn columns_past_the_row_length_may_reach_a_later_row() {
    // k < j + 17: the column runs past the row of 16 into row j + 1, whose diagonal a later
    // iteration writes; delinearisation needs the column inside the row.
    expect(&triangular(17), &[("x", CACHED)]);
}

#[test]
fn a_symbolic_row_length_is_not_affine() {
    // a[i * n + j] with n unknown: the product is opaque, and the store may hit it.
    expect(
        r#"
define double @f(ptr noalias %a, i64 %n) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i1, %body ]
  %s = phi double [ 0.0, %entry ], [ %s1, %body ]
  %c = icmp slt i64 %i, 8
  br i1 %c, label %body, label %exit
body:
  %row = mul nsw i64 %i, %n
  %pa = getelementptr inbounds double, ptr %a, i64 %row
  %x = load double, ptr %pa
  %sq = fmul double %x, %x
  %s1 = fadd double %s, %sq
  %d = add nsw i64 %row, 1
  %pd = getelementptr inbounds double, ptr %a, i64 %d
  store double %sq, ptr %pd
  %i1 = add nsw i64 %i, 1
  br label %head
exit:
  ret double %s
}"#,
        &[("x", CACHED)],
    );
}

#[test]
fn a_rotated_counted_loop_is_bounded_by_its_exit_test() {
    // -O3's shape: `for (i = 0; i != 8; i++) a[8 + i] = a[i]^2`, rotated, counter without
    // flags: the exit test `i + 1 == 8` bounds i below 8, so a[i] never meets a[8 + i'].
    expect(
        r#"
define void @f(ptr noalias %a) {
entry:
  br label %body
body:
  %i = phi i64 [ 0, %entry ], [ %i1, %body ]
  %pa = getelementptr inbounds double, ptr %a, i64 %i
  %x = load double, ptr %pa
  %sq = fmul double %x, %x
  %j = add nuw nsw i64 %i, 8
  %pb = getelementptr inbounds double, ptr %a, i64 %j
  store double %sq, ptr %pb
  %i1 = add i64 %i, 1
  %c = icmp eq i64 %i1, 8
  br i1 %c, label %exit, label %body
exit:
  ret void
}"#,
        &[("x", REREAD_BY_INDEX)],
    );
}

#[test]
fn a_counted_exit_bounds_nothing_when_another_exit_may_leave_first() {
    // `for (i = m; i != 8; i++) if (a[i] > 0) break;` then a[8 + k] = 0 for k < 8: started
    // past 8, the loop runs on until the break, so i is not below 8 and a[i] may be stored.
    expect(
        r#"
define void @f(ptr noalias %a, i64 %m) {
entry:
  br label %body
body:
  %i = phi i64 [ %m, %entry ], [ %i1, %latch ]
  %pa = getelementptr inbounds double, ptr %a, i64 %i
  %x = load double, ptr %pa
  %pos = fcmp ogt double %x, 0.0
  br i1 %pos, label %after, label %latch
latch:
  %i1 = add nsw i64 %i, 1
  %c = icmp eq i64 %i1, 8
  br i1 %c, label %after, label %body
after:
  br label %zero
zero:
  %k = phi i64 [ 0, %after ], [ %k1, %zero ]
  %j = add nsw i64 %k, 8
  %pb = getelementptr inbounds double, ptr %a, i64 %j
  store double 0.0, ptr %pb
  %k1 = add nsw i64 %k, 1
  %ck = icmp slt i64 %k1, 8
  br i1 %ck, label %zero, label %exit
exit:
  ret void
}"#,
        &[("x", CACHED)],
    );
}

#[test]
fn a_counted_exit_bounds_its_counter_when_it_is_the_only_exit() {
    // The same without the break: i counts up onto 8, so it stays below 8.
    expect(
        r#"
define void @f(ptr noalias %a, i64 %m) {
entry:
  br label %body
body:
  %i = phi i64 [ %m, %entry ], [ %i1, %body ]
  %pa = getelementptr inbounds double, ptr %a, i64 %i
  %x = load double, ptr %pa
  %i1 = add nsw i64 %i, 1
  %c = icmp eq i64 %i1, 8
  br i1 %c, label %after, label %body
after:
  br label %zero
zero:
  %k = phi i64 [ 0, %after ], [ %k1, %zero ]
  %j = add nsw i64 %k, 8
  %pb = getelementptr inbounds double, ptr %a, i64 %j
  store double 0.0, ptr %pb
  %k1 = add nsw i64 %k, 1
  %ck = icmp slt i64 %k1, 8
  br i1 %ck, label %zero, label %exit
exit:
  ret void
}"#,
        &[("x", REREAD_BY_INDEX)],
    );
}

#[test]
fn an_outer_loop_makes_a_later_sweep_overwrite() {
    // Two sweeps of `a[i] = a[i - 1]^2` for i in 1..8: within a sweep a[i - 1] is final, but
    // the next sweep rewrites it.
    expect(
        r#"
define void @f(ptr noalias %a) {
entry:
  br label %sweep
sweep:
  %t = phi i64 [ 0, %entry ], [ %t1, %next ]
  br label %body
body:
  %i = phi i64 [ 1, %sweep ], [ %i1, %body ]
  %im = add nsw i64 %i, -1
  %pp = getelementptr inbounds double, ptr %a, i64 %im
  %x = load double, ptr %pp
  %sq = fmul double %x, %x
  %pa = getelementptr inbounds double, ptr %a, i64 %i
  store double %sq, ptr %pa
  %i1 = add nsw i64 %i, 1
  %c = icmp slt i64 %i1, 8
  br i1 %c, label %body, label %next
next:
  %t1 = add nsw i64 %t, 1
  %ct = icmp slt i64 %t1, 2
  br i1 %ct, label %sweep, label %exit
exit:
  ret void
}"#,
        &[("x", CACHED)],
    );
}

#[test]
fn one_sweep_reads_final_entries() {
    // The same recurrence, once: a[i - 1] is never written after iteration i - 1.
    expect(
        r#"
define void @f(ptr noalias %a) {
entry:
  br label %body
body:
  %i = phi i64 [ 1, %entry ], [ %i1, %body ]
  %im = add nsw i64 %i, -1
  %pp = getelementptr inbounds double, ptr %a, i64 %im
  %x = load double, ptr %pp
  %sq = fmul double %x, %x
  %pa = getelementptr inbounds double, ptr %a, i64 %i
  store double %sq, ptr %pa
  %i1 = add nsw i64 %i, 1
  %c = icmp slt i64 %i1, 8
  br i1 %c, label %body, label %exit
exit:
  ret void
}"#,
        &[("x", REREAD_BY_INDEX)],
    );
}

#[test]
fn masks_of_an_unrolled_loop_bound_its_remainder() {
    // `for (k = j & -4; k < j; k++)` after an unrolled part: the remainder loop's k starts at
    // j & -4 and runs (j & 3) times, so it stays below j, left of the diagonal stored after.
    expect(
        r#"
define void @f(ptr noalias %a, i64 %j) {
entry:
  %ok = icmp sgt i64 %j, 0
  br i1 %ok, label %pre, label %exit
pre:
  %rem = and i64 %j, 3
  %has = icmp ne i64 %rem, 0
  br i1 %has, label %pre2, label %diag
pre2:
  %start = and i64 %j, -4
  br label %body
body:
  %k = phi i64 [ %start, %pre2 ], [ %k1, %body ]
  %c = phi i64 [ 0, %pre2 ], [ %c1, %body ]
  %pa = getelementptr inbounds double, ptr %a, i64 %k
  %x = load double, ptr %pa
  %sq = fmul double %x, %x
  %pb = getelementptr inbounds double, ptr %a, i64 %k
  %k1 = add nuw nsw i64 %k, 1
  %c1 = add i64 %c, 1
  %e = icmp eq i64 %c1, %rem
  br i1 %e, label %diag, label %body
diag:
  %pd = getelementptr inbounds double, ptr %a, i64 %j
  store double 1.0, ptr %pd
  br label %exit
exit:
  ret void
}"#,
        &[("x", REREAD_BY_INDEX)],
    );
}

/// Whether the adjoint of the scatter in `@f` may skip clearing the shadow it wrote.
fn scatter_zeroing_dead(body: &str) -> bool {
    let ctx = Context::create();
    let text = format!("{HEADER}\n{body}");
    let module = parse_test_module(&ctx, &text);
    let m = Module(module.as_mut_ptr());
    m.verify().expect("valid test IR");
    let f = m.function("f").expect("a function @f");
    let o = Overwrites::analyze(f, OverwriteContext::stable(true), &UserRules::default());
    let scatter = f
        .blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .find(|i| {
            i.is_call()
                && i.called_function()
                    .is_some_and(|c| c.name().starts_with("llvm.masked.scatter"))
        })
        .expect("a scatter");
    o.zeroing_dead(scatter)
}

/// `@f` scattering `<4 x i64> %idx` (defined by `idx`, from the counter `%i` of a loop of
/// `trips` iterations) into a scratch block, then summing and freeing it.
fn scatter_loop(idx: &str, trips: u32) -> String {
    format!(
        r#"
declare noalias ptr @malloc(i64)
declare void @free(ptr)
declare void @llvm.masked.scatter.v4f64.v4p0(<4 x double>, <4 x ptr>, <4 x i1>)
define double @f(ptr %x, <4 x i64> %opaque) {{
entry:
  %k = call noalias ptr @malloc(i64 4096)
  br label %fill
fill:
  %i = phi i64 [ 0, %entry ], [ %i1, %fill ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %px
  %ins = insertelement <4 x double> poison, double %v, i64 0
  %vs = shufflevector <4 x double> %ins, <4 x double> poison, <4 x i32> zeroinitializer
  %ii = insertelement <4 x i64> poison, i64 %i, i64 0
  %si = shufflevector <4 x i64> %ii, <4 x i64> poison, <4 x i32> zeroinitializer
  {idx}
  %pk = getelementptr inbounds double, ptr %k, <4 x i64> %idx
  call void @llvm.masked.scatter.v4f64.v4p0(<4 x double> %vs, <4 x ptr> %pk, <4 x i1> splat (i1 true))
  %i1 = add nuw nsw i64 %i, 1
  %c = icmp eq i64 %i1, {trips}
  br i1 %c, label %sum, label %fill
sum:
  %w = load double, ptr %k
  call void @free(ptr %k)
  ret double %w
}}
"#
    )
}

#[test]
fn scatter_lanes_apart_in_every_iteration_need_no_clearing() {
    // Lane l of iteration i writes k[i + 8l], i < 8: every entry once.
    let idx = "%idx = add nuw nsw <4 x i64> %si, <i64 0, i64 8, i64 16, i64 24>";
    assert!(scatter_zeroing_dead(&scatter_loop(idx, 8)));
    // The same through a multiplication of the lanes: k[8i + l].
    let idx = "%m = mul nsw <4 x i64> %si, splat (i64 8)\n  \
               %idx = add nsw <4 x i64> %m, <i64 0, i64 1, i64 2, i64 3>";
    assert!(scatter_zeroing_dead(&scatter_loop(idx, 8)));
}

#[test]
fn scatter_lanes_overlapping_a_later_iteration_keep_clearing() {
    // Lane 1 of iteration i writes k[i + 8], lane 0 of iteration i + 8 the same entry.
    let idx = "%idx = add nuw nsw <4 x i64> %si, <i64 0, i64 8, i64 16, i64 24>";
    assert!(!scatter_zeroing_dead(&scatter_loop(idx, 9)));
    // k[i + l]: lane 0 of iteration i + 1 writes what lane 1 of iteration i wrote.
    let idx = "%idx = add nuw nsw <4 x i64> %si, <i64 0, i64 1, i64 2, i64 3>";
    assert!(!scatter_zeroing_dead(&scatter_loop(idx, 8)));
}

#[test]
fn scatter_lanes_without_one_form_keep_clearing() {
    // Lane constants not in arithmetic progression (apart, but not one affine form).
    let idx = "%idx = add nuw nsw <4 x i64> %si, <i64 0, i64 16, i64 8, i64 24>";
    assert!(!scatter_zeroing_dead(&scatter_loop(idx, 8)));
    // An opaque vector of indices.
    let idx = "%idx = add nuw nsw <4 x i64> %si, %opaque";
    assert!(!scatter_zeroing_dead(&scatter_loop(idx, 8)));
}
