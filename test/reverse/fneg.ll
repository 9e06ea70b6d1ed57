; fneg: the operand receives the negated adjoint.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)

define double @f(double %x) {
entry:
  %n = fneg double %x
  ret double %n
}

define double @caller(double %x) {
entry:
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %r
}

; CHECK-LABEL: define internal double @augfwd.f.a{{[.a-z]*}}(ptr %tape, double %x)
; CHECK-NEXT:    %n = fneg double %x
; CHECK-NEXT:    ret double %n

; CHECK-LABEL: define internal { double } @adjoint.f.a{{[.a-z]*}}(ptr %tape, double %x, double %dret)
; CHECK:         [[O0:%[0-9]+]] = load double, ptr [[SN:%[0-9]+]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd reassoc double [[O0]], %dret
; CHECK-NEXT:    store double [[N0]], ptr [[SN]]
; CHECK-NEXT:    [[D:%[0-9]+]] = load double, ptr [[SN]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SN]]
; CHECK-NEXT:    [[ND:%[0-9]+]] = fneg arcp double [[D]]
; CHECK-NEXT:    [[OX:%[0-9]+]] = load double, ptr [[SX:%[0-9]+]]
; CHECK-NEXT:    [[NX:%[0-9]+]] = fadd reassoc double [[OX]], [[ND]]
; CHECK-NEXT:    store double [[NX]], ptr [[SX]]
; CHECK:       exit:
; CHECK-NEXT:    [[AX:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[AXZ:%[0-9]+]] = fadd double [[AX]], 0.000000e+00
; CHECK-NEXT:    insertvalue { double } poison, double [[AXZ]], 0
