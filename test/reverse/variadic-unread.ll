; A variadic function that never reads its variable arguments (no va_start; libstdc++'s
; std::visit at -O0 names its variant with `[](_V0& v, ...) { return v; }`): its calls in
; the differentiated code go to a fixed-arity copy (@first.umbra.fixed), the extra arguments
; dropped, and it is differentiated like any function. Before, it was refused ("cannot
; differentiate a variadic function"); one that calls va_start still is
; (test/errors/variadic-callee.c). One declared inactive (@note) is called as it is: rules go
; by name, which the copy would not have.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)
@__enzyme_inactivefn_1 = global [1 x ptr] [ptr @note]

define void @note(ptr %p, ...) {
entry:
  ret void
}

define ptr @first(ptr %p, ...) {
entry:
  ret ptr %p
}

; f(p) = first(p, p)[0]^2
define double @f(ptr %p) {
entry:
  %q = call ptr (ptr, ...) @first(ptr %p, ptr %p)
  call void (ptr, ...) @note(ptr %p, i32 1)
  %v = load double, ptr %q, align 8
  %m = fmul double %v, %v
  ret double %m
}

define void @caller(ptr %p, ptr %dp) {
entry:
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %p, ptr %dp)
  ret void
}

; CHECK-LABEL: define ptr @first(ptr %p, ...)

; CHECK-LABEL: define double @f(ptr %p)
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %q = call ptr @first.umbra.fixed(ptr %p)
; CHECK-NEXT:    call void (ptr, ...) @note(ptr %p, i32 1)

; CHECK-LABEL: define internal ptr @first.umbra.fixed(ptr %p)
; CHECK-NEXT:  entry:
; CHECK-NEXT:    ret ptr %p

; CHECK-NOT:   @note.umbra.fixed

; CHECK-LABEL: define internal {{.*}}@augfwd.f.
; CHECK:         call {{.*}}@augfwd.first.umbra.fixed
; CHECK:         call void (ptr, ...) @note(ptr %p, i32 1)
