; Lanes the primal leaves undefined because nothing reads them: a constant with poison lanes
; (the SLP vectoriser's `<2.0, 2.0, poison, poison>` at -O3) and a shuffle mask with undefined
; lanes (a widening shuffle). Derived code must not let those lanes meet an adjoint: before,
; the dropped lanes' zero adjoints were multiplied by the poison constant, `0 * poison` folded
; to garbage under re-optimisation, and the garbage was added into the adjoint of the lanes
; the second shuffle reads (umbra -O1..-O3 printed `2 2 5.4e-315 1.2e+166` for `2 2 1 1`).
; Each function is differentiated in reverse mode (gradient) and forward mode (tangent along
; all ones), through the driver at every level and through the plugin.
;
; RUN: %umbra %s -O0 -o %t.O0.o && %clang %t.O0.o -o %t.O0.exe && %t.O0.exe | FileCheck %s
; RUN: %umbra %s -O1 -o %t.O1.o && %clang %t.O1.o -o %t.O1.exe && %t.O1.exe | FileCheck %s
; RUN: %umbra %s -O2 -o %t.O2.o && %clang %t.O2.o -o %t.O2.exe && %t.O2.exe | FileCheck %s
; RUN: %umbra %s -O3 -o %t.O3.o && %clang %t.O3.o -o %t.O3.exe && %t.O3.exe | FileCheck %s
; RUN: opt -load-pass-plugin=%plugin -passes='umbra<reopt=O2>' %s -o %t.plugin.bc
; RUN: %clang -O2 %t.plugin.bc -o %t.plugin.exe && %t.plugin.exe | FileCheck %s
; RUN: opt -load-pass-plugin=%plugin -passes='umbra<reopt=O3>' %s -o %t.plugin3.bc
; RUN: %clang -O3 %t.plugin3.bc -o %t.plugin3.exe && %t.plugin3.exe | FileCheck %s
;
; The derived code holds no poison constant and no undefined shuffle lane.
; RUN: %umbra %s -O0 --emit=llvm-ir -o - | FileCheck %s --check-prefix=IR
; IR-LABEL: define internal {{.*}}@adjoint.fmul_poison
; IR-NOT:     {{(double|i32) (poison|undef)}}
; IR-LABEL: define internal {{.*}}@adjoint.fdiv_poison
; IR-NOT:     {{(double|i32) (poison|undef)}}
; IR-LABEL: define internal {{.*}}@adjoint.widen
; IR-NOT:     {{(double|i32) (poison|undef)}}
; IR:         ret void

; CHECK: fmul_poison grad 2 2 1 1
; CHECK: fmul_poison tangent 6
; CHECK: fdiv_poison grad 0.5 0.25 1 1
; CHECK: fdiv_poison tangent 2.75
; CHECK: widen grad 2 4 1 1
; CHECK: widen tangent 8

declare void @__enzyme_autodiff(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)
declare double @llvm.vector.reduce.fadd.v4f64(double, <4 x double>)
declare i32 @printf(ptr, ...)

@grad_fmt = private constant [21 x i8] c"%s grad %g %g %g %g\0A\00"
@tangent_fmt = private constant [15 x i8] c"%s tangent %g\0A\00"
@n_fmul = private constant [12 x i8] c"fmul_poison\00"
@n_fdiv = private constant [12 x i8] c"fdiv_poison\00"
@n_widen = private constant [6 x i8] c"widen\00"

; f(x) = 2 x0 + 2 x1 + x2 + x3
define double @fmul_poison(ptr %x) {
  %v = load <4 x double>, ptr %x, align 32
  %m = fmul <4 x double> %v, <double 2.0, double 2.0, double poison, double poison>
  %s = shufflevector <4 x double> %m, <4 x double> %v, <4 x i32> <i32 0, i32 1, i32 6, i32 7>
  %r = call double @llvm.vector.reduce.fadd.v4f64(double 0.0, <4 x double> %s)
  ret double %r
}

; f(x) = x0 / 2 + x1 / 4 + x2 + x3
define double @fdiv_poison(ptr %x) {
  %v = load <4 x double>, ptr %x, align 32
  %m = fdiv <4 x double> %v, <double 2.0, double 4.0, double poison, double poison>
  %s = shufflevector <4 x double> %m, <4 x double> %v, <4 x i32> <i32 0, i32 1, i32 6, i32 7>
  %r = call double @llvm.vector.reduce.fadd.v4f64(double 0.0, <4 x double> %s)
  ret double %r
}

; f(x) = x0^2 + x1^2 + x2 + x3, the squares from a widening shuffle whose lanes 2 and 3 are
; undefined.
define double @widen(ptr %x) {
  %v = load <4 x double>, ptr %x, align 32
  %a = shufflevector <4 x double> %v, <4 x double> poison, <4 x i32> <i32 0, i32 1, i32 poison, i32 poison>
  %p = fmul <4 x double> %a, %v
  %s = shufflevector <4 x double> %p, <4 x double> %v, <4 x i32> <i32 0, i32 1, i32 6, i32 7>
  %r = call double @llvm.vector.reduce.fadd.v4f64(double 0.0, <4 x double> %s)
  ret double %r
}

define void @check_fmul_poison() {
  %x = alloca <4 x double>, align 32
  %d = alloca <4 x double>, align 32
  store <4 x double> <double 1.0, double 2.0, double 3.0, double 4.0>, ptr %x, align 32
  store <4 x double> zeroinitializer, ptr %d, align 32
  call void (ptr, ...) @__enzyme_autodiff(ptr @fmul_poison, ptr %x, ptr %d)
  %g = load <4 x double>, ptr %d, align 32
  %g0 = extractelement <4 x double> %g, i32 0
  %g1 = extractelement <4 x double> %g, i32 1
  %g2 = extractelement <4 x double> %g, i32 2
  %g3 = extractelement <4 x double> %g, i32 3
  call i32 (ptr, ...) @printf(ptr @grad_fmt, ptr @n_fmul, double %g0, double %g1, double %g2, double %g3)
  store <4 x double> <double 1.0, double 1.0, double 1.0, double 1.0>, ptr %d, align 32
  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr @fmul_poison, ptr %x, ptr %d)
  call i32 (ptr, ...) @printf(ptr @tangent_fmt, ptr @n_fmul, double %t)
  ret void
}

define void @check_fdiv_poison() {
  %x = alloca <4 x double>, align 32
  %d = alloca <4 x double>, align 32
  store <4 x double> <double 1.0, double 2.0, double 3.0, double 4.0>, ptr %x, align 32
  store <4 x double> zeroinitializer, ptr %d, align 32
  call void (ptr, ...) @__enzyme_autodiff(ptr @fdiv_poison, ptr %x, ptr %d)
  %g = load <4 x double>, ptr %d, align 32
  %g0 = extractelement <4 x double> %g, i32 0
  %g1 = extractelement <4 x double> %g, i32 1
  %g2 = extractelement <4 x double> %g, i32 2
  %g3 = extractelement <4 x double> %g, i32 3
  call i32 (ptr, ...) @printf(ptr @grad_fmt, ptr @n_fdiv, double %g0, double %g1, double %g2, double %g3)
  store <4 x double> <double 1.0, double 1.0, double 1.0, double 1.0>, ptr %d, align 32
  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr @fdiv_poison, ptr %x, ptr %d)
  call i32 (ptr, ...) @printf(ptr @tangent_fmt, ptr @n_fdiv, double %t)
  ret void
}

define void @check_widen() {
  %x = alloca <4 x double>, align 32
  %d = alloca <4 x double>, align 32
  store <4 x double> <double 1.0, double 2.0, double 3.0, double 4.0>, ptr %x, align 32
  store <4 x double> zeroinitializer, ptr %d, align 32
  call void (ptr, ...) @__enzyme_autodiff(ptr @widen, ptr %x, ptr %d)
  %g = load <4 x double>, ptr %d, align 32
  %g0 = extractelement <4 x double> %g, i32 0
  %g1 = extractelement <4 x double> %g, i32 1
  %g2 = extractelement <4 x double> %g, i32 2
  %g3 = extractelement <4 x double> %g, i32 3
  call i32 (ptr, ...) @printf(ptr @grad_fmt, ptr @n_widen, double %g0, double %g1, double %g2, double %g3)
  store <4 x double> <double 1.0, double 1.0, double 1.0, double 1.0>, ptr %d, align 32
  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr @widen, ptr %x, ptr %d)
  call i32 (ptr, ...) @printf(ptr @tangent_fmt, ptr @n_widen, double %t)
  ret void
}

define i32 @main() {
  call void @check_fmul_poison()
  call void @check_fdiv_poison()
  call void @check_widen()
  ret i32 0
}
