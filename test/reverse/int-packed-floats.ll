; Two floats moved as one i64 (as -O2 moves a {float, float}) and unpacked by a bitcast: the
; type analysis finds two floats filling the integer, so its adjoint is a <2 x float> that the
; load adds into the source's shadow. Before, the adjoint stopped at the bitcast and d.p stayed
; zero, silently.
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)

define void @f(ptr %p, ptr %out) {
  %i = load i64, ptr %p, align 8
  %v = bitcast i64 %i to <2 x float>
  %a = extractelement <2 x float> %v, i32 0
  %b = extractelement <2 x float> %v, i32 1
  %s = fmul float %a, %b
  store float %s, ptr %out
  ret void
}

define void @caller(ptr %p, ptr %dp, ptr %o, ptr %do) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %p, ptr %dp, ptr %o, ptr %do)
  ret void
}

; CHECK-LABEL: define internal void @adjoint.f.dd
; CHECK:       [[CUR:%.*]] = load <2 x float>, ptr %d.p, align 8
; CHECK-NEXT:  [[SUM:%.*]] = fadd <2 x float> [[CUR]], {{%.*}}
; CHECK-NEXT:  store <2 x float> [[SUM]], ptr %d.p, align 8
; CHECK:       ret void
