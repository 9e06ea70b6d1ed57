; A libm call with a rule: d sin(x) = cos(x) dx, cos emitted as the llvm.cos intrinsic.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)
declare double @sin(double)

define double @f(double %x) {
entry:
  %s = call double @sin(double %x)
  ret double %s
}

define double @caller(double %x, double %dx) {
entry:
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx)
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.d(double %x, double %d.x)
; CHECK:         %s = call double @sin(double %x)
; CHECK-NEXT:    [[C:%.*]] = call double @llvm.cos.f64(double %x)
; CHECK-NEXT:    [[DS:%.*]] = fmul double [[C]], %d.x
; CHECK-NEXT:    [[R:%.*]] = insertvalue { double, double } poison, double %s, 0
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[DS]], 1
