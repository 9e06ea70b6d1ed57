; fneg: the tangent is the negated tangent.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)

define double @f(double %x) {
entry:
  %n = fneg double %x
  ret double %n
}

define double @caller(double %x, double %dx) {
entry:
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx)
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.d(double %x, double %d.x)
; CHECK:         %n = fneg double %x
; CHECK-NEXT:    [[T:%.*]] = fneg arcp double %d.x
; CHECK-NEXT:    [[A:%.*]] = insertvalue { double, double } poison, double %n, 0
; CHECK-NEXT:    insertvalue { double, double } [[A]], double [[T]], 1
