; A derived loop keeps the loop properties (`!llvm.loop`) of the loop it copies, under a loop
; ID of its own. When the function came out of the host's pipeline, which unrolled its loops as
; it saw fit, the copy is also `llvm.loop.unroll.disable`: LLVM's unroller does not mark a loop
; it unrolled by a run-time count, and re-optimisation unrolled clang's unrolled loops (and,
; without the remainders' own marks, their remainders) again: gp_lml's forward sweep had three
; times the primal's multiplies. A function that does not look optimised (a local still in
; memory) keeps its loops' properties only, so re-optimisation unrolls them as usual.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)

; for (i = 0; i < n; i++) s += x[i] * x[i];
define double @f(ptr %x, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %a = load double, ptr %p, align 8
  %sq = fmul double %a, %a
  %s.next = fadd double %s, %sq
  %i.next = add nuw nsw i64 %i, 1
  %more = icmp ult i64 %i.next, %n
  br i1 %more, label %loop, label %done, !llvm.loop !0

done:
  ret double %s.next
}

; The same with its counter in memory, as clang -O0 -Xclang -disable-O0-optnone leaves it.
define double @g(ptr %x, i64 %n) {
entry:
  %c = alloca i64, align 8
  store i64 0, ptr %c, align 8
  br label %loop

loop:
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %i = load i64, ptr %c, align 8
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %a = load double, ptr %p, align 8
  %sq = fmul double %a, %a
  %s.next = fadd double %s, %sq
  %i.next = add nuw nsw i64 %i, 1
  store i64 %i.next, ptr %c, align 8
  %more = icmp ult i64 %i.next, %n
  br i1 %more, label %loop, label %done, !llvm.loop !2

done:
  ret double %s.next
}

define void @grad(ptr %x, ptr %dx, i64 %n) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, i64 %n)
  call void (ptr, ...) @__enzyme_autodiff(ptr @g, ptr %x, ptr %dx, i64 %n)
  ret void
}

define double @tangent(ptr %x, ptr %dx, i64 %n) {
entry:
  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %x, ptr %dx, i64 %n)
  ret double %t
}

!0 = distinct !{!0, !1}
!1 = !{!"llvm.loop.mustprogress"}
!2 = distinct !{!2, !1}

; CHECK-LABEL: define double @f(
; CHECK:         br i1 %more, label %loop, label %done, !llvm.loop [[PRIMAL:![0-9]+]]
; CHECK-LABEL: define internal {{.*}} @augfwd.f.
; CHECK:         br i1 %more, label %{{[0-9a-z.]+}}, label %{{[0-9a-z.]+}}, !llvm.loop [[AUG:![0-9]+]]
; CHECK-LABEL: define internal {{.*}} @augfwd.g.
; CHECK:         br i1 %more, label %{{[0-9a-z.]+}}, label %{{[0-9a-z.]+}}, !llvm.loop [[AUGG:![0-9]+]]
; CHECK-LABEL: define internal {{.*}} @fwddiffe.f.
; CHECK:         br i1 %more, label %{{[0-9a-z.]+}}, label %{{[0-9a-z.]+}}, !llvm.loop [[FWD:![0-9]+]]
; CHECK-DAG:   [[PRIMAL]] = distinct !{[[PRIMAL]], [[PROGRESS:![0-9]+]]}
; CHECK-DAG:   [[PROGRESS]] = !{!"llvm.loop.mustprogress"}
; CHECK-DAG:   [[AUG]] = distinct !{[[AUG]], [[PROGRESS]], [[DISABLE:![0-9]+]]}
; CHECK-DAG:   [[DISABLE]] = !{!"llvm.loop.unroll.disable"}
; CHECK-DAG:   [[FWD]] = distinct !{[[FWD]], [[PROGRESS]], [[DISABLE]]}
; CHECK-DAG:   [[AUGG]] = distinct !{[[AUGG]], [[PROGRESS]]}
