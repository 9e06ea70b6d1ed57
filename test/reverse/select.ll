; select: the adjoint goes to the chosen operand only (select c, d, 0 / select c, 0, d); the
; condition is rebuilt from the arguments.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare { double, double } @__enzyme_autodiff(ptr, ...)

define double @f(double %x, double %y) {
entry:
  %c = fcmp olt double %x, %y
  %m = select i1 %c, double %x, double %y
  ret double %m
}

define { double, double } @caller(double %x, double %y) {
entry:
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y)
  ret { double, double } %r
}

; CHECK-LABEL: define internal double @augfwd.f.aa{{[.a-z]*}}(ptr %tape, double %x, double %y)
; CHECK-NEXT:    %c = fcmp olt double %x, %y
; CHECK-NEXT:    %m = select i1 %c, double %x, double %y
; CHECK-NEXT:    ret double %m

; CHECK-LABEL: define internal { double, double } @adjoint.f.aa{{[.a-z]*}}(ptr %tape, double %x, double %y, double %dret)
; CHECK:         [[O0:%[0-9]+]] = load double, ptr [[SM:%[0-9]+]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd reassoc double [[O0]], %dret
; CHECK-NEXT:    store double [[N0]], ptr [[SM]]
; CHECK-NEXT:    [[D:%[0-9]+]] = load double, ptr [[SM]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SM]]
; CHECK-NEXT:    [[C:%[0-9]+]] = fcmp olt double %x, %y
; CHECK-NEXT:    [[TX:%[0-9]+]] = select i1 [[C]], double [[D]], double -0.000000e+00
; CHECK-NEXT:    [[TY:%[0-9]+]] = select i1 [[C]], double -0.000000e+00, double [[D]]
; CHECK-NEXT:    [[OX:%[0-9]+]] = load double, ptr [[SX:%[0-9]+]]
; CHECK-NEXT:    [[NX:%[0-9]+]] = fadd reassoc double [[OX]], [[TX]]
; CHECK-NEXT:    store double [[NX]], ptr [[SX]]
; CHECK-NEXT:    [[OY:%[0-9]+]] = load double, ptr [[SY:%[0-9]+]]
; CHECK-NEXT:    [[NY:%[0-9]+]] = fadd reassoc double [[OY]], [[TY]]
; CHECK-NEXT:    store double [[NY]], ptr [[SY]]
; CHECK:       exit:
; CHECK-NEXT:    [[AX:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[AXZ:%[0-9]+]] = fadd double [[AX]], 0.000000e+00
; CHECK-NEXT:    [[R:%[0-9]+]] = insertvalue { double, double } poison, double [[AXZ]], 0
; CHECK-NEXT:    [[AY:%[0-9]+]] = load double, ptr [[SY]]
; CHECK-NEXT:    [[AYZ:%[0-9]+]] = fadd double [[AY]], 0.000000e+00
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[AYZ]], 1
