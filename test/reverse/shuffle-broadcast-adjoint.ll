; A broadcast's adjoint (every lane of a shufflevector reads one source lane, as the vectorisers
; splat a scalar) is one reduction of the result's adjoint, in any order (`reassoc`), added into
; that source lane: not a chain of one extract, insert and dependent addition per lane.
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s
; RUN: %opt-umbra '-passes=umbra<reopt=O0>' %s | FileCheck %s

declare { double, double } @__enzyme_autodiff(ptr, ...)
declare double @llvm.vector.reduce.fadd.v4f64(double, <4 x double>)

; %x is broadcast from lane 0 of the first operand, %y from lane 1 of the second.
define internal double @f(double %x, double %y) {
  %vx = insertelement <2 x double> poison, double %x, i32 0
  %vy = insertelement <2 x double> poison, double %y, i32 1
  %wx = shufflevector <2 x double> %vx, <2 x double> poison, <4 x i32> zeroinitializer
  %wy = shufflevector <2 x double> poison, <2 x double> %vy, <4 x i32> <i32 3, i32 3, i32 3, i32 3>
  %m = fmul <4 x double> %wx, <double 1.0, double 2.0, double 3.0, double 4.0>
  %n = fmul <4 x double> %m, %wy
  %r = call double @llvm.vector.reduce.fadd.v4f64(double -0.0, <4 x double> %n)
  ret double %r
}

define { double, double } @grad(double %x, double %y) {
  %d = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y)
  ret { double, double } %d
}

; CHECK-LABEL: define internal {{.*}} @adjoint.f
; CHECK:     [[SY:%[0-9]+]] = call reassoc double @llvm.vector.reduce.fadd.v4f64(double -0.000000e+00, <4 x double>
; CHECK:     insertelement <2 x double> splat (double -0.000000e+00), double [[SY]], i32 1
; CHECK:     [[SX:%[0-9]+]] = call reassoc double @llvm.vector.reduce.fadd.v4f64(double -0.000000e+00, <4 x double>
; CHECK:     insertelement <2 x double> splat (double -0.000000e+00), double [[SX]], i32 0
