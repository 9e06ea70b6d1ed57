use super::is_memory_read;
use super::{OverwriteContext, Overwrites};
use crate::ir::{parse_test_module, Module};
use crate::rules::user::UserRules;
use inkwell::context::Context;
use std::collections::HashMap;

const HEADER: &str = r#"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
declare ptr @malloc(i64)
declare void @free(ptr)
declare double @llvm.sin.f64(double)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
"#;

/// The verdicts for `@f` in `body`: load name → re-readable, the deferred frees (printed),
/// and the report.
struct Verdicts {
    loads: HashMap<String, bool>,
    deferred: Vec<String>,
    report: Vec<String>,
}

impl Verdicts {
    fn reread(&self, name: &str) -> bool {
        match self.loads.get(name) {
            Some(&v) => v,
            None => panic!("no load %{name}; report:\n{}", self.report.join("\n")),
        }
    }
    #[track_caller]
    fn expect(&self, name: &str, reread: bool) {
        assert_eq!(
            self.reread(name),
            reread,
            "load %{name}; report:\n{}",
            self.report.join("\n")
        );
    }
}

fn analyze(body: &str, memory_stable: bool) -> Verdicts {
    let ctx = Context::create();
    let text = format!("{HEADER}\n{body}");
    let module = parse_test_module(&ctx, &text);
    let m = Module(module.as_mut_ptr());
    m.verify().expect("valid test IR");
    let f = m.function("f").expect("a function @f");
    let o = Overwrites::analyze(
        f,
        OverwriteContext::stable(memory_stable),
        &UserRules::default(),
    );
    let mut loads = HashMap::new();
    for b in f.blocks() {
        for i in b.instructions() {
            if is_memory_read(i) && !i.name().is_empty() {
                assert_eq!(o.rereadable(i), o.reason(i).is_none());
                loads.insert(i.name(), o.rereadable(i));
            }
        }
    }
    Verdicts {
        loads,
        deferred: o.deferred_frees().iter().map(|d| d.print()).collect(),
        report: o.describe(),
    }
}

fn stable(body: &str) -> Verdicts {
    analyze(body, true)
}

#[test]
fn read_only_input_read_in_a_loop_while_writing_a_fresh_buffer() {
    let v = stable(
        r#"
define double @f(ptr %x, i64 %n) {
entry:
  %buf = call ptr @malloc(i64 8000)
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %px
  %s = call double @llvm.sin.f64(double %xi)
  %pb = getelementptr inbounds double, ptr %buf, i64 %i
  store double %s, ptr %pb
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  %r = load double, ptr %buf
  ret double %r
}"#,
    );
    v.expect("xi", true);
    v.expect("r", true);
    assert!(v.deferred.is_empty());
    assert!(v.report[0].contains("memory stable"), "{:?}", v.report);
}

#[test]
fn in_place_update_of_an_argument_is_not_reread() {
    let v = stable(
        r#"
define void @f(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %px
  %sq = fmul double %xi, %xi
  store double %sq, ptr %px
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}"#,
    );
    v.expect("xi", false);
    assert!(
        v.report
            .iter()
            .any(|l| l.contains("may be overwritten by store")),
        "{:?}",
        v.report
    );
}

#[test]
fn a_value_overwritten_by_the_next_iteration_is_not_reread() {
    // Iteration i stores buf[i] first, then reads buf[i + 1], which iteration i + 1
    // overwrites: only the loop's back edge puts the store after the load.
    let v = stable(
        r#"
define double @f(ptr %x, i64 %n) {
entry:
  %buf = call ptr @malloc(i64 8008)
  call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %x, i64 8008, i1 false)
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %acc = phi double [0.0, %entry], [%acc1, %loop]
  %pb = getelementptr inbounds double, ptr %buf, i64 %i
  store double %acc, ptr %pb
  %i1 = add i64 %i, 1
  %pn = getelementptr inbounds double, ptr %buf, i64 %i1
  %next = load double, ptr %pn
  %acc1 = fmul double %acc, %next
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %acc1
}"#,
    );
    v.expect("next", false);
}

const TWO_ARRAYS: &str = r#"
define void @f(ptr ATTR %a, ptr %b, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %pa = getelementptr inbounds double, ptr %a, i64 %i
  %ai = load double, ptr %pa
  %s = call double @llvm.sin.f64(double %ai)
  %pb = getelementptr inbounds double, ptr %b, i64 %i
  store double %s, ptr %pb
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}"#;

#[test]
fn reading_one_argument_while_writing_another_needs_noalias() {
    stable(&TWO_ARRAYS.replace("ATTR", "")).expect("ai", false);
    stable(&TWO_ARRAYS.replace("ATTR", "noalias")).expect("ai", true);
    // `noalias` on the written argument is as good.
    let other = TWO_ARRAYS
        .replace("ATTR", "")
        .replace("ptr %b, i64 %n", "ptr noalias %b, i64 %n");
    stable(&other).expect("ai", true);
}

#[test]
fn a_callee_writing_its_argument_after_the_load_prevents_rereading() {
    let v = stable(
        r#"
define void @scale(ptr %p) noinline {
  %v = load double, ptr %p
  %m = fmul double %v, 2.0
  store double %m, ptr %p
  ret void
}
define double @get(ptr %p) noinline {
  %v = load double, ptr %p
  ret double %v
}
define double @f(ptr %x, ptr noalias %y) {
  %a = load double, ptr %x
  call void @scale(ptr %x)
  %b = load double, ptr %y
  %c = call double @get(ptr %y)
  %d = load double, ptr %y
  call void @scale(ptr %y)
  %e = load double, ptr %x
  %r = fadd double %a, %b
  ret double %r
}"#,
    );
    v.expect("a", false);
    v.expect("b", false);
    v.expect("d", false);
    // After the last write to %x, and a callee that only reads %y does not matter.
    v.expect("e", true);
    let v = stable(
        r#"
define double @get(ptr %p) noinline {
  %v = load double, ptr %p
  ret double %v
}
define double @f(ptr %x) {
  %a = load double, ptr %x
  %c = call double @get(ptr %x)
  %r = fadd double %a, %c
  ret double %r
}"#,
    );
    v.expect("a", true);
}

#[test]
fn a_callee_writing_a_global_or_through_a_loaded_pointer_writes_anything() {
    let v = stable(
        r#"
@g = global double 0.0
define void @bump() noinline {
  store double 1.0, ptr @g
  ret void
}
define void @through(ptr %pp) noinline {
  %q = load ptr, ptr %pp
  store double 1.0, ptr %q
  ret void
}
define double @f(ptr %x, ptr noalias %pp) {
  %a = load double, ptr %x
  call void @bump()
  %buf = call ptr @malloc(i64 8)
  store double 2.0, ptr %buf
  %b = load double, ptr %buf
  call void @through(ptr %pp)
  %r = fadd double %a, %b
  ret double %r
}"#,
    );
    v.expect("a", false);
    // The fresh buffer never escapes: no callee can reach it.
    v.expect("b", true);
}

#[test]
fn recursion_is_answered_conservatively() {
    let v = stable(
        r#"
define void @rec(ptr %p, i64 %n) noinline {
  %c = icmp eq i64 %n, 0
  br i1 %c, label %done, label %more
more:
  %m = sub i64 %n, 1
  call void @rec(ptr %p, i64 %m)
  br label %done
done:
  ret void
}
define double @f(ptr %x) {
  %a = load double, ptr %x
  call void @rec(ptr %x, i64 3)
  ret double %a
}"#,
    );
    // `rec` writes nothing, but its recursive call is summarised as writing anything.
    v.expect("a", false);
}

const SCRATCH: &str = r#"
define double @f(ptr %x, i64 %n) {
entry:
  %buf = call ptr @malloc(i64 8000)
  br label %fill
fill:
  %i = phi i64 [0, %entry], [%i1, %fill]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %px
  %s = call double @llvm.sin.f64(double %xi)
  %pb = getelementptr inbounds double, ptr %buf, i64 %i
  store double %s, ptr %pb
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %fill, label %use
use:
  %j = phi i64 [0, %fill], [%j1, %use]
  %acc = phi double [0.0, %fill], [%acc1, %use]
  %pu = getelementptr inbounds double, ptr %buf, i64 %j
  %bj = load double, ptr %pu
  %acc1 = fmul double %acc, %bj
  %j1 = add i64 %j, 1
  %d = icmp slt i64 %j1, %n
  br i1 %d, label %use, label %exit
exit:
  LATER
  call void @free(ptr %buf)
  ret double %acc1
}"#;

#[test]
fn a_scratch_buffer_read_after_its_last_write_is_reread_with_its_free_deferred() {
    let v = stable(&SCRATCH.replace("LATER", ""));
    v.expect("xi", true);
    v.expect("bj", true);
    assert_eq!(v.deferred, vec!["call void @free(ptr %buf)".to_string()]);
    assert!(v.report.iter().any(|l| l.contains("deferred free")));
}

#[test]
fn a_scratch_buffer_reused_by_a_later_layer_is_not_reread() {
    let later = r#"br label %again
again:
  %k = phi i64 [0, %exit], [%k1, %again]
  %pk = getelementptr inbounds double, ptr %buf, i64 %k
  store double 0.0, ptr %pk
  %k1 = add i64 %k, 1
  %e = icmp slt i64 %k1, %n
  br i1 %e, label %again, label %end
end:"#;
    let v = stable(&SCRATCH.replace("LATER", later));
    v.expect("bj", false);
    v.expect("xi", true);
    // No re-readable load needs the buffer kept: its free stays where it is.
    assert!(v.deferred.is_empty(), "{:?}", v.deferred);
}

#[test]
fn a_block_freed_before_a_new_allocation_stays_allocated_until_the_adjoint() {
    let v = stable(
        r#"
define double @f(double %v) {
  %a = call ptr @malloc(i64 8)
  store double %v, ptr %a
  %x = load double, ptr %a
  call void @free(ptr %a)
  %b = call ptr @malloc(i64 8)
  store double 2.0, ptr %b
  %y = load double, ptr %b
  call void @free(ptr %b)
  %r = fmul double %x, %y
  ret double %r
}"#,
    );
    v.expect("x", true);
    v.expect("y", true);
    // Both frees deferred: %b can never take %a's address while %x may be re-read.
    assert_eq!(v.deferred.len(), 2, "{:?}", v.deferred);
    // A free that might release an argument's memory cannot be deferred: it is a writer,
    // and what was read before it is cached.
    let v = stable(
        r#"
define double @f(ptr %arg, i1 %c) {
  %a = call ptr @malloc(i64 8)
  store double 1.0, ptr %a
  %p = select i1 %c, ptr %a, ptr %arg
  %x = load double, ptr %p
  call void @free(ptr %p)
  %b = call ptr @malloc(i64 8)
  store double 2.0, ptr %b
  %y = load double, ptr %b
  %r = fmul double %x, %y
  ret double %r
}"#,
    );
    v.expect("x", false);
    v.expect("y", true);
    assert!(v.deferred.is_empty(), "{:?}", v.deferred);
}

#[test]
fn a_free_inside_the_allocating_loop_is_deferred() {
    let v = stable(
        r#"
define double @f(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %acc = phi double [0.0, %entry], [%acc1, %loop]
  %t = call ptr @malloc(i64 8)
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %px
  store double %xi, ptr %t
  %ti = load double, ptr %t
  %acc1 = fmul double %acc, %ti
  call void @free(ptr %t)
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %acc1
}"#,
    );
    // Each iteration's block is distinct once frees wait for the adjoint.
    v.expect("ti", true);
    v.expect("xi", true);
    assert_eq!(v.deferred.len(), 1);
    // But a block carried into the next iteration by a phi is the same block there.
    let v = stable(
        r#"
define double @f(ptr %x, i64 %n) {
entry:
  %t0 = call ptr @malloc(i64 8)
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %acc = phi double [0.0, %entry], [%acc1, %loop]
  %prev = phi ptr [%t0, %entry], [%t, %loop]
  store double 0.0, ptr %prev
  %t = call ptr @malloc(i64 8)
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %px
  store double %xi, ptr %t
  %ti = load double, ptr %t
  %acc1 = fmul double %acc, %ti
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %acc1
}"#,
    );
    v.expect("ti", false);
}

#[test]
fn a_load_from_an_alloca_is_never_reread() {
    let v = stable(
        r#"
define double @f(double %v) {
  %s = alloca double
  store double %v, ptr %s
  %x = load double, ptr %s
  ret double %x
}"#,
    );
    v.expect("x", false);
}

#[test]
fn without_stable_memory_only_private_fresh_memory_is_reread() {
    let body = r#"
@k = constant double 3.0
@g = global double 3.0
define double @f(ptr %x) {
  %a = load double, ptr %x
  %buf = call ptr @malloc(i64 16)
  store double %a, ptr %buf
  %b = load double, ptr %buf
  %out = call ptr @malloc(i64 8)
  store double %b, ptr %out
  %o = load double, ptr %out
  %kk = load double, ptr @k
  %gg = load double, ptr @g
  store ptr %out, ptr %x
  %r = fadd double %b, %o
  ret double %r
}"#;
    let v = analyze(body, false);
    v.expect("a", false);
    v.expect("b", true);
    // %out escapes (stored into the caller's memory): the caller may write it.
    v.expect("o", false);
    v.expect("kk", true);
    v.expect("gg", false);
    assert!(v.report[0].contains("caller may write"));
    let v = analyze(body, true);
    v.expect("b", true);
    v.expect("o", true);
    // The pointer store through %x may overwrite %a's bytes, and @g's (%x may point there).
    v.expect("a", false);
    v.expect("gg", false);
}

#[test]
fn disjoint_struct_fields_do_not_alias() {
    let body = r#"
%S = type { double, double, [2 x i32] }
define double @f(ptr %p, double %v) {
  %f0 = getelementptr inbounds %S, ptr %p, i64 0, i32 0
  %a = load double, ptr %f0
  %f1 = getelementptr inbounds %S, ptr %p, i64 0, i32 1
  store double %v, ptr %f1
  %f2 = getelementptr inbounds %S, ptr %p, i64 0, i32 2, i64 1
  store i32 7, ptr %f2
  %w = getelementptr inbounds i8, ptr %p, i64 4
  %b = load double, ptr %f1
  store i32 0, ptr WHERE
  %r = fadd double %a, %b
  ret double %r
}"#;
    let v = stable(&body.replace("WHERE", "%f2"));
    v.expect("a", true);
    v.expect("b", true);
    // Bytes 4..8 of field 0.
    let v = stable(&body.replace("WHERE", "%w"));
    v.expect("a", false);
    v.expect("b", true);
    // A second element of the same array, at a constant stride.
    let v = stable(
        r#"
define double @f(ptr %p, double %v) {
  %a = load double, ptr %p
  %q = getelementptr inbounds double, ptr %p, i64 1
  store double %v, ptr %q
  %r = getelementptr inbounds double, ptr %p, i64 -1
  store double %v, ptr %r
  ret double %a
}"#,
    );
    v.expect("a", true);
}

const TBAA: &str = r#"
define double @f(ptr %a, ptr %b) {
  %x = load double, ptr %a LOADTAG
  store i32 1, ptr %b STORETAG
  ret double %x
}
!0 = !{!"Simple C/C++ TBAA"}
!1 = !{!"omnipotent char", !0, i64 0}
!2 = !{!"double", !1, i64 0}
!3 = !{!"int", !1, i64 0}
!4 = !{!2, !2, i64 0}
!5 = !{!3, !3, i64 0}
!6 = !{!1, !1, i64 0}
!7 = !{!"Other TBAA"}
!8 = !{!"int", !7, i64 0}
!9 = !{!8, !8, i64 0}
"#;

fn tbaa(load: &str, store: &str) -> bool {
    stable(&TBAA.replace("LOADTAG", load).replace("STORETAG", store)).reread("x")
}

#[test]
fn masked_gathers_are_judged_like_loads() {
    // The vectoriser's strided reads: a gather from a read-only argument is re-read; one
    // from a buffer the loop writes afterwards is not.
    let v = stable(
        r#"
declare <4 x double> @llvm.masked.gather.v4f64.v4p0(<4 x ptr>, <4 x i1>, <4 x double>)
define double @f(ptr noalias %x, ptr noalias %y, <4 x i64> %idx) {
  %px = getelementptr double, ptr %x, <4 x i64> %idx
  %g = call <4 x double> @llvm.masked.gather.v4f64.v4p0(<4 x ptr> %px, <4 x i1> splat (i1 true), <4 x double> poison)
  %py = getelementptr double, ptr %y, <4 x i64> %idx
  %h = call <4 x double> @llvm.masked.gather.v4f64.v4p0(<4 x ptr> %py, <4 x i1> splat (i1 true), <4 x double> poison)
  store double 0.0, ptr %y
  %e = extractelement <4 x double> %g, i32 0
  ret double %e
}"#,
    );
    v.expect("g", true);
    v.expect("h", false);
}

#[test]
fn tbaa_separates_int_stores_from_double_loads() {
    assert!(tbaa(", !tbaa !4", ", !tbaa !5"));
    // Without a tag on either side, or with a char access: may alias.
    assert!(!tbaa("", ""));
    assert!(!tbaa(", !tbaa !4", ""));
    assert!(!tbaa("", ", !tbaa !5"));
    assert!(!tbaa(", !tbaa !4", ", !tbaa !6"));
    // Same type.
    assert!(!tbaa(", !tbaa !4", ", !tbaa !4"));
    // Different type trees prove nothing.
    assert!(!tbaa(", !tbaa !4", ", !tbaa !9"));
}

#[test]
fn volatile_and_atomic_loads_are_not_reread() {
    let v = stable(
        r#"
define double @f(ptr %a) {
  %x = load volatile double, ptr %a
  %y = load atomic double, ptr %a acquire, align 8
  %z = load double, ptr %a
  %r = fadd double %x, %y
  ret double %r
}"#,
    );
    v.expect("x", false);
    v.expect("y", false);
    v.expect("z", true);
}

#[test]
fn calls_are_judged_by_rules_and_memory_attributes() {
    let v = stable(
        r#"
declare void @unknown(ptr)
declare void @pure(ptr) memory(none)
declare void @argonly(ptr) memory(argmem: readwrite)
declare void @reader(ptr readonly)
declare double @lgamma(double)
define double @f(ptr %x, ptr noalias %y, ptr noalias %z, ptr noalias %w, ptr noalias %v) {
  %a = load double, ptr %x
  call void @pure(ptr %x)
  call void @reader(ptr %x)
  %b = load double, ptr %y
  call void @argonly(ptr %z)
  %c = load double, ptr %z
  %d = load double, ptr %w
  %buf = call ptr @malloc(i64 8)
  call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %v, i64 8, i1 false)
  %e = load double, ptr %v
  call void @llvm.memcpy.p0.p0.i64(ptr %w, ptr %buf, i64 8, i1 false)
  %l = call double @lgamma(double %a)
  %r = fadd double %a, %b
  ret double %r
}"#,
    );
    v.expect("a", false); // `reader` may write through %x
                          // lgamma writes only libc's `signgam`, which nothing in this module refers to.
    v.expect("b", true);
    v.expect("d", false); // memcpy into %w
    let v = stable(
        r#"
declare void @unknown(ptr)
declare void @pure(ptr) memory(none)
declare void @argonly(ptr) memory(argmem: readwrite)
declare void @reader(ptr readonly)
define double @f(ptr %x, ptr noalias %y, ptr noalias %z) {
  %a = load double, ptr %x
  call void @pure(ptr %x)
  call void @reader(ptr %x)
  %b = load double, ptr %y
  call void @argonly(ptr %z)
  %c = load double, ptr %z
  %buf = call ptr @malloc(i64 8)
  call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %x, i64 8, i1 false)
  %m = load double, ptr %buf
  call void @unknown(ptr %z)
  %r = fadd double %a, %b
  ret double %r
}"#,
    );
    v.expect("a", false); // @unknown writes anything reachable, %x included
    v.expect("b", false);
    v.expect("c", false);
    v.expect("m", true); // the fresh buffer was never handed out
}

#[test]
fn memory_attributes_keep_unknown_calls_away_from_other_arguments() {
    let v = stable(
        r#"
declare void @pure(ptr) memory(none)
declare void @argonly(ptr) memory(argmem: readwrite)
declare void @reader(ptr readonly) memory(argmem: readwrite)
define double @f(ptr %x, ptr noalias %y, ptr noalias %z) {
  %a = load double, ptr %x
  %b = load double, ptr %y
  %c = load double, ptr %z
  call void @pure(ptr %x)
  call void @reader(ptr %x)
  call void @argonly(ptr %z)
  %r = fadd double %a, %b
  ret double %r
}"#,
    );
    v.expect("a", true);
    v.expect("b", true);
    v.expect("c", false);
}

#[test]
fn pointers_loaded_from_memory_are_unknown_objects() {
    let v = stable(
        r#"
define double @f(ptr %pp, ptr %out) {
  %q = load ptr, ptr %pp
  %v = load double, ptr %q
  %buf = call ptr @malloc(i64 8)
  store double %v, ptr %buf
  %w = load double, ptr %buf
  store double %w, ptr %out
  ret double %v
}"#,
    );
    // %out may point where %q points.
    v.expect("v", false);
    v.expect("w", true);
    v.expect("q", false); // %out may alias %pp too
    let v = analyze(
        r#"
define double @f(ptr %pp) {
  %q = load ptr, ptr %pp
  %v = load double, ptr %q
  ret double %v
}"#,
        false,
    );
    v.expect("v", false);
}

#[test]
fn an_escaped_fresh_buffer_may_be_written_through_unknown_pointers() {
    let v = stable(
        r#"
define double @f(ptr %slot) {
  %buf = call ptr @malloc(i64 8)
  store double 1.0, ptr %buf
  %a = load double, ptr %buf
  store ptr %buf, ptr %slot
  %q = load ptr, ptr %slot
  store double 2.0, ptr %q
  ret double %a
}"#,
    );
    v.expect("a", false);
    // Passing it to a callee that returns it is an escape too.
    let v = stable(
        r#"
define ptr @id(ptr %p) noinline {
  ret ptr %p
}
define double @f() {
  %buf = call ptr @malloc(i64 8)
  store double 1.0, ptr %buf
  %a = load double, ptr %buf
  %q = call ptr @id(ptr %buf)
  store double 2.0, ptr %q
  ret double %a
}"#,
    );
    v.expect("a", false);
}

#[test]
fn constant_expression_addresses_of_globals_have_constant_offsets() {
    let body = r#"
@arr = global [4 x double] zeroinitializer
define double @f(double %v) {
  %a = load double, ptr getelementptr inbounds ([4 x double], ptr @arr, i64 0, i64 1)
  store double %v, ptr WHERE
  ret double %a
}"#;
    stable(&body.replace(
        "WHERE",
        "getelementptr inbounds ([4 x double], ptr @arr, i64 0, i64 2)",
    ))
    .expect("a", true);
    stable(&body.replace("WHERE", "getelementptr inbounds (i8, ptr @arr, i64 12)"))
        .expect("a", false);
    stable(&body.replace("WHERE", "@arr")).expect("a", true);
}

#[test]
fn a_fresh_buffer_lent_to_a_non_capturing_reader_stays_private() {
    let body = r#"
declare void @use(ptr ATTR) memory(argmem: read)
declare void @opaque(ptr)
define double @f(ptr %x) {
  %buf = call ptr @malloc(i64 8)
  store double 1.0, ptr %buf
  %a = load double, ptr %buf
  call void @use(ptr %buf)
  call void @opaque(ptr %x)
  ret double %a
}"#;
    stable(&body.replace("ATTR", "captures(none)")).expect("a", true);
    // Without `captures(none)` @use may keep the pointer where @opaque finds it.
    stable(&body.replace("ATTR", "")).expect("a", false);
}

/// The named calls of `@f` in `body` that may reach one of its stack slots.
fn stack_calls(body: &str) -> Vec<String> {
    let ctx = Context::create();
    let text = format!("{HEADER}\n{body}");
    let module = parse_test_module(&ctx, &text);
    let m = Module(module.as_mut_ptr());
    m.verify().expect("valid test IR");
    let f = m.function("f").expect("a function @f");
    let o = Overwrites::analyze(f, OverwriteContext::stable(true), &UserRules::default());
    let mut out = Vec::new();
    for b in f.blocks() {
        for i in b.instructions() {
            if i.is_call() && !i.name().is_empty() && o.reaches_stack(i) {
                out.push(i.name());
            }
        }
    }
    out
}

#[test]
fn pointers_a_call_returns_from_a_stack_slot_are_not_reread() {
    // std::array's operator[] at -O0: a call given the local array returns a pointer into
    // it; the adjoint, after the augmented sweep's frame is gone, may not read through it.
    let v = stable(
        r#"
declare ptr @index(ptr, i64) memory(none)
define double @f(ptr %x) {
  %a = alloca [3 x double]
  store double 1.0, ptr %a
  %p = call ptr @index(ptr %a, i64 0)
  %fromstack = load double, ptr %p
  ret double %fromstack
}"#,
    );
    v.expect("fromstack", false);
    // Given only an argument (no stack slot in the function), what it returns may be read
    // again.
    let v = stable(
        r#"
declare ptr @index(ptr, i64) memory(none)
define double @f(ptr %x) {
  %q = call ptr @index(ptr %x, i64 0)
  %fromarg = load double, ptr %q
  ret double %fromarg
}"#,
    );
    v.expect("fromarg", true);
}

#[test]
fn calls_reaching_a_stack_slot() {
    // Directly (a GEP of a local array) and not at all (a heap block, an argument).
    let direct = r#"
declare double @h(ptr captures(none), i64) memory(argmem: read)
define double @f(ptr %x) {
  %a = alloca [3 x double]
  %buf = call ptr @malloc(i64 24)
  %p = getelementptr inbounds [3 x double], ptr %a, i64 0, i64 1
  %r1 = call double @h(ptr %p, i64 2)
  %r2 = call double @h(ptr %buf, i64 3)
  %r3 = call double @h(ptr %x, i64 3)
  %s = fadd double %r1, %r2
  %t = fadd double %s, %r3
  ret double %t
}"#;
    assert_eq!(stack_calls(direct), ["r1"]);
    // Through memory: the array's address is stored in a local struct, so any call may
    // find it (here through the argument %x, which the struct's address does not reach).
    let escaped = r#"
declare double @h(ptr, i64) memory(argmem: read)
define double @f(ptr %x, ptr %out) {
  %a = alloca [3 x double]
  store ptr %a, ptr %out
  %r1 = call double @h(ptr %x, i64 3)
  ret double %r1
}"#;
    assert_eq!(stack_calls(escaped), ["r1"]);
}

/// An internal global whose address nothing takes is reached through its symbol alone: a store
/// through a parameter cannot change it. Once its address goes to a function with a body, that
/// function's parameter may point to it.
#[test]
fn an_internal_global_no_one_takes_the_address_of_is_apart_from_parameters() {
    let body = r#"
@g = internal global double 0.0
define double @f(ptr %p) {
  %v = load double, ptr @g
  store double 2.0, ptr %p
  ret double %v
}
"#;
    stable(body).expect("v", true);
    let taken = format!(
        "{body}\ndefine double @caller() {{\n  %r = call double @f(ptr @g)\n  ret double %r\n}}\n"
    );
    stable(&taken).expect("v", false);
    // A global other modules may name: a parameter may point to it.
    stable(&body.replace("internal global", "global")).expect("v", false);
}

const BLAS: &str = r#"
declare void @cblas_dgemv(i32, i32, i32, i32, double, ptr, i32, ptr, i32, double, ptr, i32)
declare void @dgemv_(ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr)
"#;

/// The lines of the report about BLAS input arrays, without the call's text.
fn array_lines(v: &Verdicts) -> Vec<String> {
    v.report
        .iter()
        .filter_map(|l| {
            l.split_once("): argument ")
                .map(|(_, r)| format!("argument {r}"))
        })
        .collect()
}

/// A BLAS call writes its output array only: a load of its input after it is re-read, and the
/// input itself is read in place; the Fortran interface's scalars (by pointer) are not written
/// either.
#[test]
fn a_blas_call_writes_only_its_output() {
    let v = stable(&format!(
        r#"{BLAS}
define double @f(ptr noalias %A, ptr noalias %x, ptr noalias %y, ptr noalias %m) {{
  call void @cblas_dgemv(i32 102, i32 111, i32 2, i32 2, double 1.0, ptr %A, i32 2, ptr %x, i32 1, double 0.0, ptr %y, i32 1)
  call void @dgemv_(ptr %m, ptr %m, ptr %m, ptr %m, ptr %A, ptr %m, ptr %x, ptr %m, ptr %m, ptr %y, ptr %m)
  %a = load double, ptr %A
  %k = load double, ptr %m
  ret double %a
}}"#
    ));
    v.expect("a", true);
    v.expect("k", true);
    assert_eq!(
        array_lines(&v),
        [
            "argument 5 read in place",
            "argument 7 read in place",
            "argument 4 read in place",
            "argument 6 read in place",
        ]
    );
}

/// In a loop whose output becomes the next iteration's input (two blocks swapped by phis), the
/// vector is written by a later run of the same call and is copied; the matrix is not.
#[test]
fn a_blas_input_written_by_a_later_iteration_is_copied() {
    let v = stable(&format!(
        r#"{BLAS}
define void @f(ptr noalias %A, i64 %n) {{
entry:
  %a0 = call ptr @malloc(i64 16)
  %b0 = call ptr @malloc(i64 16)
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %a = phi ptr [%a0, %entry], [%b, %loop]
  %b = phi ptr [%b0, %entry], [%a, %loop]
  call void @cblas_dgemv(i32 102, i32 111, i32 2, i32 2, double 1.0, ptr %A, i32 2, ptr %a, i32 1, double 0.0, ptr %b, i32 1)
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}}"#
    ));
    assert_eq!(
        array_lines(&v),
        [
            "argument 5 read in place",
            "argument 7 copied: the call itself may write it",
        ]
    );
}

/// Without a stable caller, arguments may change before the adjoint: copied.
#[test]
fn a_blas_input_the_caller_may_write_is_copied() {
    let v = analyze(
        &format!(
            r#"{BLAS}
define void @f(ptr noalias %A, ptr noalias %x, ptr noalias %y) {{
  call void @cblas_dgemv(i32 102, i32 111, i32 2, i32 2, double 1.0, ptr %A, i32 2, ptr %x, i32 1, double 0.0, ptr %y, i32 1)
  ret void
}}"#
        ),
        false,
    );
    assert_eq!(
        array_lines(&v),
        [
            "argument 5 copied: the caller may write %A before the adjoint",
            "argument 7 copied: the caller may write %x before the adjoint",
        ]
    );
}
