; A recursive function: its augmented and adjoint functions call themselves on the shared
; tape. pw writes no memory, so nothing runs between a recursive call's two sweeps that could
; change memory: the request's pair (memory stable) is also the pair the recursion calls. The
; recursive call's result r cannot be rebuilt, so it goes on the tape (in the rec arm only);
; n - 1 is rebuilt for the adjoint's recursive call, and so is the test n <= 0 that tells the
; adjoint which arm reached the join (nothing records it).
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)

; pw(x, n) = x^n
define double @pw(double %x, i32 %n) {
entry:
  %z = icmp sle i32 %n, 0
  br i1 %z, label %base, label %rec

base:
  br label %join

rec:
  %n1 = sub i32 %n, 1
  %r = call double @pw(double %x, i32 %n1)
  %m = fmul double %r, %x
  br label %join

join:
  %p = phi double [ 1.000000e+00, %base ], [ %m, %rec ]
  ret double %p
}

define double @caller(double %x, i32 %n) {
entry:
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @pw, double %x, i32 %n)
  ret double %r
}

; CHECK-LABEL: define double @caller(
; CHECK:         call double @augfwd.pw.ac[[TOP:[.a-z]*]](ptr %tape, double %x, i32 %n)
; CHECK-NEXT:    call void @umbra.tape.settle(ptr %tape, ptr @umbra.tape.hint)
; CHECK-NEXT:    call { double } @adjoint.pw.ac[[TOP]](ptr %tape, double %x, i32 %n, double 1.000000e+00)

; The request's pair (top level).
; CHECK:       define internal double @augfwd.pw.ac[[TOP]](ptr %tape, double %x, i32 %n)
; CHECK-NEXT:    %z = icmp sle i32 %n, 0
; CHECK-NEXT:    br i1 %z, label %[[BASE0:[0-9]+]], label %[[REC0:[0-9]+]]
; CHECK:       {{^}}[[BASE0]]:
; CHECK-NEXT:    br label
; CHECK:       {{^}}[[REC0]]:
; CHECK-NEXT:    %n1 = sub i32 %n, 1
; CHECK-NEXT:    %r = call double @augfwd.pw.ac[[TOP]](ptr %tape, double %x, i32 %n1)
; CHECK-NEXT:    %m = fmul double %r, %x
; CHECK-NEXT:    [[T1:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 8)
; CHECK-NEXT:    store double %r, ptr [[T1]]
; CHECK-NEXT:    br label %[[JOIN:[0-9]+]]
; CHECK:       {{^}}[[JOIN]]:
; CHECK-NEXT:    %p = phi double [ 1.000000e+00, %{{[0-9]+}} ], [ %m, %{{[0-9]+}} ]
; CHECK-NEXT:    ret double %p

; CHECK:       define internal { double } @adjoint.pw.ac[[TOP]](ptr %tape, double %x, i32 %n, double %dret)
; CHECK:       reverse:
; CHECK-NEXT:    br label %[[RJOIN:[0-9]+]]
; CHECK:       {{^}}[[RENTRY:[0-9]+]]:
; CHECK-NEXT:    br label %exit
; Reverse of rec: m = r * x, r popped, then the recursive adjoint with dret = adj(r).
; CHECK:       {{^}}[[RREC:[0-9]+]]:
; CHECK-NEXT:    [[TR:%[0-9]+]] = call ptr @umbra.tape.pop(ptr %tape, i64 8)
; CHECK-NEXT:    [[R:%[0-9]+]] = load double, ptr [[TR]]
; CHECK-NEXT:    [[DM:%[0-9]+]] = load double, ptr [[SM:%[0-9]+]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SM]]
; CHECK-NEXT:    [[T1:%[0-9]+]] = fmul double [[DM]], %x
; CHECK-NEXT:    [[O1:%[0-9]+]] = load double, ptr [[SR:%[0-9]+]]
; CHECK-NEXT:    [[N1:%[0-9]+]] = fadd reassoc double [[O1]], [[T1]]
; CHECK-NEXT:    store double [[N1]], ptr [[SR]]
; CHECK-NEXT:    [[T2:%[0-9]+]] = fmul double [[R]], [[DM]]
; CHECK-NEXT:    [[O2:%[0-9]+]] = load double, ptr [[SX:%[0-9]+]]
; CHECK-NEXT:    [[N2:%[0-9]+]] = fadd reassoc double [[O2]], [[T2]]
; CHECK-NEXT:    store double [[N2]], ptr [[SX]]
; CHECK-NEXT:    [[DR:%[0-9]+]] = load double, ptr [[SR]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SR]]
; CHECK-NEXT:    [[N1V:%[0-9]+]] = sub i32 %n, 1
; CHECK-NEXT:    [[C:%[0-9]+]] = call { double } @adjoint.pw.ac[[TOP]](ptr %tape, double %x, i32 [[N1V]], double [[DR]])
; CHECK-NEXT:    [[DX:%[0-9]+]] = extractvalue { double } [[C]], 0
; CHECK-NEXT:    [[O3:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[N3:%[0-9]+]] = fadd reassoc double [[O3]], [[DX]]
; CHECK-NEXT:    store double [[N3]], ptr [[SX]]
; Reverse of join: seed, evaluate n <= 0 again, branch to the arm it chose.
; CHECK:       {{^}}[[RJOIN]]:
; CHECK-NEXT:    [[O0:%[0-9]+]] = load double, ptr [[SP:%[0-9]+]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd reassoc double [[O0]], %dret
; CHECK-NEXT:    store double [[N0]], ptr [[SP]]
; CHECK-NEXT:    [[DP:%[0-9]+]] = load double, ptr [[SP]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SP]]
; CHECK-NEXT:    [[Z:%[0-9]+]] = icmp sle i32 %n, 0
; CHECK-NEXT:    br i1 [[Z]], label %[[FROMBASE:[0-9]+]], label %[[FROMREC:[0-9]+]]
; CHECK:       exit:
; CHECK-NEXT:    [[AX:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[AXZ:%[0-9]+]] = fadd double [[AX]], 0.000000e+00
; CHECK-NEXT:    insertvalue { double } poison, double [[AXZ]], 0
; From rec: the phi's adjoint goes to m. From base: the constant 1.0 takes nothing.
; CHECK:       {{^}}[[FROMREC]]:
; CHECK-NEXT:    [[O4:%[0-9]+]] = load double, ptr [[SM]]
; CHECK-NEXT:    [[N4:%[0-9]+]] = fadd reassoc double [[O4]], [[DP]]
; CHECK-NEXT:    store double [[N4]], ptr [[SM]]
; CHECK-NEXT:    br label %[[RREC]]
; CHECK:       {{^}}[[FROMBASE]]:
; CHECK-NEXT:    br label
; CHECK-NOT:   define internal double @augfwd.pw
