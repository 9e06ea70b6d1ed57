; fpext/fptrunc: the tangent is converted like the primal.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare float @__enzyme_fwddiff(ptr, ...)

define float @f(float %x, double %y) {
entry:
  %e = fpext float %x to double
  %s = fmul double %e, %y
  %t = fptrunc double %s to float
  ret float %t
}

define float @caller(float %x, float %dx, double %y, double %dy) {
entry:
  %r = call float (ptr, ...) @__enzyme_fwddiff(ptr @f, float %x, float %dx, double %y, double %dy)
  ret float %r
}

; CHECK-LABEL: define internal { float, float } @fwddiffe.f.dd(float %x, float %d.x, double %y, double %d.y)
; CHECK:         %e = fpext float %x to double
; CHECK-NEXT:    [[DE:%.*]] = fpext float %d.x to double
; CHECK-NEXT:    %s = fmul double %e, %y
; CHECK-NEXT:    [[A:%.*]] = fmul double [[DE]], %y
; CHECK-NEXT:    [[B:%.*]] = fmul double %e, %d.y
; CHECK-NEXT:    [[DS:%.*]] = fadd double [[A]], [[B]]
; CHECK-NEXT:    %t = fptrunc double %s to float
; CHECK-NEXT:    [[DT:%.*]] = fptrunc double [[DS]] to float
; CHECK-NEXT:    [[R:%.*]] = insertvalue { float, float } poison, float %t, 0
; CHECK-NEXT:    insertvalue { float, float } [[R]], float [[DT]], 1
