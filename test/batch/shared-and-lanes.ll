; __enzyme_batch with Enzyme's metadata markers: the batched function takes each lane-varying
; parameter as an [N x T] and returns [N x R]; work that depends on no lane (the shared
; argument's square, the loads through the shared pointer, the loop control) is emitted once,
; the rest once per lane; a callee given lane-varying arguments is batched in turn, one given
; only shared arguments is called once.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare [4 x double] @__enzyme_batch(...)

define double @add3(double %x, double %a) {
entry:
  %add = fadd double %x, %a
  ret double %add
}

define double @square_add(double %x, double %y, ptr %c, i64 %n) {
entry:
  %yy = fmul double %y, %y
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ %yy, %entry ], [ %s.next, %loop ]
  %p = getelementptr double, ptr %c, i64 %i
  %ci = load double, ptr %p
  %t = fmul double %s, %x
  %s.next = fadd double %t, %ci
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  %shared = call double @add3(double %y, double 3.0)
  %lane = call double @add3(double %s.next, double %shared)
  ret double %lane
}

define [4 x double] @caller(double %x1, double %x2, double %x3, double %x4, double %y, ptr %c, i64 %n) {
entry:
  %r = call [4 x double] (...) @__enzyme_batch(ptr @square_add, metadata !"enzyme_width", i64 4, metadata !"enzyme_vector", double %x1, double %x2, double %x3, double %x4, metadata !"enzyme_scalar", double %y, metadata !"enzyme_scalar", ptr %c, metadata !"enzyme_scalar", i64 %n)
  ret [4 x double] %r
}

; CHECK-LABEL: define [4 x double] @caller(
; CHECK: [[X:%.*]] = insertvalue [4 x double] {{.*}}, double %x4, 3
; CHECK: [[R:%.*]] = call [4 x double] @batch.square_add.vsss.w4([4 x double] [[X]], double %y, ptr %c, i64 %n)
; CHECK: extractvalue [4 x double] [[R]], 3
; CHECK: ret [4 x double]

; CHECK-LABEL: define internal [4 x double] @batch.square_add.vsss.w4([4 x double] %x, double %y, ptr %c, i64 %n)
; CHECK: [[X0:%.*]] = extractvalue [4 x double] %x, 0
; CHECK: [[X3:%.*]] = extractvalue [4 x double] %x, 3
; CHECK: %yy = fmul double %y, %y
; CHECK-NOT: fmul double %y, %y
; CHECK: %i = phi i64
; CHECK-NEXT: [[S0:%.*]] = phi double [ %yy,
; CHECK-NEXT: [[S1:%.*]] = phi double [ %yy,
; CHECK-NEXT: [[S2:%.*]] = phi double [ %yy,
; CHECK-NEXT: [[S3:%.*]] = phi double [ %yy,
; CHECK-NEXT: %p = getelementptr double, ptr %c, i64 %i
; CHECK-NEXT: %ci = load double, ptr %p
; CHECK-NEXT: fmul double [[S0]], [[X0]]
; CHECK-NEXT: fmul double [[S1]],
; CHECK-NEXT: fmul double [[S2]],
; CHECK-NEXT: fmul double [[S3]], [[X3]]
; CHECK-NEXT: fadd double {{.*}}, %ci
; CHECK: %i.next = add i64 %i, 1
; CHECK-NOT: add i64 %i, 1
; CHECK: %shared = call double @add3(double %y, double 3.000000e+00)
; CHECK-NOT: call double @add3(
; CHECK: [[L:%.*]] = call [4 x double] @batch.add3.vs.w4([4 x double] {{.*}}, double %shared)
; CHECK: extractvalue [4 x double] [[L]], 3
; CHECK: ret [4 x double]

; CHECK-LABEL: define internal [4 x double] @batch.add3.vs.w4([4 x double] %x, double %a)
; CHECK-COUNT-4: fadd double %{{.*}}, %a
; CHECK: ret [4 x double]
