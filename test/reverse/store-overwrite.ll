; A store kills the adjoint of the value it overwrites: the adjoint sweep reads the shadow for
; the stored value and stores zero to it, before the earlier load of the same location adds
; its own adjoint there. (*p = *p * a: d(*p)/d(*p) = a, d(*p)/da = *p.)
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)

define void @f(ptr %p, double %a) {
entry:
  %v = load double, ptr %p, align 8
  %m = fmul double %v, %a
  store double %m, ptr %p, align 8
  ret void
}

define double @caller(ptr %p, ptr %dp, double %a) {
entry:
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %p, ptr %dp, double %a)
  ret double %r
}

; The old value of *p is overwritten, so it must come from the tape.
; CHECK-LABEL: define internal void @augfwd.f.da{{[.a-z]*}}(ptr %tape, ptr %p, ptr %d.p, double %a)
; CHECK-NEXT:    %v = load double, ptr %p
; CHECK-NEXT:    %m = fmul double %v, %a
; CHECK-NEXT:    store double %m, ptr %p
; CHECK-NEXT:    [[T:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 8)
; CHECK-NEXT:    store double %v, ptr [[T]]
; CHECK-NEXT:    ret void

; CHECK-LABEL: define internal { double } @adjoint.f.da{{[.a-z]*}}(ptr %tape, ptr %p, ptr %d.p, double %a)
; the frame, popped as the adjoint starts
; CHECK:       reverse:
; CHECK-NEXT:    [[TP:%[0-9]+]] = call ptr @umbra.tape.pop(ptr %tape, i64 8)
; CHECK-NEXT:    [[V:%[0-9]+]] = load double, ptr [[TP]]
; store m -> p: adj(m) += shadow(p); shadow(p) = 0
; CHECK:         [[W:%[0-9]+]] = load double, ptr %d.p
; CHECK-NEXT:    [[O1:%[0-9]+]] = load double, ptr [[SM:%[0-9]+]]
; CHECK-NEXT:    [[N1:%[0-9]+]] = fadd reassoc double [[O1]], [[W]]
; CHECK-NEXT:    store double [[N1]], ptr [[SM]]
; CHECK-NEXT:    store double 0.000000e+00, ptr %d.p
; m = v * a
; CHECK-NEXT:    [[DM:%[0-9]+]] = load double, ptr [[SM]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SM]]
; CHECK-NEXT:    [[T1:%[0-9]+]] = fmul double [[DM]], %a
; CHECK-NEXT:    [[O2:%[0-9]+]] = load double, ptr [[SV:%[0-9]+]]
; CHECK-NEXT:    [[N2:%[0-9]+]] = fadd reassoc double [[O2]], [[T1]]
; CHECK-NEXT:    store double [[N2]], ptr [[SV]]
; CHECK-NEXT:    [[T2:%[0-9]+]] = fmul double [[V]], [[DM]]
; CHECK-NEXT:    [[O3:%[0-9]+]] = load double, ptr [[SA:%[0-9]+]]
; CHECK-NEXT:    [[N3:%[0-9]+]] = fadd reassoc double [[O3]], [[T2]]
; CHECK-NEXT:    store double [[N3]], ptr [[SA]]
; v = load p: the cleared shadow receives adj(v) only
; CHECK-NEXT:    [[DV:%[0-9]+]] = load double, ptr [[SV]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SV]]
; CHECK-NEXT:    [[O4:%[0-9]+]] = load double, ptr %d.p
; CHECK-NEXT:    [[N4:%[0-9]+]] = fadd double [[O4]], [[DV]]
; CHECK-NEXT:    store double [[N4]], ptr %d.p
; CHECK-NEXT:    br label %exit
; CHECK:       exit:
; CHECK-NEXT:    [[AA:%[0-9]+]] = load double, ptr [[SA]]
; CHECK-NEXT:    [[AAZ:%[0-9]+]] = fadd double [[AA]], 0.000000e+00
; CHECK-NEXT:    insertvalue { double } poison, double [[AAZ]], 0
