; Enzyme's IR form of a global's shadow, `!enzyme_shadow !{ptr @shadow}` on the global: reverse
; mode adds the global's adjoint into the shadow. Before, @g got no shadow: the derivative
; through it was dropped (dg stayed 0).
; RUN: %umbra -O0 %s -o %t.o
; RUN: %clang %t.o -o %t
; RUN: %t | FileCheck %s
; RUN: %opt-umbra -passes='umbra<reopt=O2>' %s -o %t.plugin.ll
; RUN: %clang %t.plugin.ll -o %t.plugin
; RUN: %t.plugin | FileCheck %s
; CHECK: dx = 12.000000 dg = 9.000000

@g = global double 2.0, !enzyme_shadow !0
@dg = global double 0.0
@.fmt = private unnamed_addr constant [24 x i8] c"dx = %.6f dg = %.6f\0A\00\00\00\00"

define double @f(double %x) noinline {
  %g = load double, ptr @g
  %gx = fmul double %g, %x
  %r = fmul double %gx, %x
  ret double %r
}

declare double @__enzyme_autodiff(ptr, ...)
declare i32 @printf(ptr, ...)

define i32 @main() {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double 3.0)
  %dg = load double, ptr @dg
  call i32 (ptr, ...) @printf(ptr @.fmt, double %d, double %dg)
  ret i32 0
}

!0 = !{ptr @dg}
