; Integer arithmetic carries no derivative: integer instructions (including fptosi of an
; active value and sitofp back) are copied without tangents, and a float computed from
; integers is a constant factor.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)

define double @f(double %x, i32 %n) {
entry:
  %k = mul i32 %n, %n
  %i = fptosi double %x to i32
  %a = add i32 %k, %i
  %fa = sitofp i32 %a to double
  %m = fmul double %x, %fa
  ret double %m
}

define double @caller(double %x, double %dx, i32 %n) {
entry:
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx, i32 %n)
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.dc(double %x, double %d.x, i32 %n)
; CHECK-NEXT:    %k = mul i32 %n, %n
; CHECK-NEXT:    %i = fptosi double %x to i32
; CHECK-NEXT:    %a = add i32 %k, %i
; CHECK-NEXT:    %fa = sitofp i32 %a to double
; CHECK-NEXT:    %m = fmul double %x, %fa
; CHECK-NEXT:    [[DM:%.*]] = fmul double %d.x, %fa
; CHECK-NEXT:    [[R:%.*]] = insertvalue { double, double } poison, double %m, 0
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[DM]], 1
