; A struct holding a pointer and a double, stored as one value with a differentiable double
; in it: the adjoint sweep cannot keep the double's adjoint beside the pointer's shadow in one
; value yet, so reverse mode refuses rather than drop the derivative silently.
; RUN: rm -f %t.o
; RUN: not %umbra %s -o %t.o 2>&1 | FileCheck %s
; RUN: test ! -e %t.o
; RUN: not %opt-umbra -passes=umbra %s -o /dev/null 2>&1 | FileCheck %s
; CHECK: error: in function 'f': at '%s0 = insertvalue { ptr, double } poison, ptr %p, 0': reverse mode cannot differentiate a value that holds both pointers and floating-point data

declare void @__enzyme_autodiff(ptr, ...)

define void @f(double %x, ptr %p, ptr %out) {
entry:
  %sq = fmul double %x, %x
  %s0 = insertvalue { ptr, double } poison, ptr %p, 0
  %s1 = insertvalue { ptr, double } %s0, double %sq, 1
  store { ptr, double } %s1, ptr %out, align 8
  ret void
}

define void @caller(double %x, ptr %p, ptr %dp, ptr %out, ptr %dout) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, ptr %p, ptr %dp, ptr %out, ptr %dout)
  ret void
}
