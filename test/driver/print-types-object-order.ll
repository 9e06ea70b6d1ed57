; --print-types names the object that makes a load cached the same way in every run: a load
; through a pointer that may come from either of two objects (a parameter or a pointer loaded
; from memory) reports the parameter, as "argument #k" when it has no name. Objects used to be
; visited in address order, so the reason changed from run to run, and an unnamed parameter
; printed as "%".
; RUN: %umbra %s --print-types --emit=llvm-ir -O0 -o %t.ll 2>&1 | FileCheck %s
; RUN: %umbra %s --print-types --emit=llvm-ir -O0 -o %t.ll 2>&1 | FileCheck %s
; RUN: %opt-umbra '-passes=umbra<print-types>' %s -o %t.opt.ll 2>&1 | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)

; Called from @f, which writes memory after the call: the caller may write what @g read.
define double @g(ptr %0, i1 %c) noinline {
  %p = load ptr, ptr %0, align 8
  %q = select i1 %c, ptr %0, ptr %p
  %v = load double, ptr %q, align 8
  %w = fmul double %v, %v
  ret double %w
}

define double @f(ptr %pp, ptr %x, i1 %c) {
  %r = call double @g(ptr %pp, i1 %c)
  store double 1.0, ptr %x, align 8
  ret double %r
}

; CHECK-LABEL: overwrites of @g (caller may write):
; CHECK-NEXT:    %p = load ptr, ptr %0, align 8: cached: the caller may write argument #0 before the adjoint
; CHECK-NEXT:    %v = load double, ptr %q, align 8: cached: the caller may write argument #0 before the adjoint

define void @caller(ptr %pp, ptr %dpp, ptr %x, ptr %dx, i1 %c) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %pp, ptr %dpp, ptr %x, ptr %dx, i1 %c)
  ret void
}
