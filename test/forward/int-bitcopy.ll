; Floats moved through integers (as -O2 copies structs with i64 loads and stores)
; keep their tangents: the same integer load/store is applied to the shadows,
; so the bits of the tangent travel with the bits of the primal.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

@enzyme_dup = external global i32

declare double @__enzyme_fwddiff(ptr, ...)

define double @f(ptr %p, ptr %q) {
  %bits = load i64, ptr %p, align 8
  store i64 %bits, ptr %q, align 8
  %x = load double, ptr %q, align 8
  %y = fmul double %x, %x
  ret double %y
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.dd(ptr %p, ptr %d.p, ptr %q, ptr %d.q)
; CHECK:       %bits = load i64, ptr %p
; CHECK-NEXT:  [[DBITS:%.*]] = load i64, ptr %d.p
; CHECK-NEXT:  store i64 %bits, ptr %q
; CHECK-NEXT:  store i64 [[DBITS]], ptr %d.q
; CHECK-NEXT:  %x = load double, ptr %q
; CHECK-NEXT:  [[DX:%.*]] = load double, ptr %d.q
; CHECK-NEXT:  %y = fmul double %x, %x
; CHECK-NEXT:  [[DD:%.*]] = fadd double [[DX]], [[DX]]
; CHECK-NEXT:  fmul double [[DD]], %x

define double @caller(ptr %p, ptr %dp, ptr %q, ptr %dq) {
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %p, ptr %dp, ptr %q, ptr %dq)
  ret double %d
}
