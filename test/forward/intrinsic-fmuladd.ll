; llvm.fmuladd(a, b, c) = a*b + c: the tangent is b*da + a*db + dc.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)
declare double @llvm.fmuladd.f64(double, double, double)

define double @f(double %a, double %b, double %c) {
entry:
  %r = call double @llvm.fmuladd.f64(double %a, double %b, double %c)
  ret double %r
}

define double @caller(double %a, double %da, double %b, double %db, double %c, double %dc) {
entry:
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %a, double %da, double %b, double %db, double %c, double %dc)
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.ddd(double %a, double %d.a, double %b, double %d.b, double %c, double %d.c)
; CHECK:         %r = call double @llvm.fmuladd.f64(double %a, double %b, double %c)
; CHECK-NEXT:    [[X:%.*]] = fmul double %b, %d.a
; CHECK-NEXT:    [[Y:%.*]] = fmul double %a, %d.b
; CHECK-NEXT:    [[XY:%.*]] = fadd double [[X]], [[Y]]
; The partial for c is the constant 1.0: d.c is added as it is (no multiplication).
; CHECK-NEXT:    [[DR:%.*]] = fadd double [[XY]], %d.c
; CHECK-NEXT:    [[P:%.*]] = insertvalue { double, double } poison, double %r, 0
; CHECK-NEXT:    insertvalue { double, double } [[P]], double [[DR]], 1
