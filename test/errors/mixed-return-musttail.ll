; A struct of a pointer and a double returned by a function that ends in a musttail call:
; returning it through memory would put stores after the musttail call, which LLVM forbids,
; so the call is left as it is and refused where it is made, naming its caller (before, the
; error named the copy Umbra had made, 'g.umbra.out', a function the user never wrote).
; RUN: rm -f %t.o
; RUN: not %umbra %s -o %t.o 2>&1 | FileCheck %s
; RUN: test ! -e %t.o
; RUN: not %opt-umbra -passes=umbra %s -o /dev/null 2>&1 | FileCheck %s
; CHECK: error: in function 'f': at '%r = call { ptr, double } @g(ptr %p, double %a)': reverse mode cannot differentiate a value that holds both pointers and floating-point data
; CHECK-NOT: umbra.out

declare double @__enzyme_autodiff(ptr, ...)

define { ptr, double } @h(ptr %p, double %a) {
entry:
  %s = fmul double %a, %a
  %r0 = insertvalue { ptr, double } poison, ptr %p, 0
  %r1 = insertvalue { ptr, double } %r0, double %s, 1
  ret { ptr, double } %r1
}

define { ptr, double } @g(ptr %p, double %a) {
entry:
  %r = musttail call { ptr, double } @h(ptr %p, double %a)
  ret { ptr, double } %r
}

define double @f(ptr %p, double %a) {
entry:
  %r = call { ptr, double } @g(ptr %p, double %a)
  %q = extractvalue { ptr, double } %r, 0
  %s = extractvalue { ptr, double } %r, 1
  %v = load double, ptr %q, align 8
  %m = fmul double %v, %s
  ret double %m
}

define double @caller(ptr %p, ptr %dp, double %a) {
entry:
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %p, ptr %dp, double %a)
  ret double %r
}
