; fsub: the tangent is the difference of the tangents; with a constant minuend it is the
; negated tangent of the subtrahend.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)
@enzyme_const = external global i32
@enzyme_dup = external global i32

define double @f(double %x, double %y) {
entry:
  %s = fsub double %x, %y
  ret double %s
}

define double @g(double %x, double %y) {
entry:
  %s = fsub double %x, %y
  ret double %s
}

define double @caller(double %x, double %dx, double %y, double %dy) {
entry:
  %r1 = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx, double %y, double %dy)
  %c = load i32, ptr @enzyme_const
  %r2 = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, i32 %c, double %x, double %y, double %dy)
  %r = fadd double %r1, %r2
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.dd(double %x, double %d.x, double %y, double %d.y)
; CHECK:         %s = fsub double %x, %y
; CHECK-NEXT:    [[T:%.*]] = fsub double %d.x, %d.y
; CHECK-NEXT:    [[A:%.*]] = insertvalue { double, double } poison, double %s, 0
; CHECK-NEXT:    insertvalue { double, double } [[A]], double [[T]], 1

; CHECK-LABEL: define internal { double, double } @fwddiffe.g.cd(double %x, double %y, double %d.y)
; CHECK:         %s = fsub double %x, %y
; CHECK-NEXT:    [[T:%.*]] = fneg arcp double %d.y
; CHECK-NEXT:    [[A:%.*]] = insertvalue { double, double } poison, double %s, 0
; CHECK-NEXT:    insertvalue { double, double } [[A]], double [[T]], 1
