; A value several instructions of one batch need is written to the tape once: here x[i]'s
; old value t feeds both sin and the product, so each iteration pushes t once, and both
; adjoints read the same bytes back (it pushed t twice, 24 bytes, then t and sin(t), 16). sin(t),
; which the product's adjoint needs, is rebuilt beside the cosine sin's adjoint computes (one
; `sincos` call in code generation), so t's 8 bytes are all. (The loop's exit depends on the
; data, so its iterations cannot be counted ahead and each one pushes.)
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)
declare double @sin(double)

; do { t = x[i]; s += sin(t) * t; x[i] = 0; i++ } while (t < 1)
define double @f(ptr %x) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %t = load double, ptr %p, align 8
  %sn = call double @sin(double %t)
  %m = fmul double %sn, %t
  %s1 = fadd double %s, %m
  store double 0.0, ptr %p, align 8
  %i1 = add i64 %i, 1
  %more = fcmp olt double %t, 1.0
  br i1 %more, label %loop, label %done

done:
  ret double %s1
}

define void @caller(ptr %x, ptr %dx) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx)
  ret void
}

; CHECK-LABEL: define internal double @augfwd.f.d{{[.a-z]*}}(
; CHECK:         [[S:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 8)
; CHECK-NEXT:    store double %t, ptr [[S]], align 1
; CHECK-NOT:     store double %t
; CHECK-NOT:     store double %sn
; CHECK:         br i1 %more

; CHECK-LABEL: define internal void @adjoint.f.d{{[.a-z]*}}(
; CHECK:         [[P:%[0-9]+]] = call ptr @umbra.tape.pop(ptr %tape, i64 8)
; CHECK-NOT:     umbra.tape.pop
; CHECK:         [[T1:%[0-9]+]] = load double, ptr [[P]], align 1
; CHECK-NOT:     umbra.tape.pop
; CHECK:         call double @sin(double [[T1]])
; CHECK-NOT:     umbra.tape.pop
; CHECK:         [[T:%[0-9]+]] = load double, ptr [[P]], align 1
; CHECK-NOT:     umbra.tape.pop
; CHECK:         call double @llvm.cos.f64(double [[T]])
