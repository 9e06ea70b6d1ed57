; A square x * x (and fmuladd(x, x, c)): both partials are x, so the adjoint is
; x * (d + d), one product. Summing two equal products d * x + d * x would be one
; multiplication and one addition more per element, and in a loop whose adjoint d does not
; change (a sum of squares) d + d is computed once before it.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)
declare double @llvm.fmuladd.f64(double, double, double)
@enzyme_const = external global i32

define double @square(double %x) {
entry:
  %m = fmul double %x, %x
  ret double %m
}

define double @square_plus(double %x, double %c) {
entry:
  %m = call double @llvm.fmuladd.f64(double %x, double %x, double %c)
  ret double %m
}

define double @caller(double %x) {
entry:
  %a = call double (ptr, ...) @__enzyme_autodiff(ptr @square, double %x)
  %const = load i32, ptr @enzyme_const
  %b = call double (ptr, ...) @__enzyme_autodiff(ptr @square_plus, double %x, i32 %const, double 1.0)
  %r = fadd double %a, %b
  ret double %r
}

; CHECK-LABEL: define internal {{.*}} @adjoint.square.{{.*}}(ptr %tape, double %x, double %dret)
; CHECK:         fadd reassoc double {{%[0-9]+}}, %dret
; CHECK-NEXT:    store double
; CHECK-NEXT:    [[D:%[0-9]+]] = load double, ptr [[SM:%[0-9]+]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SM]]
; CHECK-NEXT:    [[D2:%[0-9]+]] = fadd double [[D]], [[D]]
; CHECK-NEXT:    [[T:%[0-9]+]] = fmul double [[D2]], %x
; CHECK-NEXT:    [[O:%[0-9]+]] = load double, ptr [[SX:%[0-9]+]]
; CHECK-NEXT:    [[N:%[0-9]+]] = fadd reassoc double [[O]], [[T]]
; CHECK-NEXT:    store double [[N]], ptr [[SX]]
; CHECK-NOT:     fmul
; CHECK:         ret

; CHECK-LABEL: define internal {{.*}} @adjoint.square_plus.{{.*}}(ptr %tape, double %x, double %c, double %dret)
; CHECK:         fadd reassoc double {{%[0-9]+}}, %dret
; CHECK-NEXT:    store double
; CHECK-NEXT:    [[D:%[0-9]+]] = load double, ptr [[SM:%[0-9]+]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SM]]
; CHECK-NEXT:    [[D2:%[0-9]+]] = fadd double [[D]], [[D]]
; CHECK-NEXT:    [[T:%[0-9]+]] = fmul double [[D2]], %x
; CHECK-NOT:     fmul
; CHECK:         ret
