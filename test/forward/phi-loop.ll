; A loop-carried value: x^n by repeated multiplication. The accumulator gets a tangent phi
; (zero on entry, the product rule's result on the back edge); the integer counter none.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)

define double @f(double %x, i32 %n) {
entry:
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 1.000000e+00, %entry ], [ %acc.next, %loop ]
  %acc.next = fmul double %acc, %x
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  ret double %acc.next
}

define double @caller(double %x, double %dx, i32 %n) {
entry:
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx, i32 %n)
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.dc(double %x, double %d.x, i32 %n)
; CHECK:         br label %[[LOOP:[0-9]+]]
; CHECK:       [[LOOP]]:
; CHECK-NEXT:    %i = phi i32 [ 0, %[[ENTRY:[0-9]+]] ], [ %i.next, %[[LOOP]] ]
; CHECK-NEXT:    %acc = phi double [ 1.000000e+00, %[[ENTRY]] ], [ %acc.next, %[[LOOP]] ]
; CHECK-NEXT:    [[DACC:%.*]] = phi double [ 0.000000e+00, %[[ENTRY]] ], [ [[DNEXT:%[0-9]+]], %[[LOOP]] ]
; CHECK-NEXT:    %acc.next = fmul double %acc, %x
; CHECK-NEXT:    [[A:%.*]] = fmul double [[DACC]], %x
; CHECK-NEXT:    [[B:%.*]] = fmul double %acc, %d.x
; CHECK-NEXT:    [[DNEXT]] = fadd double [[A]], [[B]]
; CHECK-NEXT:    %i.next = add i32 %i, 1
; CHECK-NEXT:    %c = icmp slt i32 %i.next, %n
; CHECK-NEXT:    br i1 %c, label %[[LOOP]], label %[[EXIT:[0-9]+]]
; CHECK:       [[EXIT]]:
; CHECK-NEXT:    [[R:%.*]] = insertvalue { double, double } poison, double %acc.next, 0
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[DNEXT]], 1
