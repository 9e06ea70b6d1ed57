; Activity markers: both spellings (umbra_*, enzyme_*), passed as loaded values or as the
; globals' addresses; dup, dupnoneed and const; and the defaults without a marker (pointers
; and floating point duplicated, integers constant). The activity string in the derived
; function's name and its parameter list follow the markers.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)
declare double @__umbra_fwddiff(ptr, ...)
@enzyme_dup = external global i32
@enzyme_const = external global i32
@umbra_const = external global i32
@umbra_dupnoneed = external global i32

; p[0] * y + n
define double @f(ptr %p, i32 %n, double %y) {
entry:
  %v = load double, ptr %p, align 8
  %m = fmul double %v, %y
  %fn = sitofp i32 %n to double
  %s = fadd double %m, %fn
  ret double %s
}

define double @caller(ptr %p, ptr %dp, i32 %n, double %y, double %dy) {
entry:
  ; defaults: ptr dup, i32 const, double dup
  %r1 = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %p, ptr %dp, i32 %n, double %y, double %dy)
  ; enzyme_ markers as loaded values
  %m1 = load i32, ptr @enzyme_const
  %m2 = load i32, ptr @enzyme_const
  %m3 = load i32, ptr @enzyme_dup
  %r2 = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %m1, ptr %p, i32 %m2, i32 %n, i32 %m3, double %y, double %dy)
  ; umbra_ markers as addresses; dupnoneed
  %r3 = call double (ptr, ...) @__umbra_fwddiff(ptr @f, ptr @umbra_dupnoneed, ptr %p, ptr %dp, ptr @umbra_const, i32 %n, ptr @umbra_const, double %y)
  %a = fadd double %r1, %r2
  %b = fadd double %a, %r3
  ret double %b
}

; The markers and request declarations are gone.
; CHECK-NOT:   @enzyme_dup
; CHECK-NOT:   @enzyme_const
; CHECK-NOT:   @umbra_const
; CHECK-NOT:   @umbra_dupnoneed
; CHECK-NOT:   fwddiff(

; CHECK-LABEL: define double @caller(ptr %p, ptr %dp, i32 %n, double %y, double %dy)
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[C1:%.*]] = call { double, double } @fwddiffe.f.dcd(ptr %p, ptr %dp, i32 %n, double %y, double %dy)
; CHECK-NEXT:    [[R1:%.*]] = extractvalue { double, double } [[C1]], 1
; CHECK-NEXT:    [[C2:%.*]] = call { double, double } @fwddiffe.f.ccd(ptr %p, i32 %n, double %y, double %dy)
; CHECK-NEXT:    [[R2:%.*]] = extractvalue { double, double } [[C2]], 1
; CHECK-NEXT:    [[C3:%.*]] = call { double, double } @fwddiffe.f.ncc(ptr %p, ptr %dp, i32 %n, double %y)
; CHECK-NEXT:    [[R3:%.*]] = extractvalue { double, double } [[C3]], 1
; CHECK-NEXT:    %a = fadd double [[R1]], [[R2]]
; CHECK-NEXT:    %b = fadd double %a, [[R3]]
; CHECK-NEXT:    ret double %b

; All active: d(v*y) = dv*y + v*dy.
; CHECK-LABEL: define internal { double, double } @fwddiffe.f.dcd(ptr %p, ptr %d.p, i32 %n, double %y, double %d.y)
; CHECK:         %v = load double, ptr %p, align 8
; CHECK-NEXT:    [[DV:%.*]] = load double, ptr %d.p, align 8
; CHECK-NEXT:    %m = fmul double %v, %y
; CHECK-NEXT:    [[A:%.*]] = fmul double [[DV]], %y
; CHECK-NEXT:    [[B:%.*]] = fmul double %v, %d.y
; CHECK-NEXT:    [[DM:%.*]] = fadd double [[A]], [[B]]

; Constant pointer: no shadow load, d(v*y) = v*dy.
; CHECK-LABEL: define internal { double, double } @fwddiffe.f.ccd(ptr %p, i32 %n, double %y, double %d.y)
; CHECK:         %v = load double, ptr %p, align 8
; CHECK-NEXT:    %m = fmul double %v, %y
; CHECK-NEXT:    [[B:%.*]] = fmul double %v, %d.y
; CHECK-NEXT:    %fn = sitofp i32 %n to double

; Constant y: d(v*y) = dv*y.
; CHECK-LABEL: define internal { double, double } @fwddiffe.f.ncc(ptr %p, ptr %d.p, i32 %n, double %y)
; CHECK:         %v = load double, ptr %p, align 8
; CHECK-NEXT:    [[DV:%.*]] = load double, ptr %d.p, align 8
; CHECK-NEXT:    %m = fmul double %v, %y
; CHECK-NEXT:    [[A:%.*]] = fmul double [[DV]], %y
; CHECK-NEXT:    %fn = sitofp i32 %n to double

; CHECK-NOT:   @enzyme_dup
; CHECK-NOT:   @enzyme_const
; CHECK-NOT:   @umbra_const
; CHECK-NOT:   @umbra_dupnoneed
; CHECK-NOT:   fwddiff(
