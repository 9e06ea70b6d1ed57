; A switch is copied as it is; the tangent phi at the join takes each case's tangent from the
; right block (the default edge carries %x, so its tangent is %d.x).
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)

define double @f(double %x, double %y, i32 %k) {
entry:
  switch i32 %k, label %join [
    i32 0, label %mul
    i32 1, label %div
  ]

mul:
  %a = fmul double %x, %y
  br label %join

div:
  %b = fdiv double %x, %y
  br label %join

join:
  %p = phi double [ %x, %entry ], [ %a, %mul ], [ %b, %div ]
  ret double %p
}

define double @caller(double %x, double %dx, double %y, double %dy, i32 %k) {
entry:
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx, double %y, double %dy, i32 %k)
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.ddc(double %x, double %d.x, double %y, double %d.y, i32 %k)
; CHECK:         switch i32 %k, label %[[JOIN:[0-9]+]] [
; CHECK-NEXT:      i32 0, label %[[MUL:[0-9]+]]
; CHECK-NEXT:      i32 1, label %[[DIV:[0-9]+]]
; CHECK-NEXT:    ]
; CHECK:       [[MUL]]:
; CHECK-NEXT:    %a = fmul double %x, %y
; CHECK-NEXT:    [[A1:%.*]] = fmul double %d.x, %y
; CHECK-NEXT:    [[A2:%.*]] = fmul double %x, %d.y
; CHECK-NEXT:    [[DA:%.*]] = fadd double [[A1]], [[A2]]
; CHECK-NEXT:    br label %[[JOIN]]
; CHECK:       [[DIV]]:
; CHECK-NEXT:    %b = fdiv double %x, %y
; CHECK-NEXT:    [[QDY:%.*]] = fmul double %b, %d.y
; CHECK-NEXT:    [[NUM:%.*]] = fsub double %d.x, [[QDY]]
; CHECK-NEXT:    [[DBQ:%.*]] = fdiv arcp double [[NUM]], %y
; CHECK-NEXT:    [[DBZ:%.*]] = fcmp oeq double [[NUM]], 0.000000e+00
; CHECK-NEXT:    [[DB:%.*]] = select i1 [[DBZ]], double 0.000000e+00, double [[DBQ]]
; CHECK-NEXT:    br label %[[JOIN]]
; CHECK:       [[JOIN]]:
; CHECK-NEXT:    %p = phi double [ %x, %[[ENTRY:[0-9]+]] ], [ %a, %[[MUL]] ], [ %b, %[[DIV]] ]
; CHECK-NEXT:    [[DP:%.*]] = phi double [ %d.x, %[[ENTRY]] ], [ [[DA]], %[[MUL]] ], [ [[DB]], %[[DIV]] ]
; CHECK-NEXT:    [[R:%.*]] = insertvalue { double, double } poison, double %p, 0
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[DP]], 1
