; An else-if chain joining in one block: the join's three predecessors are told apart by the
; two conditions, evaluated again in the adjoint one after the other (the second only where
; the first was false, as in the primal), so the forward sweep records nothing.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare { double, double } @__enzyme_autodiff(ptr, ...)

; a ? x * y : (b ? x - y : x * x)
define double @f(double %x, double %y, i1 %a, i1 %b) {
entry:
  br i1 %a, label %first, label %next

first:
  %p = fmul double %x, %y
  br label %join

next:
  br i1 %b, label %second, label %third

second:
  %q = fsub double %x, %y
  br label %join

third:
  %r = fmul double %x, %x
  br label %join

join:
  %v = phi double [ %p, %first ], [ %q, %second ], [ %r, %third ]
  ret double %v
}

define { double, double } @caller(double %x, double %y, i1 %a, i1 %b) {
entry:
  %d = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y, i1 %a, i1 %b)
  ret { double, double } %d
}

; CHECK-LABEL: define internal double @augfwd.f.
; CHECK:         %v = phi double
; CHECK-NEXT:    ret double %v

; CHECK-LABEL: define internal {{.*}} @adjoint.f.
; CHECK-NOT:     umbra.tape.pop
; CHECK:         br i1 %a, label %[[FROMFIRST:[0-9]+]], label %[[DECIDE:[0-9]+]]
; CHECK:       {{^}}[[DECIDE]]:
; CHECK-NEXT:    br i1 %b, label %[[FROMSECOND:[0-9]+]], label %[[FROMTHIRD:[0-9]+]]
; CHECK-NOT:     umbra.tape.pop
; CHECK:         ret
