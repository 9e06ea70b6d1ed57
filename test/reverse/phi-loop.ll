; A loop without a counted induction variable: its header has two predecessors, so on every
; entry the augmented sweep pushes which one was taken (a phi of 0/1) and the adjoint pops it
; and switches, either back around the loop (the phi's adjoint goes to the value from the
; latch) or out to the entry (to the value from the entry). The phi acc cannot be rebuilt, so
; the product pushes it every iteration.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)
@enzyme_const = external global i32

; acc = x; do acc = acc * x; while (acc < y); return acc
define double @f(double %x, double %y) {
entry:
  br label %loop

loop:
  %acc = phi double [ %x, %entry ], [ %acc.next, %loop ]
  %acc.next = fmul double %acc, %x
  %c = fcmp olt double %acc.next, %y
  br i1 %c, label %loop, label %exit

exit:
  ret double %acc.next
}

define double @caller(double %x, double %y) {
entry:
  %mc = load i32, ptr @enzyme_const
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, i32 %mc, double %y)
  ret double %r
}

; CHECK-LABEL: define internal double @augfwd.f.ac{{[.a-z]*}}(ptr %tape, double %x, double %y)
; CHECK-NEXT:    br label %[[LOOP:[0-9]+]]
; CHECK:       {{^}}[[LOOP]]:
; CHECK-NEXT:    %acc = phi double [ %x, %[[ENTRY:[0-9]+]] ], [ %acc.next, %[[LOOP]] ]
; CHECK-NEXT:    [[IDX:%[0-9]+]] = phi i32 [ 0, %[[ENTRY]] ], [ 1, %[[LOOP]] ]
; CHECK-NEXT:    [[T1:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 4)
; CHECK-NEXT:    store i32 [[IDX]], ptr [[T1]]
; CHECK-NEXT:    %acc.next = fmul double %acc, %x
; CHECK-NEXT:    [[T2:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 8)
; CHECK-NEXT:    store double %acc, ptr [[T2]]
; CHECK-NEXT:    %c = fcmp olt double %acc.next, %y
; CHECK-NEXT:    br i1 %c, label %[[LOOP]], label %[[EXIT:[0-9]+]]
; CHECK:       {{^}}[[EXIT]]:
; CHECK-NEXT:    ret double %acc.next

; CHECK-LABEL: define internal { double } @adjoint.f.ac{{[.a-z]*}}(ptr %tape, double %x, double %y, double %dret)
; CHECK:       reverse:
; CHECK-NEXT:    br label %[[REXIT:[0-9]+]]
; Reverse of the entry block: done.
; CHECK:       {{^}}[[RENTRY:[0-9]+]]:
; CHECK-NEXT:    br label %exit
; Reverse of the loop body: acc.next = acc * x, acc popped.
; CHECK:       {{^}}[[RLOOP:[0-9]+]]:
; CHECK-NEXT:    [[TP:%[0-9]+]] = call ptr @umbra.tape.pop(ptr %tape, i64 8)
; CHECK-NEXT:    [[ACC:%[0-9]+]] = load double, ptr [[TP]]
; CHECK-NEXT:    [[D:%[0-9]+]] = load double, ptr [[SNEXT:%[0-9]+]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SNEXT]]
; CHECK-NEXT:    [[T1:%[0-9]+]] = fmul double [[D]], %x
; CHECK-NEXT:    [[O1:%[0-9]+]] = load double, ptr [[SACC:%[0-9]+]]
; CHECK-NEXT:    [[N1:%[0-9]+]] = fadd reassoc double [[O1]], [[T1]]
; CHECK-NEXT:    store double [[N1]], ptr [[SACC]]
; CHECK-NEXT:    [[T2:%[0-9]+]] = fmul double [[ACC]], [[D]]
; CHECK-NEXT:    [[O2:%[0-9]+]] = load double, ptr [[SX:%[0-9]+]]
; CHECK-NEXT:    [[N2:%[0-9]+]] = fadd reassoc double [[O2]], [[T2]]
; CHECK-NEXT:    store double [[N2]], ptr [[SX]]
; Which predecessor entered the header this time?
; CHECK-NEXT:    [[TI:%[0-9]+]] = call ptr @umbra.tape.pop(ptr %tape, i64 4)
; CHECK-NEXT:    [[K:%[0-9]+]] = load i32, ptr [[TI]]
; CHECK-NEXT:    [[DACC:%[0-9]+]] = load double, ptr [[SACC]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SACC]]
; CHECK-NEXT:    switch i32 [[K]], label %[[FROMENTRY:[0-9]+]] [
; CHECK-NEXT:      i32 1, label %[[FROMLOOP:[0-9]+]]
; CHECK-NEXT:    ]
; Reverse of the exit block: acc.next's adjoint is seeded with dret.
; CHECK:       {{^}}[[REXIT]]:
; CHECK-NEXT:    [[O0:%[0-9]+]] = load double, ptr [[SNEXT]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd reassoc double [[O0]], %dret
; CHECK-NEXT:    store double [[N0]], ptr [[SNEXT]]
; CHECK-NEXT:    br label %[[EXITEDGE:[0-9]+]]
; CHECK:       exit:
; CHECK-NEXT:    [[AX:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[AXZ:%[0-9]+]] = fadd double [[AX]], 0.000000e+00
; CHECK-NEXT:    insertvalue { double } poison, double [[AXZ]], 0
; Index 0, entered from the entry: the phi's adjoint goes to x.
; CHECK:       {{^}}[[FROMENTRY]]:
; CHECK-NEXT:    [[O3:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[N3:%[0-9]+]] = fadd reassoc double [[O3]], [[DACC]]
; CHECK-NEXT:    store double [[N3]], ptr [[SX]]
; CHECK-NEXT:    br label %[[RENTRY]]
; Index 1, the back edge: to acc.next, and around the loop again.
; CHECK:       {{^}}[[FROMLOOP]]:
; CHECK-NEXT:    [[O4:%[0-9]+]] = load double, ptr [[SNEXT]]
; CHECK-NEXT:    [[N4:%[0-9]+]] = fadd reassoc double [[O4]], [[DACC]]
; CHECK-NEXT:    store double [[N4]], ptr [[SNEXT]]
; CHECK-NEXT:    br label %[[RLOOP]]
; CHECK:       {{^}}[[EXITEDGE]]:
; CHECK-NEXT:    br label %[[RLOOP]]
