; The IR forms Enzyme's clang plugin (ClangEnzyme-NN.so) and Umbra's (libUmbraClang.so) lower
; source attributes into: annotations `enzyme_inactivefn` (enzyme_inactive on a function) and
; `enzyme_function_like=NAME`, and the registration global `__enzyme_inactivenoblockfn_autoreg_*`
; (enzyme_inactive_noblock on a function only declared in the translation unit). Before, the
; two annotations were ignored: the gradient came from the bodies (2 + 3 + 2 = 7, not 0.5).
; RUN: %umbra -O0 %s -o %t.o
; RUN: %clang %t.o -lm -o %t
; RUN: %t | FileCheck %s
; RUN: %opt-umbra -passes='umbra<reopt=O2>' %s -o %t.plugin.ll
; RUN: %clang %t.plugin.ll -lm -o %t.plugin
; RUN: %t.plugin | FileCheck %s
; CHECK: df/dx = 0.500000

@.inactive = private unnamed_addr constant [18 x i8] c"enzyme_inactivefn\00", section "llvm.metadata"
@.like = private unnamed_addr constant [27 x i8] c"enzyme_function_like=log1p\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @twice, ptr @.inactive, ptr null, i32 0, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @my_log1p, ptr @.like, ptr null, i32 0, ptr null }], section "llvm.metadata"
@__enzyme_inactivenoblockfn_autoreg_thrice_0 = hidden global ptr @thrice
@llvm.used = appending global [1 x ptr] [ptr @__enzyme_inactivenoblockfn_autoreg_thrice_0], section "llvm.metadata"
@.fmt = private unnamed_addr constant [16 x i8] c"df/dx = %.6f\0A\00\00\00"

define double @twice(double %x) noinline {
  %r = fmul double %x, 2.0
  ret double %r
}

define double @thrice(double %x) noinline {
  %r = fmul double %x, 3.0
  ret double %r
}

define double @my_log1p(double %x) noinline {
  %r = fmul double %x, 2.0
  ret double %r
}

define double @f(double %x) {
  %a = call double @twice(double %x)
  %b = call double @thrice(double %x)
  %c = call double @my_log1p(double %x)
  %s = fadd double %a, %b
  %t = fadd double %s, %c
  ret double %t
}

declare double @__enzyme_autodiff(ptr, ...)
declare i32 @printf(ptr, ...)

define i32 @main() {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double 1.0)
  call i32 (ptr, ...) @printf(ptr @.fmt, double %d)
  ret i32 0
}
