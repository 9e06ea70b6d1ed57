; RUN: %umbra %s -O0 -o - --print-types 2>%t.types | FileCheck %s
; RUN: FileCheck %s --check-prefix=TYPES < %t.types
; An integer parameter or return value the type analysis proves carries a double (issue 11,
; case 1) gets a double tangent or adjoint in the derived signatures, in both modes; the
; integer's own value stays an integer.

; TYPES: type trees of @scaled:
; TYPES-NEXT: param %u: {0: double}
; TYPES: type trees of @bits:
; TYPES-NEXT: param %x: {0: double}
; TYPES-NEXT: return: {0: double}

; CHECK-DAG: define internal i64 @augfwd.bits.a.s(ptr %tape, double %x)
; CHECK-DAG: define internal { double } @adjoint.bits.a.s(ptr %tape, double %x, double %dret)
; CHECK-DAG: define internal double @augfwd.scaled.a.s(ptr %tape, i64 %u)
; CHECK-DAG: define internal { double } @adjoint.scaled.a.s(ptr %tape, i64 %u, double %dret)
; CHECK-DAG: define internal { i64, double } @fwddiffe.bits.d(double %x, double %d.x)
; CHECK-DAG: define internal { double, double } @fwddiffe.scaled.d(i64 %u, double %d.u)

define internal double @scaled(i64 %u) noinline {
  %d = bitcast i64 %u to double
  %r = fmul double %d, 2.0
  ret double %r
}
define internal i64 @bits(double %x) noinline {
  %u = bitcast double %x to i64
  ret i64 %u
}
define double @f(double %x) {
  %u = call i64 @bits(double %x)
  %r = call double @scaled(i64 %u)
  %m = fmul double %r, %x
  ret double %m
}
declare double @__enzyme_autodiff(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)
define double @df(double %x) {
  %g = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0)
  %s = fadd double %g, %t
  ret double %s
}
