; A struct of a pointer and a double returned by value ({ ptr, double }, as the x86-64 ABI
; returns a 16-byte struct of a pointer and a double, and clang leaves it at -O0). Reverse
; mode gives a value a shadow or an adjoint, not both: before differentiation, the call
; becomes a call of a copy of @g that stores the struct into a slot of the caller's frame
; (@g.umbra.out), and each extractvalue a load of that slot. @g stays as it was for other
; callers. Before, the call was refused ("holds both pointers and floating-point data").
; @g writes no memory (memory(none)), its copy does: the copy and its call lose the attribute
; (kept, it let the optimiser drop the copy's stores).
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)

; g(p, a) = {p + 1, a * a}
define { ptr, double } @g(ptr %p, double %a) #0 {
entry:
  %q = getelementptr inbounds double, ptr %p, i64 1
  %s = fmul double %a, %a
  %r0 = insertvalue { ptr, double } poison, ptr %q, 0
  %r1 = insertvalue { ptr, double } %r0, double %s, 1
  ret { ptr, double } %r1
}

; f(p, a) = p[1] * a * a
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

attributes #0 = { memory(none) }

; CHECK-LABEL: define { ptr, double } @g(ptr %p, double %a) #0
; CHECK:         ret { ptr, double }

; CHECK-LABEL: define double @f(ptr %p, double %a)
; CHECK:         %umbra.returned = alloca { ptr, double }, align 8
; CHECK:         call void @g.umbra.out(ptr %umbra.returned, ptr %p, double %a){{$}}
; CHECK-NOT:     extractvalue
; CHECK:         ret double

; CHECK-LABEL: define internal void @g.umbra.out(ptr %out, ptr %p, double %a) {
; CHECK:         store ptr %q, ptr %out, align 8
; CHECK:         [[F1:%[0-9a-z.]+]] = getelementptr inbounds { ptr, double }, ptr %out, i32 0, i32 1
; CHECK-NEXT:    store double %s, ptr [[F1]], align 8
; CHECK-NEXT:    ret void

; CHECK-LABEL: define internal {{.*}}@adjoint.f.
; CHECK:         call {{.*}}@adjoint.g.umbra.out
