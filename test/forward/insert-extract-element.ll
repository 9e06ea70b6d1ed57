; extractelement/insertelement are repeated on the vector's tangent at the same index.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare <4 x double> @__enzyme_fwddiff(ptr, ...)

; v[j] = v[i] * v[i]
define <4 x double> @f(<4 x double> %v, i32 %i, i32 %j) {
entry:
  %e = extractelement <4 x double> %v, i32 %i
  %m = fmul double %e, %e
  %r = insertelement <4 x double> %v, double %m, i32 %j
  ret <4 x double> %r
}

define <4 x double> @caller(<4 x double> %v, <4 x double> %dv, i32 %i, i32 %j) {
entry:
  %r = call <4 x double> (ptr, ...) @__enzyme_fwddiff(ptr @f, <4 x double> %v, <4 x double> %dv, i32 %i, i32 %j)
  ret <4 x double> %r
}

; CHECK-LABEL: define internal { <4 x double>, <4 x double> } @fwddiffe.f.dcc(<4 x double> %v, <4 x double> %d.v, i32 %i, i32 %j)
; CHECK:         %e = extractelement <4 x double> %v, i32 %i
; CHECK-NEXT:    [[DE:%.*]] = extractelement <4 x double> %d.v, i32 %i
; CHECK-NEXT:    %m = fmul double %e, %e
; CHECK-NEXT:    [[DD:%.*]] = fadd double [[DE]], [[DE]]
; CHECK-NEXT:    [[DM:%.*]] = fmul double [[DD]], %e
; CHECK-NEXT:    %r = insertelement <4 x double> %v, double %m, i32 %j
; CHECK-NEXT:    [[DR:%.*]] = insertelement <4 x double> %d.v, double [[DM]], i32 %j
; CHECK-NEXT:    [[P:%.*]] = insertvalue { <4 x double>, <4 x double> } poison, <4 x double> %r, 0
; CHECK-NEXT:    insertvalue { <4 x double>, <4 x double> } [[P]], <4 x double> [[DR]], 1
