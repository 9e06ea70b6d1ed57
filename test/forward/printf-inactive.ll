; printf is inactive: the call is copied once, with primal arguments only, and produces no
; tangent; the surrounding arithmetic is differentiated as usual.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

@fmt = private constant [4 x i8] c"%f\0A\00"

declare double @__enzyme_fwddiff(ptr, ...)
declare i32 @printf(ptr, ...)

define double @f(double %x) {
entry:
  %m = fmul double %x, %x
  %n = call i32 (ptr, ...) @printf(ptr @fmt, double %m)
  ret double %m
}

define double @caller(double %x, double %dx) {
entry:
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx)
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.d(double %x, double %d.x)
; CHECK:         %m = fmul double %x, %x
; CHECK-NEXT:    [[DD:%.*]] = fadd double %d.x, %d.x
; CHECK-NEXT:    [[DM:%.*]] = fmul double [[DD]], %x
; CHECK-NEXT:    %n = call i32 (ptr, ...) @printf(ptr @fmt, double %m)
; CHECK-NEXT:    [[R:%.*]] = insertvalue { double, double } poison, double %m, 0
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[DM]], 1
; CHECK-NOT:     @printf
; CHECK:       }
