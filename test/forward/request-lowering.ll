; The caller's side: the request call becomes a call of the derived function and an
; extractvalue of the tangent, the marker loads it consumed are deleted, and the request's
; declaration and the marker global go away; the primal function is left as it was.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)
@enzyme_dup = external global i32
@enzyme_const = external global i32

define double @f(double %x, double %y) {
entry:
  %m = fmul double %x, %y
  ret double %m
}

define double @caller(double %a, double %da, double %b) {
entry:
  %md = load i32, ptr @enzyme_dup
  %mc = load i32, ptr @enzyme_const
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %md, double %a, double %da, i32 %mc, double %b)
  %s = fmul double %r, %a
  ret double %s
}

; CHECK-NOT:   __enzyme_fwddiff
; CHECK-NOT:   @enzyme_dup
; CHECK-NOT:   @enzyme_const

; CHECK-LABEL: define double @f(double %x, double %y) {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %m = fmul double %x, %y
; CHECK-NEXT:    ret double %m
; CHECK-NEXT:  }

; CHECK-LABEL: define double @caller(double %a, double %da, double %b) {
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[C:%.*]] = call { double, double } @fwddiffe.f.dc(double %a, double %da, double %b)
; CHECK-NEXT:    [[T:%.*]] = extractvalue { double, double } [[C]], 1
; CHECK-NEXT:    %s = fmul double [[T]], %a
; CHECK-NEXT:    ret double %s
; CHECK-NEXT:  }

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.dc(double %x, double %d.x, double %y)
; CHECK-NOT:   __enzyme_fwddiff
; CHECK-NOT:   @enzyme_dup
; CHECK-NOT:   @enzyme_const
