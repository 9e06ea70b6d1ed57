; Vector arithmetic: the scalar rules apply lane-wise on vector tangents.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare <4 x double> @__enzyme_fwddiff(ptr, ...)

define <4 x double> @f(<4 x double> %x, <4 x double> %y) {
entry:
  %m = fmul <4 x double> %x, %y
  %d = fdiv <4 x double> %m, %y
  %s = fadd <4 x double> %d, %x
  ret <4 x double> %s
}

define <4 x double> @caller(<4 x double> %x, <4 x double> %dx, <4 x double> %y, <4 x double> %dy) {
entry:
  %r = call <4 x double> (ptr, ...) @__enzyme_fwddiff(ptr @f, <4 x double> %x, <4 x double> %dx, <4 x double> %y, <4 x double> %dy)
  ret <4 x double> %r
}

; CHECK-LABEL: define internal { <4 x double>, <4 x double> } @fwddiffe.f.dd(<4 x double> %x, <4 x double> %d.x, <4 x double> %y, <4 x double> %d.y)
; CHECK:         %m = fmul <4 x double> %x, %y
; CHECK-NEXT:    [[A:%.*]] = fmul <4 x double> %d.x, %y
; CHECK-NEXT:    [[B:%.*]] = fmul <4 x double> %x, %d.y
; CHECK-NEXT:    [[DM:%.*]] = fadd <4 x double> [[A]], [[B]]
; CHECK-NEXT:    %d = fdiv <4 x double> %m, %y
; CHECK-NEXT:    [[QDY:%.*]] = fmul <4 x double> %d, %d.y
; CHECK-NEXT:    [[NUM:%.*]] = fsub <4 x double> [[DM]], [[QDY]]
; CHECK-NEXT:    [[DDQ:%.*]] = fdiv arcp <4 x double> [[NUM]], %y
; CHECK-NEXT:    [[DDZ:%.*]] = fcmp oeq <4 x double> [[NUM]], zeroinitializer
; CHECK-NEXT:    [[DD:%.*]] = select <4 x i1> [[DDZ]], <4 x double> zeroinitializer, <4 x double> [[DDQ]]
; CHECK-NEXT:    %s = fadd <4 x double> %d, %x
; CHECK-NEXT:    [[DS:%.*]] = fadd <4 x double> [[DD]], %d.x
; CHECK-NEXT:    [[R:%.*]] = insertvalue { <4 x double>, <4 x double> } poison, <4 x double> %s, 0
; CHECK-NEXT:    insertvalue { <4 x double>, <4 x double> } [[R]], <4 x double> [[DS]], 1
