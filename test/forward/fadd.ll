; fadd: the tangent is the sum of the operands' tangents.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)

define double @f(double %x, double %y) {
entry:
  %s = fadd double %x, %y
  ret double %s
}

; Only %y is differentiated: the tangent is %d.y itself, no fadd with a zero.
define double @g(double %x, double %y) {
entry:
  %s = fadd double %x, %y
  ret double %s
}

@enzyme_const = external global i32

define double @caller(double %x, double %dx, double %y, double %dy) {
entry:
  %r1 = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx, double %y, double %dy)
  %c = load i32, ptr @enzyme_const
  %r2 = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, i32 %c, double %x, double %y, double %dy)
  %r = fadd double %r1, %r2
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.dd(double %x, double %d.x, double %y, double %d.y)
; CHECK:         %s = fadd double %x, %y
; CHECK-NEXT:    [[T:%.*]] = fadd double %d.x, %d.y
; CHECK-NEXT:    [[A:%.*]] = insertvalue { double, double } poison, double %s, 0
; CHECK-NEXT:    [[B:%.*]] = insertvalue { double, double } [[A]], double [[T]], 1
; CHECK-NEXT:    ret { double, double } [[B]]

; CHECK-LABEL: define internal { double, double } @fwddiffe.g.cd(double %x, double %y, double %d.y)
; CHECK:         %s = fadd double %x, %y
; CHECK-NEXT:    [[A:%.*]] = insertvalue { double, double } poison, double %s, 0
; CHECK-NEXT:    [[B:%.*]] = insertvalue { double, double } [[A]], double %d.y, 1
; CHECK-NEXT:    ret { double, double } [[B]]
