; Contraction made explicit before differentiation (-ffast-math): `q*... + c` whose product has
; no other use becomes llvm.fmuladd in the program and so in every copy of it; what stays an
; fmul and an fadd (a product with two uses) loses `contract` and `reassoc` in the program and
; in its copies, so no copy fuses or regroups where the program does not. The adjoint's own
; arithmetic keeps the program's flags.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)

define double @f(double %x, double %y, ptr %out) {
  %q = fmul fast double %x, %y
  %s = fadd fast double %q, 3.000000e-01
  %t = fsub fast double %q, %y
  store double %t, ptr %out
  %p = fmul fast double %x, %x
  %u = fsub fast double %y, %p
  %r = fmul fast double %s, %u
  ret double %r
}

define void @caller(double %x, double %y, ptr %o, ptr %do) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y, ptr %o, ptr %do)
  ret void
}

; CHECK-LABEL: define double @f(
; CHECK-NEXT:    %q = fmul nnan ninf nsz arcp afn double %x, %y
; CHECK-NEXT:    %s = fadd nnan ninf nsz arcp afn double %q, 3.000000e-01
; CHECK-NEXT:    %t = fsub nnan ninf nsz arcp afn double %q, %y
; CHECK-NEXT:    store double %t, ptr %out
; CHECK-NEXT:    [[NX:%[0-9]+]] = fneg nnan ninf nsz arcp afn double %x
; CHECK-NEXT:    %u = call nnan ninf nsz arcp afn double @llvm.fmuladd.f64(double [[NX]], double %x, double %y)

; CHECK-LABEL: define internal {{.*}}@augfwd.f
; CHECK:         %q = fmul nnan ninf nsz arcp afn double %x, %y
; CHECK:         %t = fsub nnan ninf nsz arcp afn double %q, %y
; CHECK:         %u = call nnan ninf nsz arcp afn double @llvm.fmuladd.f64(double

; CHECK-LABEL: define internal {{.*}}@adjoint.f
; CHECK:         fmul fast double
