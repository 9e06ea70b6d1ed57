; fpext/fptrunc: the adjoint is converted back to the operand's type (fptrunc for an fpext,
; fpext for an fptrunc), and float slots hold float adjoints.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare { float, double } @__enzyme_autodiff(ptr, ...)

; f(x, y) = (double)(x + (float)y)
define double @f(float %x, double %y) {
entry:
  %t = fptrunc double %y to float
  %s = fadd float %x, %t
  %e = fpext float %s to double
  ret double %e
}

define { float, double } @caller(float %x, double %y) {
entry:
  %r = call { float, double } (ptr, ...) @__enzyme_autodiff(ptr @f, float %x, double %y)
  ret { float, double } %r
}

; CHECK-LABEL: define internal double @augfwd.f.aa{{[.a-z]*}}(ptr %tape, float %x, double %y)
; CHECK-NEXT:    %t = fptrunc double %y to float
; CHECK-NEXT:    %s = fadd float %x, %t
; CHECK-NEXT:    %e = fpext float %s to double
; CHECK-NEXT:    ret double %e

; CHECK-LABEL: define internal { float, double } @adjoint.f.aa{{[.a-z]*}}(ptr %tape, float %x, double %y, double %dret)
; CHECK:         [[O0:%[0-9]+]] = load double, ptr [[SE:%[0-9]+]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd reassoc double [[O0]], %dret
; CHECK-NEXT:    store double [[N0]], ptr [[SE]]
; e = fpext s: adj(s) += fptrunc(de)
; CHECK-NEXT:    [[DE:%[0-9]+]] = load double, ptr [[SE]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SE]]
; CHECK-NEXT:    [[C1:%[0-9]+]] = fptrunc double [[DE]] to float
; CHECK-NEXT:    [[O1:%[0-9]+]] = load float, ptr [[SS:%[0-9]+]]
; CHECK-NEXT:    [[N1:%[0-9]+]] = fadd reassoc float [[O1]], [[C1]]
; CHECK-NEXT:    store float [[N1]], ptr [[SS]]
; s = x + t
; CHECK-NEXT:    [[DS:%[0-9]+]] = load float, ptr [[SS]]
; CHECK-NEXT:    store float -0.000000e+00, ptr [[SS]]
; CHECK-NEXT:    [[O2:%[0-9]+]] = load float, ptr [[SX:%[0-9]+]]
; CHECK-NEXT:    [[N2:%[0-9]+]] = fadd reassoc float [[O2]], [[DS]]
; CHECK-NEXT:    store float [[N2]], ptr [[SX]]
; CHECK-NEXT:    [[O3:%[0-9]+]] = load float, ptr [[ST:%[0-9]+]]
; CHECK-NEXT:    [[N3:%[0-9]+]] = fadd reassoc float [[O3]], [[DS]]
; CHECK-NEXT:    store float [[N3]], ptr [[ST]]
; t = fptrunc y: adj(y) += fpext(dt)
; CHECK-NEXT:    [[DT:%[0-9]+]] = load float, ptr [[ST]]
; CHECK-NEXT:    store float -0.000000e+00, ptr [[ST]]
; CHECK-NEXT:    [[C2:%[0-9]+]] = fpext float [[DT]] to double
; CHECK-NEXT:    [[O4:%[0-9]+]] = load double, ptr [[SY:%[0-9]+]]
; CHECK-NEXT:    [[N4:%[0-9]+]] = fadd reassoc double [[O4]], [[C2]]
; CHECK-NEXT:    store double [[N4]], ptr [[SY]]
; CHECK:       exit:
; CHECK-NEXT:    [[AX:%[0-9]+]] = load float, ptr [[SX]]
; CHECK-NEXT:    [[AXZ:%[0-9]+]] = fadd float [[AX]], 0.000000e+00
; CHECK-NEXT:    [[R:%[0-9]+]] = insertvalue { float, double } poison, float [[AXZ]], 0
; CHECK-NEXT:    [[AY:%[0-9]+]] = load double, ptr [[SY]]
; CHECK-NEXT:    [[AYZ:%[0-9]+]] = fadd double [[AY]], 0.000000e+00
; CHECK-NEXT:    insertvalue { float, double } [[R]], double [[AYZ]], 1
