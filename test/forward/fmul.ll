; fmul: product rule, d(x*y) = dx*y + x*dy.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)
@enzyme_const = external global i32

define double @f(double %x, double %y) {
entry:
  %m = fmul double %x, %y
  ret double %m
}

; Constant factor: one product only.
define double @g(double %x, double %y) {
entry:
  %m = fmul double %x, %y
  ret double %m
}

define double @caller(double %x, double %dx, double %y, double %dy) {
entry:
  %r1 = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx, double %y, double %dy)
  %c = load i32, ptr @enzyme_const
  %r2 = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, double %x, double %dx, i32 %c, double %y)
  %r = fadd double %r1, %r2
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.dd(double %x, double %d.x, double %y, double %d.y)
; CHECK:         %m = fmul double %x, %y
; CHECK-NEXT:    [[A:%.*]] = fmul double %d.x, %y
; CHECK-NEXT:    [[B:%.*]] = fmul double %x, %d.y
; CHECK-NEXT:    [[T:%.*]] = fadd double [[A]], [[B]]
; CHECK-NEXT:    [[R:%.*]] = insertvalue { double, double } poison, double %m, 0
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[T]], 1

; CHECK-LABEL: define internal { double, double } @fwddiffe.g.dc(double %x, double %d.x, double %y)
; CHECK:         %m = fmul double %x, %y
; CHECK-NEXT:    [[A:%.*]] = fmul double %d.x, %y
; CHECK-NEXT:    [[R:%.*]] = insertvalue { double, double } poison, double %m, 0
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[A]], 1
