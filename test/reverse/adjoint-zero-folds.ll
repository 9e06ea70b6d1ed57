; Adjoints start from -0.0, the identity of fadd (x + 0.0 is not x when x is -0.0, so LLVM may
; not fold it), in their slots, in the lanes of a shuffle's adjoint and on the side a select did
; not choose: after optimisation no addition of zero is left in the gradient but the one per
; returned adjoint that hands the caller 0.0 rather than -0.0 for a zero derivative.
; RUN: %umbra %s --emit=llvm-ir -O2 -o - | FileCheck %s
; RUN: %opt-umbra '-passes=umbra<reopt=O2>' %s | FileCheck %s

declare { double, double } @__enzyme_autodiff(ptr, ...)
declare double @llvm.vector.reduce.fadd.v2f64(double, <2 x double>)

define internal double @f(double %x, double %y) {
  %m = fmul double %x, %y
  %c = fcmp olt double %x, %y
  %s = select i1 %c, double %m, double %y
  %v = insertelement <2 x double> poison, double %s, i32 0
  %w = shufflevector <2 x double> %v, <2 x double> poison, <2 x i32> zeroinitializer
  %r = call double @llvm.vector.reduce.fadd.v2f64(double -0.0, <2 x double> %w)
  ret double %r
}

define { double, double } @grad(double %x, double %y) {
  %d = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y)
  ret { double, double } %d
}

; CHECK-LABEL: define {{.*}} @grad(double %x, double %y)
; CHECK-NOT:     {{ 0\.0+e\+00|zeroinitializer}}
; CHECK:         [[A:%[0-9]+]] = fadd double {{%[0-9]+}}, 0.000000e+00
; CHECK-NEXT:    [[R:%[0-9]+]] = insertvalue { double, double } poison, double [[A]], 0
; CHECK-NOT:     {{ 0\.0+e\+00|zeroinitializer}}
; CHECK:         [[B:%[0-9]+]] = fadd double {{%[0-9]+}}, 0.000000e+00
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[B]], 1
; CHECK-NEXT:    ret { double, double }
