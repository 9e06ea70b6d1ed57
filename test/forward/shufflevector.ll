; shufflevector: the tangents are shuffled with the same mask; an operand without a tangent
; contributes zero lanes.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare <4 x double> @__enzyme_fwddiff(ptr, ...)
@enzyme_const = external global i32

define <4 x double> @f(<4 x double> %x, <4 x double> %y) {
entry:
  %s = shufflevector <4 x double> %x, <4 x double> %y, <4 x i32> <i32 0, i32 5, i32 2, i32 7>
  ret <4 x double> %s
}

define <4 x double> @g(<4 x double> %x, <4 x double> %y) {
entry:
  %s = shufflevector <4 x double> %x, <4 x double> %y, <4 x i32> <i32 3, i32 6, i32 1, i32 4>
  ret <4 x double> %s
}

define <4 x double> @caller(<4 x double> %x, <4 x double> %dx, <4 x double> %y, <4 x double> %dy) {
entry:
  %r1 = call <4 x double> (ptr, ...) @__enzyme_fwddiff(ptr @f, <4 x double> %x, <4 x double> %dx, <4 x double> %y, <4 x double> %dy)
  %k = load i32, ptr @enzyme_const
  %r2 = call <4 x double> (ptr, ...) @__enzyme_fwddiff(ptr @g, <4 x double> %x, <4 x double> %dx, i32 %k, <4 x double> %y)
  %r = fadd <4 x double> %r1, %r2
  ret <4 x double> %r
}

; CHECK-LABEL: define internal { <4 x double>, <4 x double> } @fwddiffe.f.dd(<4 x double> %x, <4 x double> %d.x, <4 x double> %y, <4 x double> %d.y)
; CHECK:         %s = shufflevector <4 x double> %x, <4 x double> %y, <4 x i32> <i32 0, i32 5, i32 2, i32 7>
; CHECK-NEXT:    [[DS:%.*]] = shufflevector <4 x double> %d.x, <4 x double> %d.y, <4 x i32> <i32 0, i32 5, i32 2, i32 7>
; CHECK-NEXT:    [[R:%.*]] = insertvalue { <4 x double>, <4 x double> } poison, <4 x double> %s, 0
; CHECK-NEXT:    insertvalue { <4 x double>, <4 x double> } [[R]], <4 x double> [[DS]], 1

; CHECK-LABEL: define internal { <4 x double>, <4 x double> } @fwddiffe.g.dc(<4 x double> %x, <4 x double> %d.x, <4 x double> %y)
; CHECK:         %s = shufflevector <4 x double> %x, <4 x double> %y, <4 x i32> <i32 3, i32 6, i32 1, i32 4>
; CHECK-NEXT:    [[DS:%.*]] = shufflevector <4 x double> %d.x, <4 x double> zeroinitializer, <4 x i32> <i32 3, i32 6, i32 1, i32 4>
; CHECK-NEXT:    [[R:%.*]] = insertvalue { <4 x double>, <4 x double> } poison, <4 x double> %s, 0
; CHECK-NEXT:    insertvalue { <4 x double>, <4 x double> } [[R]], <4 x double> [[DS]], 1
