; select: the tangent selects between the operands' tangents on the primal condition
; (a zero where an operand has no tangent).
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)
@enzyme_const = external global i32

define double @f(double %x, double %y) {
entry:
  %c = fcmp olt double %x, %y
  %m = select i1 %c, double %x, double %y
  ret double %m
}

define double @g(double %x, double %y) {
entry:
  %c = fcmp olt double %x, %y
  %m = select i1 %c, double %x, double %y
  ret double %m
}

define double @caller(double %x, double %dx, double %y, double %dy) {
entry:
  %r1 = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx, double %y, double %dy)
  %k = load i32, ptr @enzyme_const
  %r2 = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, double %x, double %dx, i32 %k, double %y)
  %r = fadd double %r1, %r2
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.dd(double %x, double %d.x, double %y, double %d.y)
; CHECK:         %c = fcmp olt double %x, %y
; CHECK-NEXT:    %m = select i1 %c, double %x, double %y
; CHECK-NEXT:    [[T:%.*]] = select i1 %c, double %d.x, double %d.y
; CHECK-NEXT:    [[R:%.*]] = insertvalue { double, double } poison, double %m, 0
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[T]], 1

; CHECK-LABEL: define internal { double, double } @fwddiffe.g.dc(double %x, double %d.x, double %y)
; CHECK:         %c = fcmp olt double %x, %y
; CHECK-NEXT:    %m = select i1 %c, double %x, double %y
; CHECK-NEXT:    [[T:%.*]] = select i1 %c, double %d.x, double 0.000000e+00
; CHECK-NEXT:    [[R:%.*]] = insertvalue { double, double } poison, double %m, 0
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[T]], 1
