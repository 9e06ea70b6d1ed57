; A derived loop keeps the loop properties (`!llvm.loop`) of the loop it copies, under a loop
; ID of its own: clang's pipeline marks the remainder loops it made `llvm.loop.unroll.disable`,
; and without the mark re-optimisation unrolled clang's unrolled loops and their remainders
; again (gp_lml's augmented forward sweep had three times the primal's multiplies).
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)

; for (i = 0; i < n; i++) s += x[i] * x[i]; the loop a remainder clang made.
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

define void @grad(ptr %x, ptr %dx, i64 %n) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, i64 %n)
  ret void
}

define double @tangent(ptr %x, ptr %dx, i64 %n) {
entry:
  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %x, ptr %dx, i64 %n)
  ret double %t
}

!0 = distinct !{!0, !1}
!1 = !{!"llvm.loop.unroll.disable"}

; CHECK-LABEL: define double @f(
; CHECK:         br i1 %more, label %loop, label %done, !llvm.loop [[PRIMAL:![0-9]+]]
; CHECK-LABEL: define internal {{.*}} @augfwd.f.
; CHECK:         br i1 %more, label %{{[0-9a-z.]+}}, label %{{[0-9a-z.]+}}, !llvm.loop [[AUG:![0-9]+]]
; CHECK-LABEL: define internal {{.*}} @fwddiffe.f.
; CHECK:         br i1 %more, label %{{[0-9a-z.]+}}, label %{{[0-9a-z.]+}}, !llvm.loop [[FWD:![0-9]+]]
; CHECK-DAG:   [[PRIMAL]] = distinct !{[[PRIMAL]], [[DISABLE:![0-9]+]]}
; CHECK-DAG:   [[DISABLE]] = !{!"llvm.loop.unroll.disable"}
; CHECK-DAG:   [[AUG]] = distinct !{[[AUG]], [[DISABLE]]}
; CHECK-DAG:   [[FWD]] = distinct !{[[FWD]], [[DISABLE]]}
