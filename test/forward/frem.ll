; frem: r = x - y*trunc(x/y), so dr = dx - trunc(x/y)*dy.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)

define double @f(double %x, double %y) {
entry:
  %r = frem double %x, %y
  ret double %r
}

define double @caller(double %x, double %dx, double %y, double %dy) {
entry:
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx, double %y, double %dy)
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.dd(double %x, double %d.x, double %y, double %d.y)
; CHECK:         %r = frem double %x, %y
; CHECK-NEXT:    [[Q:%.*]] = fdiv double %x, %y
; CHECK-NEXT:    [[TQ:%.*]] = call double @llvm.trunc.f64(double [[Q]])
; CHECK-NEXT:    [[TQDY:%.*]] = fmul double [[TQ]], %d.y
; CHECK-NEXT:    [[T:%.*]] = fsub double %d.x, [[TQDY]]
; CHECK-NEXT:    [[A:%.*]] = insertvalue { double, double } poison, double %r, 0
; CHECK-NEXT:    insertvalue { double, double } [[A]], double [[T]], 1
