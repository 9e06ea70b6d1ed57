; fdiv: quotient rule in the form d(x/y) = (dx - q*dy) / y, q = x/y.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)
@enzyme_const = external global i32

define double @f(double %x, double %y) {
entry:
  %q = fdiv double %x, %y
  ret double %q
}

; Constant numerator: d(x/y) = -(q*dy) / y.
define double @g(double %x, double %y) {
entry:
  %q = fdiv double %x, %y
  ret double %q
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
; CHECK:         %q = fdiv double %x, %y
; CHECK-NEXT:    [[QDY:%.*]] = fmul double %q, %d.y
; CHECK-NEXT:    [[NUM:%.*]] = fsub double %d.x, [[QDY]]
; CHECK-NEXT:    [[TQ:%.*]] = fdiv arcp double [[NUM]], %y
; CHECK-NEXT:    [[TZ:%.*]] = fcmp oeq double [[NUM]], 0.000000e+00
; CHECK-NEXT:    [[T:%.*]] = select i1 [[TZ]], double 0.000000e+00, double [[TQ]]
; CHECK-NEXT:    [[R:%.*]] = insertvalue { double, double } poison, double %q, 0
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[T]], 1

; CHECK-LABEL: define internal { double, double } @fwddiffe.g.cd(double %x, double %y, double %d.y)
; CHECK:         %q = fdiv double %x, %y
; CHECK-NEXT:    [[QDY:%.*]] = fmul double %q, %d.y
; CHECK-NEXT:    [[NUM:%.*]] = fneg arcp double [[QDY]]
; CHECK-NEXT:    [[TQ:%.*]] = fdiv arcp double [[NUM]], %y
; CHECK-NEXT:    [[TZ:%.*]] = fcmp oeq double [[NUM]], 0.000000e+00
; CHECK-NEXT:    [[T:%.*]] = select i1 [[TZ]], double 0.000000e+00, double [[TQ]]
; CHECK-NEXT:    [[R:%.*]] = insertvalue { double, double } poison, double %q, 0
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[T]], 1
