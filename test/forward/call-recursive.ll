; Self recursion: the derived function calls itself (the same activity) and takes primal and
; tangent from the returned pair.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)

; x^n = x^(n-1) * x
define double @pow_rec(double %x, i32 %n) {
entry:
  %c = icmp eq i32 %n, 0
  br i1 %c, label %base, label %rec

base:
  ret double 1.000000e+00

rec:
  %n1 = sub i32 %n, 1
  %p = call double @pow_rec(double %x, i32 %n1)
  %m = fmul double %p, %x
  ret double %m
}

define double @caller(double %x, double %dx, i32 %n) {
entry:
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @pow_rec, double %x, double %dx, i32 %n)
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.pow_rec.dc(double %x, double %d.x, i32 %n)
; CHECK:         %c = icmp eq i32 %n, 0
; CHECK-NEXT:    br i1 %c, label %[[BASE:[0-9]+]], label %[[REC:[0-9]+]]
; CHECK:       [[BASE]]:
; CHECK-NEXT:    ret { double, double } { double 1.000000e+00, double 0.000000e+00 }
; CHECK:       [[REC]]:
; CHECK-NEXT:    %n1 = sub i32 %n, 1
; CHECK-NEXT:    [[C:%.*]] = call { double, double } @fwddiffe.pow_rec.dc(double %x, double %d.x, i32 %n1)
; CHECK-NEXT:    %p = extractvalue { double, double } [[C]], 0
; CHECK-NEXT:    [[DP:%.*]] = extractvalue { double, double } [[C]], 1
; CHECK-NEXT:    %m = fmul double %p, %x
; CHECK-NEXT:    [[A:%.*]] = fmul double [[DP]], %x
; CHECK-NEXT:    [[B:%.*]] = fmul double %p, %d.x
; CHECK-NEXT:    [[DM:%.*]] = fadd double [[A]], [[B]]
; CHECK-NEXT:    [[R:%.*]] = insertvalue { double, double } poison, double %m, 0
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[DM]], 1
; Only one derived function.
; CHECK-NOT:   define {{.*}}@fwddiffe.
