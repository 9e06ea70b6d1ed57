; libm sin and cos: adj(x) += d * cos(x), adj(y) += d * -sin(y). Their partials read only the
; argument, so nothing goes on the tape.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare { double, double } @__enzyme_autodiff(ptr, ...)
declare double @sin(double)
declare double @cos(double)

; f(x, y) = sin(x) + cos(y)
define double @f(double %x, double %y) {
entry:
  %s = call double @sin(double %x)
  %c = call double @cos(double %y)
  %r = fadd double %s, %c
  ret double %r
}

define { double, double } @caller(double %x, double %y) {
entry:
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y)
  ret { double, double } %r
}

; CHECK-LABEL: define internal double @augfwd.f.aa{{[.a-z]*}}(ptr %tape, double %x, double %y)
; CHECK-NEXT:    %s = call double @sin(double %x)
; CHECK-NEXT:    %c = call double @cos(double %y)
; CHECK-NEXT:    %r = fadd double %s, %c
; CHECK-NEXT:    ret double %r

; CHECK-LABEL: define internal { double, double } @adjoint.f.aa{{[.a-z]*}}(ptr %tape, double %x, double %y, double %dret)
; CHECK:         [[O0:%[0-9]+]] = load double, ptr [[SR:%[0-9]+]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd reassoc double [[O0]], %dret
; CHECK-NEXT:    store double [[N0]], ptr [[SR]]
; r = s + c
; CHECK-NEXT:    [[DR:%[0-9]+]] = load double, ptr [[SR]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SR]]
; CHECK-NEXT:    [[O1:%[0-9]+]] = load double, ptr [[SS:%[0-9]+]]
; CHECK-NEXT:    [[N1:%[0-9]+]] = fadd reassoc double [[O1]], [[DR]]
; CHECK-NEXT:    store double [[N1]], ptr [[SS]]
; CHECK-NEXT:    [[O2:%[0-9]+]] = load double, ptr [[SC:%[0-9]+]]
; CHECK-NEXT:    [[N2:%[0-9]+]] = fadd reassoc double [[O2]], [[DR]]
; CHECK-NEXT:    store double [[N2]], ptr [[SC]]
; c = cos(y): adj(y) += dc * -sin(y)
; CHECK-NEXT:    [[DC:%[0-9]+]] = load double, ptr [[SC]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SC]]
; CHECK-NEXT:    [[SIN:%[0-9]+]] = call double @llvm.sin.f64(double %y)
; CHECK-NEXT:    [[DSIN:%[0-9]+]] = fmul double [[DC]], [[SIN]]
; CHECK-NEXT:    [[TY:%[0-9]+]] = fneg arcp double [[DSIN]]
; CHECK-NEXT:    [[OY:%[0-9]+]] = load double, ptr [[SY:%[0-9]+]]
; CHECK-NEXT:    [[NY:%[0-9]+]] = fadd reassoc double [[OY]], [[TY]]
; CHECK-NEXT:    store double [[NY]], ptr [[SY]]
; s = sin(x): adj(x) += ds * cos(x)
; CHECK-NEXT:    [[DS:%[0-9]+]] = load double, ptr [[SS]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SS]]
; CHECK-NEXT:    [[COS:%[0-9]+]] = call double @llvm.cos.f64(double %x)
; CHECK-NEXT:    [[TX:%[0-9]+]] = fmul double [[DS]], [[COS]]
; CHECK-NEXT:    [[OX:%[0-9]+]] = load double, ptr [[SX:%[0-9]+]]
; CHECK-NEXT:    [[NX:%[0-9]+]] = fadd reassoc double [[OX]], [[TX]]
; CHECK-NEXT:    store double [[NX]], ptr [[SX]]
; CHECK:       exit:
; CHECK-NEXT:    [[AX:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[AXZ:%[0-9]+]] = fadd double [[AX]], 0.000000e+00
; CHECK-NEXT:    [[R:%[0-9]+]] = insertvalue { double, double } poison, double [[AXZ]], 0
; CHECK-NEXT:    [[AY:%[0-9]+]] = load double, ptr [[SY]]
; CHECK-NEXT:    [[AYZ:%[0-9]+]] = fadd double [[AY]], 0.000000e+00
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[AYZ]], 1
