; A conditional branch: each arm computes its own tangent, and the tangent phi at the join
; takes each arm's tangent from that arm's block.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)

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

define double @caller(double %x, double %dx, double %y, double %dy, i1 %c) {
entry:
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx, double %y, double %dy, i1 %c)
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.ddc(double %x, double %d.x, double %y, double %d.y, i1 %c)
; CHECK:         br i1 %c, label %[[THEN:[0-9]+]], label %[[ELSE:[0-9]+]]
; CHECK:       [[THEN]]:
; CHECK-NEXT:    %a = fmul double %x, %y
; CHECK-NEXT:    [[A1:%.*]] = fmul double %d.x, %y
; CHECK-NEXT:    [[A2:%.*]] = fmul double %x, %d.y
; CHECK-NEXT:    [[DA:%.*]] = fadd double [[A1]], [[A2]]
; CHECK-NEXT:    br label %[[JOIN:[0-9]+]]
; CHECK:       [[ELSE]]:
; CHECK-NEXT:    %b = fsub double %x, %y
; CHECK-NEXT:    [[DB:%.*]] = fsub double %d.x, %d.y
; CHECK-NEXT:    br label %[[JOIN]]
; CHECK:       [[JOIN]]:
; CHECK-NEXT:    %p = phi double [ %a, %[[THEN]] ], [ %b, %[[ELSE]] ]
; CHECK-NEXT:    [[DP:%.*]] = phi double [ [[DA]], %[[THEN]] ], [ [[DB]], %[[ELSE]] ]
; CHECK-NEXT:    [[R:%.*]] = insertvalue { double, double } poison, double %p, 0
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[DP]], 1
