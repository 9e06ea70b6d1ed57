; z = (log(x[i]) - mu) / sigma feeds only the result (sum of z^2): the adjoint calls log again
; on the re-read x[i] rather than the forward sweep computing z to tape it, so the forward
; sweep's loop pushes nothing (and, when the request ignores the result, LLVM deletes it).
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)
declare double @log(double)
@enzyme_const = external global i32

define double @f(ptr noalias readonly %x, i64 %n, double %mu, double %sigma) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p, align 8
  %l = call double @log(double %v)
  %d = fsub double %l, %mu
  %z = fdiv double %d, %sigma
  %zz = fmul double %z, %z
  %s1 = fadd double %s, %zz
  %i1 = add i64 %i, 1
  %more = icmp ult i64 %i1, %n
  br i1 %more, label %loop, label %done

done:
  ret double %s1
}

; CHECK-LABEL: define internal double @augfwd.f.ccaa{{[.a-z]*}}(
; CHECK:         %i = phi i64
; CHECK-NOT:     @umbra.tape.push
; CHECK:         br i1 %more

; CHECK-LABEL: define internal { double, double } @adjoint.f.ccaa{{[.a-z]*}}(
; CHECK:         [[P:%[0-9]+]] = getelementptr inbounds double, ptr %x, i64
; CHECK-NEXT:    [[V:%[0-9]+]] = load double, ptr [[P]]
; CHECK-NEXT:    call double @log(double [[V]])
; CHECK-NOT:     @umbra.tape.pop(ptr %tape, i64 8)
; CHECK:         br

define { double, double } @grad(ptr %x, i64 %n, double %mu, double %sigma) {
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, ptr @enzyme_const, ptr %x, ptr @enzyme_const, i64 %n, double %mu, double %sigma)
  ret { double, double } %r
}
