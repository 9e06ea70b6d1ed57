; fsub: the minuend receives the adjoint, the subtrahend its negation.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare { double, double } @__enzyme_autodiff(ptr, ...)

define double @f(double %x, double %y) {
entry:
  %s = fsub double %x, %y
  ret double %s
}

define { double, double } @caller(double %x, double %y) {
entry:
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y)
  ret { double, double } %r
}

; CHECK-LABEL: define internal double @augfwd.f.aa{{[.a-z]*}}(ptr %tape, double %x, double %y)
; CHECK-NEXT:    %s = fsub double %x, %y
; CHECK-NEXT:    ret double %s

; CHECK-LABEL: define internal { double, double } @adjoint.f.aa{{[.a-z]*}}(ptr %tape, double %x, double %y, double %dret)
; CHECK:         [[O0:%[0-9]+]] = load double, ptr [[SS:%[0-9]+]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd reassoc double [[O0]], %dret
; CHECK-NEXT:    store double [[N0]], ptr [[SS]]
; CHECK-NEXT:    [[D:%[0-9]+]] = load double, ptr [[SS]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SS]]
; adj(x) += d
; CHECK-NEXT:    [[OX:%[0-9]+]] = load double, ptr [[SX:%[0-9]+]]
; CHECK-NEXT:    [[NX:%[0-9]+]] = fadd reassoc double [[OX]], [[D]]
; CHECK-NEXT:    store double [[NX]], ptr [[SX]]
; adj(y) += -d
; CHECK-NEXT:    [[ND:%[0-9]+]] = fneg arcp double [[D]]
; CHECK-NEXT:    [[OY:%[0-9]+]] = load double, ptr [[SY:%[0-9]+]]
; CHECK-NEXT:    [[NY:%[0-9]+]] = fadd reassoc double [[OY]], [[ND]]
; CHECK-NEXT:    store double [[NY]], ptr [[SY]]
; CHECK:       exit:
; CHECK-NEXT:    [[AX:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[AXZ:%[0-9]+]] = fadd double [[AX]], 0.000000e+00
; CHECK-NEXT:    [[R:%[0-9]+]] = insertvalue { double, double } poison, double [[AXZ]], 0
; CHECK-NEXT:    [[AY:%[0-9]+]] = load double, ptr [[SY]]
; CHECK-NEXT:    [[AYZ:%[0-9]+]] = fadd double [[AY]], 0.000000e+00
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[AYZ]], 1
