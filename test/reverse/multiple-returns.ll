; Several returns: the augmented sweep pushes the index of the return taken (0 = neg, 1 = sq,
; in reverse post-order); the adjoint's dispatch block pops it and switches to the reverse of
; that return's block, each seeded with dret.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)

define double @f(double %x, i1 %c) {
entry:
  br i1 %c, label %sq, label %neg

sq:
  %m = fmul double %x, %x
  ret double %m

neg:
  %n = fneg double %x
  ret double %n
}

define double @caller(double %x, i1 %c) {
entry:
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, i1 %c)
  ret double %r
}

; CHECK-LABEL: define internal double @augfwd.f.ac{{[.a-z]*}}(ptr %tape, double %x, i1 %c)
; CHECK-NEXT:    br i1 %c, label %[[SQ:[0-9]+]], label %[[NEG:[0-9]+]]
; CHECK:       {{^}}[[SQ]]:
; CHECK-NEXT:    %m = fmul double %x, %x
; CHECK-NEXT:    [[T1:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 4)
; CHECK-NEXT:    store i32 1, ptr [[T1]]
; CHECK-NEXT:    ret double %m
; CHECK:       {{^}}[[NEG]]:
; CHECK-NEXT:    %n = fneg double %x
; CHECK-NEXT:    [[T2:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 4)
; CHECK-NEXT:    store i32 0, ptr [[T2]]
; CHECK-NEXT:    ret double %n

; CHECK-LABEL: define internal { double } @adjoint.f.ac{{[.a-z]*}}(ptr %tape, double %x, i1 %c, double %dret)
; CHECK:       reverse:
; CHECK-NEXT:    [[TI:%[0-9]+]] = call ptr @umbra.tape.pop(ptr %tape, i64 4)
; CHECK-NEXT:    [[K:%[0-9]+]] = load i32, ptr [[TI]]
; CHECK-NEXT:    switch i32 [[K]], label %[[RNEG:[0-9]+]] [
; CHECK-NEXT:      i32 1, label %[[RSQ:[0-9]+]]
; CHECK-NEXT:    ]
; Return 0 (neg): adj(x) += -dret.
; CHECK:       {{^}}[[RNEG]]:
; CHECK-NEXT:    [[O1:%[0-9]+]] = load double, ptr [[SN:%[0-9]+]]
; CHECK-NEXT:    [[N1:%[0-9]+]] = fadd reassoc double [[O1]], %dret
; CHECK-NEXT:    store double [[N1]], ptr [[SN]]
; CHECK-NEXT:    [[DN:%[0-9]+]] = load double, ptr [[SN]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SN]]
; CHECK-NEXT:    [[NEGD:%[0-9]+]] = fneg arcp double [[DN]]
; CHECK-NEXT:    [[O2:%[0-9]+]] = load double, ptr [[SX:%[0-9]+]]
; CHECK-NEXT:    [[N2:%[0-9]+]] = fadd reassoc double [[O2]], [[NEGD]]
; CHECK-NEXT:    store double [[N2]], ptr [[SX]]
; Return 1 (sq): adj(x) += dret*x + x*dret.
; CHECK:       {{^}}[[RSQ]]:
; CHECK-NEXT:    [[O3:%[0-9]+]] = load double, ptr [[SM:%[0-9]+]]
; CHECK-NEXT:    [[N3:%[0-9]+]] = fadd reassoc double [[O3]], %dret
; CHECK-NEXT:    store double [[N3]], ptr [[SM]]
; CHECK-NEXT:    [[DM:%[0-9]+]] = load double, ptr [[SM]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SM]]
; CHECK-NEXT:    [[DM2:%[0-9]+]] = fadd double [[DM]], [[DM]]
; CHECK-NEXT:    [[T3:%[0-9]+]] = fmul double [[DM2]], %x
; CHECK-NEXT:    [[O4:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[N4:%[0-9]+]] = fadd reassoc double [[O4]], [[T3]]
; CHECK-NEXT:    store double [[N4]], ptr [[SX]]
; CHECK:       exit:
; CHECK-NEXT:    [[AX:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[AXZ:%[0-9]+]] = fadd double [[AX]], 0.000000e+00
; CHECK-NEXT:    insertvalue { double } poison, double [[AXZ]], 0
