; A conditional branch on a condition the adjoint can evaluate again (here an argument): the
; join records nothing; the adjoint branches on the same condition to an edge block that gives
; the phi's adjoint to that arm's incoming value, then runs that arm's reverse. (A condition
; the adjoint cannot rebuild is taped: branch-taped.ll.)
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare { double, double } @__enzyme_autodiff(ptr, ...)

define double @f(double %x, double %y, i1 %c) {
entry:
  br i1 %c, label %then, label %else

then:
  %a = fmul double %x, %y
  br label %join

else:
  %b = fsub double %x, %y
  br label %join

join:
  %p = phi double [ %a, %then ], [ %b, %else ]
  ret double %p
}

define { double, double } @caller(double %x, double %y, i1 %c) {
entry:
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y, i1 %c)
  ret { double, double } %r
}

; CHECK-LABEL: define internal double @augfwd.f.aac{{[.a-z]*}}(ptr %tape, double %x, double %y, i1 %c)
; CHECK-NEXT:    br i1 %c, label %[[THEN:[0-9]+]], label %[[ELSE:[0-9]+]]
; CHECK:       {{^}}[[THEN]]:
; CHECK-NEXT:    %a = fmul double %x, %y
; CHECK-NEXT:    br label %[[JOIN:[0-9]+]]
; CHECK:       {{^}}[[ELSE]]:
; CHECK-NEXT:    %b = fsub double %x, %y
; CHECK-NEXT:    br label %[[JOIN]]
; CHECK:       {{^}}[[JOIN]]:
; CHECK-NEXT:    %p = phi double [ %a, %[[THEN]] ], [ %b, %[[ELSE]] ]
; CHECK-NEXT:    ret double %p

; CHECK-LABEL: define internal { double, double } @adjoint.f.aac{{[.a-z]*}}(ptr %tape, double %x, double %y, i1 %c, double %dret)
; CHECK:       reverse:
; CHECK-NEXT:    br label %[[RJOIN:[0-9]+]]
; CHECK:       {{^}}[[RENTRY:[0-9]+]]:
; CHECK-NEXT:    br label %exit
; Reverse of else: b = x - y.
; CHECK:       {{^}}[[RELSE:[0-9]+]]:
; CHECK-NEXT:    [[DB:%[0-9]+]] = load double, ptr [[SB:%[0-9]+]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SB]]
; CHECK-NEXT:    [[O1:%[0-9]+]] = load double, ptr [[SX:%[0-9]+]]
; CHECK-NEXT:    [[N1:%[0-9]+]] = fadd reassoc double [[O1]], [[DB]]
; CHECK-NEXT:    store double [[N1]], ptr [[SX]]
; CHECK-NEXT:    [[NB:%[0-9]+]] = fneg arcp double [[DB]]
; CHECK-NEXT:    [[O2:%[0-9]+]] = load double, ptr [[SY:%[0-9]+]]
; CHECK-NEXT:    [[N2:%[0-9]+]] = fadd reassoc double [[O2]], [[NB]]
; CHECK-NEXT:    store double [[N2]], ptr [[SY]]
; CHECK-NEXT:    br label %[[ELSEOUT:[0-9]+]]
; Reverse of then: a = x * y.
; CHECK:       {{^}}[[RTHEN:[0-9]+]]:
; CHECK-NEXT:    [[DA:%[0-9]+]] = load double, ptr [[SA:%[0-9]+]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SA]]
; CHECK-NEXT:    [[T1:%[0-9]+]] = fmul double [[DA]], %y
; CHECK-NEXT:    [[O3:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[N3:%[0-9]+]] = fadd reassoc double [[O3]], [[T1]]
; CHECK-NEXT:    store double [[N3]], ptr [[SX]]
; CHECK-NEXT:    [[T2:%[0-9]+]] = fmul double %x, [[DA]]
; CHECK-NEXT:    [[O4:%[0-9]+]] = load double, ptr [[SY]]
; CHECK-NEXT:    [[N4:%[0-9]+]] = fadd reassoc double [[O4]], [[T2]]
; CHECK-NEXT:    store double [[N4]], ptr [[SY]]
; CHECK-NEXT:    br label %[[THENOUT:[0-9]+]]
; Reverse of join: seed with dret, branch on the condition again.
; CHECK:       {{^}}[[RJOIN]]:
; CHECK-NEXT:    [[O0:%[0-9]+]] = load double, ptr [[SP:%[0-9]+]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd reassoc double [[O0]], %dret
; CHECK-NEXT:    store double [[N0]], ptr [[SP]]
; CHECK-NEXT:    [[DP:%[0-9]+]] = load double, ptr [[SP]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SP]]
; CHECK-NEXT:    br i1 %c, label %[[FROMTHEN:[0-9]+]], label %[[FROMELSE:[0-9]+]]
; CHECK:       exit:
; CHECK-NEXT:    [[AX:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[AXZ:%[0-9]+]] = fadd double [[AX]], 0.000000e+00
; CHECK-NEXT:    [[R:%[0-9]+]] = insertvalue { double, double } poison, double [[AXZ]], 0
; CHECK-NEXT:    [[AY:%[0-9]+]] = load double, ptr [[SY]]
; CHECK-NEXT:    [[AYZ:%[0-9]+]] = fadd double [[AY]], 0.000000e+00
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[AYZ]], 1
; Both arms' reverses continue to the entry's.
; CHECK:       {{^}}[[ELSEOUT]]:
; CHECK-NEXT:    br label %[[RENTRY]]
; CHECK:       {{^}}[[THENOUT]]:
; CHECK-NEXT:    br label %[[RENTRY]]
; Came from else: the phi's adjoint goes to b, then else's reverse runs.
; CHECK:       {{^}}[[FROMELSE]]:
; CHECK-NEXT:    [[O5:%[0-9]+]] = load double, ptr [[SB]]
; CHECK-NEXT:    [[N5:%[0-9]+]] = fadd reassoc double [[O5]], [[DP]]
; CHECK-NEXT:    store double [[N5]], ptr [[SB]]
; CHECK-NEXT:    br label %[[RELSE]]
; Came from then: to a, then then's reverse.
; CHECK:       {{^}}[[FROMTHEN]]:
; CHECK-NEXT:    [[O6:%[0-9]+]] = load double, ptr [[SA]]
; CHECK-NEXT:    [[N6:%[0-9]+]] = fadd reassoc double [[O6]], [[DP]]
; CHECK-NEXT:    store double [[N6]], ptr [[SA]]
; CHECK-NEXT:    br label %[[RTHEN]]
