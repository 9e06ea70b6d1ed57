; A phi or select of { double, ptr } structs (two helpers' results merged before the fields
; are taken, as clang emits `c ? f(a) : g(b)` at -O1 and above) that only extractvalue reads
; becomes one phi or select per field read, of fields taken in the incoming blocks (before
; the select); the calls then return through memory (struct-return-mixed.ll). A loop phi
; carrying the struct unchanged carries each field. An invoke's result merged on its normal
; edge (C++ with a cleanup) gets a block of its own on that edge, where its fields are taken
; (taken before the invoke, they were read from the slot before it was written), and the
; block's other phis follow the new edge. Before, reverse mode refused the merged value
; ("holds both pointers and floating-point data").
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)
declare i32 @__gxx_personality_v0(...)

define { double, ptr } @f(ptr %p) noinline {
  %x = load double, ptr %p
  %s = fmul double %x, %x
  %r = insertvalue { double, ptr } poison, double %s, 0
  %r1 = insertvalue { double, ptr } %r, ptr %p, 1
  ret { double, ptr } %r1
}

define { double, ptr } @g(ptr %p) noinline {
  %q = getelementptr inbounds double, ptr %p, i64 1
  %x = load double, ptr %p
  %r = insertvalue { double, ptr } poison, double %x, 0
  %r1 = insertvalue { double, ptr } %r, ptr %q, 1
  ret { double, ptr } %r1
}

define double @merged(ptr %p, i1 %c) {
entry:
  br i1 %c, label %then, label %else
then:
  %a = call { double, ptr } @f(ptr %p)
  br label %join
else:
  %b = call { double, ptr } @g(ptr %p)
  br label %join
join:
  %m = phi { double, ptr } [ %a, %then ], [ %b, %else ]
  %v = extractvalue { double, ptr } %m, 0
  %q = extractvalue { double, ptr } %m, 1
  %y = load double, ptr %q
  %r = fmul double %v, %y
  ret double %r
}

define double @selected(ptr %p, i1 %c) {
  %a = call { double, ptr } @f(ptr %p)
  %b = call { double, ptr } @g(ptr %p)
  %m = select i1 %c, { double, ptr } %a, { double, ptr } %b
  %v = extractvalue { double, ptr } %m, 0
  %q = extractvalue { double, ptr } %m, 1
  %y = load double, ptr %q
  %r = fmul double %v, %y
  ret double %r
}

define double @carried(ptr %p, i64 %n) {
entry:
  %a = call { double, ptr } @f(ptr %p)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %m = phi { double, ptr } [ %a, %entry ], [ %m, %loop ]
  %v = extractvalue { double, ptr } %m, 0
  %s1 = fadd double %s, %v
  %i1 = add i64 %i, 1
  %done = icmp eq i64 %i1, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %s1
}

define double @invoked(ptr %p, i1 %c) personality ptr @__gxx_personality_v0 {
entry:
  %x = load double, ptr %p
  br i1 %c, label %call, label %join
call:
  %a = invoke { double, ptr } @f(ptr %p) to label %join unwind label %lp
join:
  %k = phi double [ 2.0, %call ], [ %x, %entry ]
  %m = phi { double, ptr } [ %a, %call ], [ { double 0.0, ptr null }, %entry ]
  %v = extractvalue { double, ptr } %m, 0
  %r = fmul double %v, %k
  ret double %r
lp:
  %l = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %l
}

; Two merges of one invoke's result in one block: splitting the first rebuilds the second for
; the new edge (a list of merges made beforehand named the erased phi: a crash).
define double @invoked_twice(ptr %p, i1 %c) personality ptr @__gxx_personality_v0 {
entry:
  br i1 %c, label %call, label %join
call:
  %a = invoke { double, ptr } @f(ptr %p) to label %join unwind label %lp
join:
  %m1 = phi { double, ptr } [ %a, %call ], [ { double 0.0, ptr null }, %entry ]
  %m2 = phi { double, ptr } [ %a, %call ], [ { double 1.0, ptr null }, %entry ]
  %v1 = extractvalue { double, ptr } %m1, 0
  %v2 = extractvalue { double, ptr } %m2, 0
  %r = fmul double %v1, %v2
  ret double %r
lp:
  %l = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %l
}

define void @grads(ptr %p, ptr %dp, i1 %c, i64 %n) {
  call double (ptr, ...) @__enzyme_autodiff(ptr @merged, ptr %p, ptr %dp, i1 %c)
  call double (ptr, ...) @__enzyme_autodiff(ptr @selected, ptr %p, ptr %dp, i1 %c)
  call double (ptr, ...) @__enzyme_autodiff(ptr @carried, ptr %p, ptr %dp, i64 %n)
  call double (ptr, ...) @__enzyme_autodiff(ptr @invoked, ptr %p, ptr %dp, i1 %c)
  call double (ptr, ...) @__enzyme_autodiff(ptr @invoked_twice, ptr %p, ptr %dp, i1 %c)
  ret void
}

; CHECK-LABEL: define double @merged(
; CHECK: then:
; CHECK: call void @f.umbra.out(ptr %[[SA:[^,]+]], ptr %p)
; CHECK: else:
; CHECK: call void @g.umbra.out(ptr %[[SB:[^,]+]], ptr %p)
; CHECK: join:
; CHECK-DAG: phi ptr
; CHECK-DAG: phi double
; CHECK-NOT: phi { double, ptr }
; CHECK: ret double

; CHECK-LABEL: define double @selected(
; CHECK: call void @f.umbra.out(
; CHECK: call void @g.umbra.out(
; CHECK-DAG: select i1 %c, ptr
; CHECK-DAG: select i1 %c, double
; CHECK-NOT: select i1 %c, { double, ptr }
; CHECK: ret double

; CHECK-LABEL: define double @carried(
; CHECK: call void @f.umbra.out(
; CHECK-NOT: { double, ptr } %
; CHECK: ret double

; CHECK-LABEL: define double @invoked(
; CHECK: call:
; CHECK-NEXT: invoke void @f.umbra.out(ptr %[[SLOT:[^,]+]], ptr %p)
; CHECK-NEXT: to label %[[EDGE:[^ ]+]] unwind label %lp
; CHECK: join:
; CHECK-DAG: phi double [ 2.000000e+00, %[[EDGE]] ], [ %x, %entry ]
; CHECK-DAG: phi double [ %[[V:[^,]+]], %[[EDGE]] ], [ 0.000000e+00, %entry ]
; CHECK: [[EDGE]]:
; CHECK-NEXT: %[[V]] = load double, ptr %[[SLOT]]
; CHECK-NEXT: br label %join

; CHECK-LABEL: define double @invoked_twice(
; CHECK: invoke void @f.umbra.out(
; CHECK-NEXT: to label %[[EDGE2:[^ ]+]] unwind label %lp
; CHECK: join:
; CHECK-DAG: phi double [ %{{[^,]+}}, %[[EDGE2]] ], [ 0.000000e+00, %entry ]
; CHECK-DAG: phi double [ %{{[^,]+}}, %[[EDGE2]] ], [ 1.000000e+00, %entry ]
; CHECK-NOT: phi { double, ptr }
; CHECK: ret double

; CHECK: define {{.*}}@f.umbra.out(
; CHECK: define {{.*}}@g.umbra.out(
