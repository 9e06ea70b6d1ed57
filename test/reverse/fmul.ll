; fmul: adj(a) += d*b, adj(b) += a*d. Here a = s is a pure instruction of arguments, which the
; adjoint rebuilds where it needs it (nothing goes on the tape); b = x is an argument, used
; directly. (Values that cannot be rebuilt come from the tape: see tape-helpers.ll,
; load-store.ll, phi-loop.ll.)
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare { double, double } @__enzyme_autodiff(ptr, ...)

; f(x, y) = (x + y) * x: df/dx = 2x + y, df/dy = x
define double @f(double %x, double %y) {
entry:
  %s = fadd double %x, %y
  %m = fmul double %s, %x
  ret double %m
}

define { double, double } @caller(double %x, double %y) {
entry:
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y)
  ret { double, double } %r
}

; CHECK-LABEL: define internal double @augfwd.f.aa{{[.a-z]*}}(ptr %tape, double %x, double %y)
; CHECK-NEXT:    %s = fadd double %x, %y
; CHECK-NEXT:    %m = fmul double %s, %x
; CHECK-NEXT:    ret double %m

; CHECK-LABEL: define internal { double, double } @adjoint.f.aa{{[.a-z]*}}(ptr %tape, double %x, double %y, double %dret)
; CHECK-NOT:     @umbra.tape.pop
; CHECK:         [[O0:%[0-9]+]] = load double, ptr [[SM:%[0-9]+]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd reassoc double [[O0]], %dret
; CHECK-NEXT:    store double [[N0]], ptr [[SM]]
; CHECK-NEXT:    [[D:%[0-9]+]] = load double, ptr [[SM]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SM]]
; s is rebuilt before the partials are built
; CHECK-NEXT:    [[S:%[0-9]+]] = fadd double %x, %y
; adj(s) += d * x
; CHECK-NEXT:    [[T1:%[0-9]+]] = fmul double [[D]], %x
; CHECK-NEXT:    [[O1:%[0-9]+]] = load double, ptr [[SS:%[0-9]+]]
; CHECK-NEXT:    [[N1:%[0-9]+]] = fadd reassoc double [[O1]], [[T1]]
; CHECK-NEXT:    store double [[N1]], ptr [[SS]]
; adj(x) += s * d
; CHECK-NEXT:    [[T2:%[0-9]+]] = fmul double [[S]], [[D]]
; CHECK-NEXT:    [[O2:%[0-9]+]] = load double, ptr [[SX:%[0-9]+]]
; CHECK-NEXT:    [[N2:%[0-9]+]] = fadd reassoc double [[O2]], [[T2]]
; CHECK-NEXT:    store double [[N2]], ptr [[SX]]
; s = x + y: adj(x) += ds, adj(y) += ds
; CHECK-NEXT:    [[DS:%[0-9]+]] = load double, ptr [[SS]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SS]]
; CHECK-NEXT:    [[O3:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[N3:%[0-9]+]] = fadd reassoc double [[O3]], [[DS]]
; CHECK-NEXT:    store double [[N3]], ptr [[SX]]
; CHECK-NEXT:    [[O4:%[0-9]+]] = load double, ptr [[SY:%[0-9]+]]
; CHECK-NEXT:    [[N4:%[0-9]+]] = fadd reassoc double [[O4]], [[DS]]
; CHECK-NEXT:    store double [[N4]], ptr [[SY]]
; CHECK:       exit:
; CHECK-NEXT:    [[AX:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[AXZ:%[0-9]+]] = fadd double [[AX]], 0.000000e+00
; CHECK-NEXT:    [[R:%[0-9]+]] = insertvalue { double, double } poison, double [[AXZ]], 0
; CHECK-NEXT:    [[AY:%[0-9]+]] = load double, ptr [[SY]]
; CHECK-NEXT:    [[AYZ:%[0-9]+]] = fadd double [[AY]], 0.000000e+00
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[AYZ]], 1
