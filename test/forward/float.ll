; Single precision: tangents are float, the derived function returns { float, float }, and
; libm's sinf uses the f32 intrinsic for its derivative.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare float @__enzyme_fwddiff(ptr, ...)
declare float @sinf(float)

; sin(x) * y
define float @f(float %x, float %y) {
entry:
  %s = call float @sinf(float %x)
  %m = fmul float %s, %y
  ret float %m
}

define float @caller(float %x, float %dx, float %y, float %dy) {
entry:
  %r = call float (ptr, ...) @__enzyme_fwddiff(ptr @f, float %x, float %dx, float %y, float %dy)
  ret float %r
}

; CHECK-LABEL: define float @caller(
; CHECK:         [[C:%.*]] = call { float, float } @fwddiffe.f.dd(float %x, float %dx, float %y, float %dy)
; CHECK-NEXT:    [[T:%.*]] = extractvalue { float, float } [[C]], 1
; CHECK-NEXT:    ret float [[T]]

; CHECK-LABEL: define internal { float, float } @fwddiffe.f.dd(float %x, float %d.x, float %y, float %d.y)
; CHECK:         %s = call float @sinf(float %x)
; CHECK-NEXT:    [[COS:%.*]] = call float @llvm.cos.f32(float %x)
; CHECK-NEXT:    [[DS:%.*]] = fmul float [[COS]], %d.x
; CHECK-NEXT:    %m = fmul float %s, %y
; CHECK-NEXT:    [[A:%.*]] = fmul float [[DS]], %y
; CHECK-NEXT:    [[B:%.*]] = fmul float %s, %d.y
; CHECK-NEXT:    [[DM:%.*]] = fadd float [[A]], [[B]]
; CHECK-NEXT:    [[R:%.*]] = insertvalue { float, float } poison, float %m, 0
; CHECK-NEXT:    insertvalue { float, float } [[R]], float [[DM]], 1
