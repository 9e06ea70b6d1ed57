; llvm.vector.reduce.fadd(start, v): the tangent is reduce.fadd(dstart, dv); with a constant
; start value the tangent reduction starts from -0.0 (the fadd identity).
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)
declare double @llvm.vector.reduce.fadd.v4f64(double, <4 x double>)
@enzyme_const = external global i32

define double @f(double %s, <4 x double> %v) {
entry:
  %r = call double @llvm.vector.reduce.fadd.v4f64(double %s, <4 x double> %v)
  ret double %r
}

define double @g(double %s, <4 x double> %v) {
entry:
  %r = call reassoc double @llvm.vector.reduce.fadd.v4f64(double %s, <4 x double> %v)
  ret double %r
}

define double @caller(double %s, double %ds, <4 x double> %v, <4 x double> %dv) {
entry:
  %r1 = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %s, double %ds, <4 x double> %v, <4 x double> %dv)
  %k = load i32, ptr @enzyme_const
  %r2 = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, i32 %k, double %s, <4 x double> %v, <4 x double> %dv)
  %r = fadd double %r1, %r2
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.dd(double %s, double %d.s, <4 x double> %v, <4 x double> %d.v)
; CHECK:         %r = call double @llvm.vector.reduce.fadd.v4f64(double %s, <4 x double> %v)
; CHECK-NEXT:    [[DR:%.*]] = call double @llvm.vector.reduce.fadd.v4f64(double %d.s, <4 x double> %d.v)
; CHECK-NEXT:    [[P:%.*]] = insertvalue { double, double } poison, double %r, 0
; CHECK-NEXT:    insertvalue { double, double } [[P]], double [[DR]], 1

; The reduction's fast-math flags carry over to the tangent reduction.
; CHECK-LABEL: define internal { double, double } @fwddiffe.g.cd(double %s, <4 x double> %v, <4 x double> %d.v)
; CHECK:         %r = call reassoc double @llvm.vector.reduce.fadd.v4f64(double %s, <4 x double> %v)
; CHECK-NEXT:    [[DR:%.*]] = call reassoc double @llvm.vector.reduce.fadd.v4f64(double -0.000000e+00, <4 x double> %d.v)
; CHECK-NEXT:    [[P:%.*]] = insertvalue { double, double } poison, double %r, 0
; CHECK-NEXT:    insertvalue { double, double } [[P]], double [[DR]], 1
