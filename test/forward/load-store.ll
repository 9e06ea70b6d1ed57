; Loads and stores through duplicated pointers: the load is repeated on the shadow pointer,
; the store writes the tangent to the shadow.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_fwddiff(ptr, ...)

define void @f(ptr %p, ptr %q) {
entry:
  %v = load double, ptr %p, align 8
  %m = fmul double %v, %v
  store double %m, ptr %q, align 8
  ret void
}

define void @caller(ptr %p, ptr %dp, ptr %q, ptr %dq) {
entry:
  call void (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %p, ptr %dp, ptr %q, ptr %dq)
  ret void
}

; CHECK-LABEL: define void @caller(ptr %p, ptr %dp, ptr %q, ptr %dq)
; CHECK:         call void @fwddiffe.f.dd(ptr %p, ptr %dp, ptr %q, ptr %dq)

; CHECK-LABEL: define internal void @fwddiffe.f.dd(ptr %p, ptr %d.p, ptr %q, ptr %d.q)
; CHECK:         %v = load double, ptr %p, align 8
; CHECK-NEXT:    [[DV:%.*]] = load double, ptr %d.p, align 8
; CHECK-NEXT:    %m = fmul double %v, %v
; CHECK-NEXT:    [[DD:%.*]] = fadd double [[DV]], [[DV]]
; CHECK-NEXT:    [[DM:%.*]] = fmul double [[DD]], %v
; CHECK-NEXT:    store double %m, ptr %q, align 8
; CHECK-NEXT:    store double [[DM]], ptr %d.q, align 8
; CHECK-NEXT:    ret void
