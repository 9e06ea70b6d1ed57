; fdiv: r = a/b gives adj(a) += d/b and adj(b) -= r*d/b; r is rebuilt from the arguments.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare { double, double } @__enzyme_autodiff(ptr, ...)

define double @f(double %x, double %y) {
entry:
  %q = fdiv double %x, %y
  ret double %q
}

define { double, double } @caller(double %x, double %y) {
entry:
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y)
  ret { double, double } %r
}

; The result is rebuilt in the adjoint rather than taped.
; CHECK-LABEL: define internal double @augfwd.f.aa{{[.a-z]*}}(ptr %tape, double %x, double %y)
; CHECK-NEXT:    %q = fdiv double %x, %y
; CHECK-NEXT:    ret double %q

; CHECK-LABEL: define internal { double, double } @adjoint.f.aa{{[.a-z]*}}(ptr %tape, double %x, double %y, double %dret)
; CHECK:         [[O0:%[0-9]+]] = load double, ptr [[SQ:%[0-9]+]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd reassoc double [[O0]], %dret
; CHECK-NEXT:    store double [[N0]], ptr [[SQ]]
; CHECK-NEXT:    [[D:%[0-9]+]] = load double, ptr [[SQ]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SQ]]
; the primal result is rebuilt before the partials are built
; CHECK-NEXT:    [[R:%[0-9]+]] = fdiv double %x, %y
; adj(x) += d / y
; CHECK-NEXT:    [[TXQ:%[0-9]+]] = fdiv arcp double [[D]], %y
; CHECK-NEXT:    [[TXZ:%[0-9]+]] = fcmp oeq double [[D]], 0.000000e+00
; CHECK-NEXT:    [[TX:%[0-9]+]] = select i1 [[TXZ]], double 0.000000e+00, double [[TXQ]]
; CHECK-NEXT:    [[OX:%[0-9]+]] = load double, ptr [[SX:%[0-9]+]]
; CHECK-NEXT:    [[NX:%[0-9]+]] = fadd reassoc double [[OX]], [[TX]]
; CHECK-NEXT:    store double [[NX]], ptr [[SX]]
; adj(y) += -(r * (d / y)), r = x / y: d / y is shared with adj(x), so the adjoint divides
; once (zero where d is)
; CHECK-NEXT:    [[RD:%[0-9]+]] = fmul double [[R]], [[TX]]
; CHECK-NEXT:    [[QZ:%[0-9]+]] = fcmp oeq double [[D]], 0.000000e+00
; CHECK-NEXT:    [[Q:%[0-9]+]] = select i1 [[QZ]], double 0.000000e+00, double [[RD]]
; CHECK-NEXT:    [[NQ:%[0-9]+]] = fneg arcp double [[Q]]
; CHECK-NEXT:    [[OY:%[0-9]+]] = load double, ptr [[SY:%[0-9]+]]
; CHECK-NEXT:    [[NY:%[0-9]+]] = fadd reassoc double [[OY]], [[NQ]]
; CHECK-NEXT:    store double [[NY]], ptr [[SY]]
; CHECK:       exit:
; CHECK-NEXT:    [[AX:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[AXZ:%[0-9]+]] = fadd double [[AX]], 0.000000e+00
; CHECK-NEXT:    [[RT:%[0-9]+]] = insertvalue { double, double } poison, double [[AXZ]], 0
; CHECK-NEXT:    [[AY:%[0-9]+]] = load double, ptr [[SY]]
; CHECK-NEXT:    [[AYZ:%[0-9]+]] = fadd double [[AY]], 0.000000e+00
; CHECK-NEXT:    insertvalue { double, double } [[RT]], double [[AYZ]], 1
