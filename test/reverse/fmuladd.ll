; llvm.fmuladd(a, b, c): adj(a) += d*b, adj(b) += d*a, adj(c) += d*1.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare { double, double, double } @__enzyme_autodiff(ptr, ...)
declare double @llvm.fmuladd.f64(double, double, double)

define double @f(double %a, double %b, double %c) {
entry:
  %r = call double @llvm.fmuladd.f64(double %a, double %b, double %c)
  ret double %r
}

define { double, double, double } @caller(double %a, double %b, double %c) {
entry:
  %r = call { double, double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %a, double %b, double %c)
  ret { double, double, double } %r
}

; The partials read only the arguments: nothing is taped.
; CHECK-LABEL: define internal double @augfwd.f.aaa{{[.a-z]*}}(ptr %tape, double %a, double %b, double %c)
; CHECK-NEXT:    %r = call double @llvm.fmuladd.f64(double %a, double %b, double %c)
; CHECK-NEXT:    ret double %r

; CHECK-LABEL: define internal { double, double, double } @adjoint.f.aaa{{[.a-z]*}}(ptr %tape, double %a, double %b, double %c, double %dret)
; CHECK:         [[O0:%[0-9]+]] = load double, ptr [[SR:%[0-9]+]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd reassoc double [[O0]], %dret
; CHECK-NEXT:    store double [[N0]], ptr [[SR]]
; CHECK:         [[D:%[0-9]+]] = load double, ptr [[SR]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SR]]
; CHECK-NEXT:    [[TA:%[0-9]+]] = fmul double [[D]], %b
; CHECK-NEXT:    [[OA:%[0-9]+]] = load double, ptr [[SA:%[0-9]+]]
; CHECK-NEXT:    [[NA:%[0-9]+]] = fadd reassoc double [[OA]], [[TA]]
; CHECK-NEXT:    store double [[NA]], ptr [[SA]]
; CHECK-NEXT:    [[TB:%[0-9]+]] = fmul double [[D]], %a
; CHECK-NEXT:    [[OB:%[0-9]+]] = load double, ptr [[SB:%[0-9]+]]
; CHECK-NEXT:    [[NB:%[0-9]+]] = fadd reassoc double [[OB]], [[TB]]
; CHECK-NEXT:    store double [[NB]], ptr [[SB]]
; the partial for c is the constant 1: d is added as it is
; CHECK-NEXT:    [[OC:%[0-9]+]] = load double, ptr [[SC:%[0-9]+]]
; CHECK-NEXT:    [[NC:%[0-9]+]] = fadd reassoc double [[OC]], [[D]]
; CHECK-NEXT:    store double [[NC]], ptr [[SC]]
; CHECK:       exit:
; CHECK-NEXT:    [[AA:%[0-9]+]] = load double, ptr [[SA]]
; CHECK-NEXT:    [[AAZ:%[0-9]+]] = fadd double [[AA]], 0.000000e+00
; CHECK-NEXT:    [[R1:%[0-9]+]] = insertvalue { double, double, double } poison, double [[AAZ]], 0
; CHECK-NEXT:    [[AB:%[0-9]+]] = load double, ptr [[SB]]
; CHECK-NEXT:    [[ABZ:%[0-9]+]] = fadd double [[AB]], 0.000000e+00
; CHECK-NEXT:    [[R2:%[0-9]+]] = insertvalue { double, double, double } [[R1]], double [[ABZ]], 1
; CHECK-NEXT:    [[AC:%[0-9]+]] = load double, ptr [[SC]]
; CHECK-NEXT:    [[ACZ:%[0-9]+]] = fadd double [[AC]], 0.000000e+00
; CHECK-NEXT:    insertvalue { double, double, double } [[R2]], double [[ACZ]], 2
