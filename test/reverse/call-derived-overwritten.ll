; A callee's load of memory its caller overwrites after the call: g reads *p, then f stores
; into *p. The value g read is gone by the time g's adjoint runs, so g's augmented sweep must
; tape it and its adjoint must pop it (re-reading *p would read the overwritten value).
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)

; g(a, p) = a * *p
define double @g(double %a, ptr %p) {
entry:
  %v = load double, ptr %p, align 8
  %m = fmul double %a, %v
  ret double %m
}

; f(x, p) = g(x, p), then *p = 0
define double @f(double %x, ptr %p) {
entry:
  %c = call double @g(double %x, ptr %p)
  store double 0.000000e+00, ptr %p, align 8
  ret double %c
}

define double @caller(double %x, ptr %p, ptr %dp) {
entry:
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, ptr %p, ptr %dp)
  ret double %r
}

; CHECK-LABEL: define internal double @augfwd.g.ad(ptr %tape, double %a, ptr %p, ptr %d.p)
; CHECK-NEXT:    %v = load double, ptr %p
; CHECK-NEXT:    %m = fmul double %a, %v
; CHECK-NEXT:    [[T:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 8)
; CHECK-NEXT:    store double %v, ptr [[T]]
; CHECK-NEXT:    ret double %m

; CHECK-LABEL: define internal { double } @adjoint.g.ad(ptr %tape, double %a, ptr %p, ptr %d.p, double %dret)
; CHECK:         [[TP:%[0-9]+]] = call ptr @umbra.tape.pop(ptr %tape, i64 8)
; CHECK-NEXT:    [[V:%[0-9]+]] = load double, ptr [[TP]]
; CHECK-NOT:     load double, ptr %p
; CHECK:       exit:
