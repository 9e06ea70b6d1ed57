; The adjoint of a loop the primal's compiler unrolled (its induction variable steps by 4, its
; body reads four consecutive elements): the adjoint's back edge asks the loop vectoriser to
; leave the loop alone, so the SLP vectoriser packs the four consecutive updates into vector
; loads and stores instead of gathers and scatters across iterations.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)

define double @sum4(ptr %x, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i4, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s4, %loop ]
  %p0 = getelementptr inbounds double, ptr %x, i64 %i
  %v0 = load double, ptr %p0, align 8
  %p1 = getelementptr inbounds double, ptr %p0, i64 1
  %v1 = load double, ptr %p1, align 8
  %p2 = getelementptr inbounds double, ptr %p0, i64 2
  %v2 = load double, ptr %p2, align 8
  %p3 = getelementptr inbounds double, ptr %p0, i64 3
  %v3 = load double, ptr %p3, align 8
  %s1 = fadd double %s, %v0
  %s2 = fadd double %s1, %v1
  %s3 = fadd double %s2, %v2
  %s4 = fadd double %s3, %v3
  %i4 = add i64 %i, 4
  %more = icmp ult i64 %i4, %n
  br i1 %more, label %loop, label %done

done:
  ret double %s4
}

define void @caller(ptr %x, ptr %dx, i64 %n) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @sum4, ptr %x, ptr %dx, i64 %n)
  ret void
}

; CHECK-LABEL: define internal void @adjoint.sum4.dc{{[.a-z]*}}(
; CHECK:         br label %{{[0-9]+}}, !llvm.loop [[LOOP:![0-9]+]]
; CHECK:       [[LOOP]] = distinct !{[[LOOP]], [[NOVEC:![0-9]+]]}
; CHECK:       [[NOVEC]] = !{!"llvm.loop.vectorize.enable", i1 false}
