; An untyped i64 copy of pointer bytes (test/reverse/pointer-bits-copy.ll) whose source may
; be written between the load and the store (here through another argument, which may point
; at the same bytes): the shadow's bytes could not be copied as the load read them, so
; reverse mode still refuses the copy, naming it.
; RUN: rm -f %t.o
; RUN: not %umbra %s -o %t.o 2>&1 | FileCheck %s
; RUN: test ! -e %t.o
; RUN: not %opt-umbra -passes=umbra %s -o /dev/null 2>&1 | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)

define double @f(ptr %x, ptr %s, ptr %d, ptr %other) {
entry:
  %sp = getelementptr inbounds i8, ptr %s, i64 8
  store ptr %x, ptr %sp, align 8
  %bits = load i64, ptr %sp, align 8
  store i64 0, ptr %other, align 8
  ; CHECK: umbra: error: in function 'f': at 'store i64 %bits, ptr %d, align 8': copies differentiable memory through an integer{{.*}}the type analysis found pointer data there
  store i64 %bits, ptr %d, align 8
  %p = load ptr, ptr %d, align 8
  %v = load double, ptr %p, align 8
  %sq = fmul double %v, %v
  ret double %sq
}

define void @caller(ptr %x, ptr %dx, ptr %s, ptr %ds, ptr %d, ptr %dd, ptr %o, ptr %do) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, ptr %s, ptr %ds, ptr %d, ptr %dd, ptr %o, ptr %do)
  ret void
}
