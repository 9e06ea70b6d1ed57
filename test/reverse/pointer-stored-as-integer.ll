; A pointer kept in memory as an integer (std::function's storage holds a lambda's captured
; reference as `store i64 (ptrtoint %x)` at -O2): the shadow slot receives the shadow's address
; the same way, so the pointer loaded back finds its shadow (it held nothing: the adjoint read
; through a null shadow, a crash at -O2 in std::function). The adjoint leaves the slot's
; shadow alone, as for pointers.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)

define double @f(ptr %x, ptr %box) {
entry:
  %a = ptrtoint ptr %x to i64
  store i64 %a, ptr %box, align 8
  %p = load ptr, ptr %box, align 8
  %v = load double, ptr %p, align 8
  %m = fmul double %v, %v
  ret double %m
}

define void @caller(ptr %x, ptr %dx, ptr %box, ptr %dbox) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, ptr %box, ptr %dbox)
  ret void
}

; CHECK-LABEL: define internal double @augfwd.f.dd{{[.a-z]*}}(ptr %tape, ptr %x, ptr %d.x, ptr %box, ptr %d.box)
; CHECK-NEXT:    %a = ptrtoint ptr %x to i64
; CHECK-NEXT:    store i64 %a, ptr %box
; CHECK-NEXT:    [[SA:%[0-9]+]] = ptrtoint ptr %d.x to i64
; CHECK-NEXT:    store i64 [[SA]], ptr %d.box
; CHECK-NEXT:    %p = load ptr, ptr %box
; CHECK-NEXT:    [[SP:%[0-9]+]] = load ptr, ptr %d.box
; CHECK-LABEL: define internal void @adjoint.f.dd{{[.a-z]*}}(ptr %tape, ptr %x, ptr %d.x, ptr %box, ptr %d.box, double %dret)
; CHECK-NOT:     store i64 0, ptr %d.box
; CHECK:         ret void
