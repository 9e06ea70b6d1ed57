; A call of a defined function: the augmented sweep calls augfwd.g and the adjoint calls
; adjoint.g, both on the caller's tape, with the same arguments (the dup pointer with its
; shadow); g's 'out' adjoint comes back in a struct and is accumulated into its argument s.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)

; g(a, p) = a * *p
define double @g(double %a, ptr %p) {
entry:
  %v = load double, ptr %p, align 8
  %m = fmul double %a, %v
  ret double %m
}

; f(x, p) = g(x * x, p)
define double @f(double %x, ptr %p) {
entry:
  %s = fmul double %x, %x
  %c = call double @g(double %s, ptr %p)
  ret double %c
}

define double @caller(double %x, ptr %p, ptr %dp) {
entry:
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, ptr %p, ptr %dp)
  ret double %r
}

; CHECK-LABEL: define internal double @augfwd.f.ad{{[.a-z]*}}(ptr %tape, double %x, ptr %p, ptr %d.p)
; CHECK-NEXT:    %s = fmul double %x, %x
; CHECK-NEXT:    %c = call double @augfwd.g.ad[[G:[.a-z]*]](ptr %tape, double %s, ptr %p, ptr %d.p)
; CHECK-NEXT:    ret double %c

; CHECK-LABEL: define internal { double } @adjoint.f.ad{{[.a-z]*}}(ptr %tape, double %x, ptr %p, ptr %d.p, double %dret)
; CHECK:         [[O0:%[0-9]+]] = load double, ptr [[SC:%[0-9]+]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd reassoc double [[O0]], %dret
; CHECK-NEXT:    store double [[N0]], ptr [[SC]]
; CHECK-NEXT:    [[DC:%[0-9]+]] = load double, ptr [[SC]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SC]]
; The call's adjoint: adjoint.g with the primal arguments (s rebuilt) and dret = adj(c).
; CHECK-NEXT:    [[S:%[0-9]+]] = fmul double %x, %x
; CHECK-NEXT:    [[GR:%[0-9]+]] = call { double } @adjoint.g.ad[[G]](ptr %tape, double [[S]], ptr %p, ptr %d.p, double [[DC]])
; CHECK-NEXT:    [[DA:%[0-9]+]] = extractvalue { double } [[GR]], 0
; CHECK-NEXT:    [[O1:%[0-9]+]] = load double, ptr [[SS:%[0-9]+]]
; CHECK-NEXT:    [[N1:%[0-9]+]] = fadd reassoc double [[O1]], [[DA]]
; CHECK-NEXT:    store double [[N1]], ptr [[SS]]
; s = x * x
; CHECK-NEXT:    [[DS:%[0-9]+]] = load double, ptr [[SS]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SS]]
; CHECK-NEXT:    [[DS2:%[0-9]+]] = fadd double [[DS]], [[DS]]
; CHECK-NEXT:    [[T1:%[0-9]+]] = fmul double [[DS2]], %x
; CHECK-NEXT:    [[O2:%[0-9]+]] = load double, ptr [[SX:%[0-9]+]]
; CHECK-NEXT:    [[N2:%[0-9]+]] = fadd reassoc double [[O2]], [[T1]]
; CHECK-NEXT:    store double [[N2]], ptr [[SX]]
; CHECK:       exit:
; CHECK-NEXT:    [[AX:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[AXZ:%[0-9]+]] = fadd double [[AX]], 0.000000e+00
; CHECK-NEXT:    insertvalue { double } poison, double [[AXZ]], 0

; Nothing writes memory after the call in f, and f's own sweeps run back to back, so g's
; load is re-read in its adjoint: nothing goes on the tape (call-derived-overwritten.ll is the
; case where f writes after the call).
; CHECK:       define internal double @augfwd.g.ad[[G]](ptr %tape, double %a, ptr %p, ptr %d.p)
; CHECK-NEXT:    %v = load double, ptr %p
; CHECK-NEXT:    %m = fmul double %a, %v
; CHECK-NEXT:    ret double %m

; CHECK:       define internal { double } @adjoint.g.ad[[G]](ptr %tape, double %a, ptr %p, ptr %d.p, double %dret)
; CHECK:         [[O0:%[0-9]+]] = load double, ptr [[SM:%[0-9]+]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd reassoc double [[O0]], %dret
; CHECK-NEXT:    store double [[N0]], ptr [[SM]]
; CHECK-NEXT:    [[DM:%[0-9]+]] = load double, ptr [[SM]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SM]]
; CHECK-NEXT:    [[V:%[0-9]+]] = load double, ptr %p
; adj(a) += dm * v
; CHECK-NEXT:    [[T1:%[0-9]+]] = fmul double [[DM]], [[V]]
; CHECK-NEXT:    [[O1:%[0-9]+]] = load double, ptr [[SA:%[0-9]+]]
; CHECK-NEXT:    [[N1:%[0-9]+]] = fadd reassoc double [[O1]], [[T1]]
; CHECK-NEXT:    store double [[N1]], ptr [[SA]]
; adj(v) += a * dm, then into shadow(p)
; CHECK-NEXT:    [[T2:%[0-9]+]] = fmul double %a, [[DM]]
; CHECK-NEXT:    [[O2:%[0-9]+]] = load double, ptr [[SV:%[0-9]+]]
; CHECK-NEXT:    [[N2:%[0-9]+]] = fadd reassoc double [[O2]], [[T2]]
; CHECK-NEXT:    store double [[N2]], ptr [[SV]]
; CHECK-NEXT:    [[DV:%[0-9]+]] = load double, ptr [[SV]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SV]]
; CHECK-NEXT:    [[O3:%[0-9]+]] = load double, ptr %d.p
; CHECK-NEXT:    [[N3:%[0-9]+]] = fadd double [[O3]], [[DV]]
; CHECK-NEXT:    store double [[N3]], ptr %d.p
; CHECK:       exit:
; CHECK-NEXT:    [[AA:%[0-9]+]] = load double, ptr [[SA]]
; CHECK-NEXT:    [[AAZ:%[0-9]+]] = fadd double [[AA]], 0.000000e+00
; CHECK-NEXT:    insertvalue { double } poison, double [[AAZ]], 0
