; Mutual recursion: f calls g and g calls f; each derived function calls the other's, and each
; is generated once.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)

define double @f(double %x, i32 %n) {
entry:
  %c = icmp sle i32 %n, 0
  br i1 %c, label %done, label %more

done:
  ret double %x

more:
  %n1 = sub i32 %n, 1
  %sq = fmul double %x, %x
  %r = call double @g(double %sq, i32 %n1)
  ret double %r
}

define double @g(double %y, i32 %n) {
entry:
  %h = fmul double %y, 5.000000e-01
  %r = call double @f(double %h, i32 %n)
  ret double %r
}

define double @caller(double %x, double %dx, i32 %n) {
entry:
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx, i32 %n)
  ret double %r
}

; CHECK-LABEL: define double @caller(
; CHECK:         call { double, double } @fwddiffe.f.dc(double %x, double %dx, i32 %n)

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.dc(double %x, double %d.x, i32 %n)
; CHECK:         %sq = fmul double %x, %x
; CHECK-NEXT:    [[DD:%.*]] = fadd double %d.x, %d.x
; CHECK-NEXT:    [[DSQ:%.*]] = fmul double [[DD]], %x
; CHECK-NEXT:    [[C:%.*]] = call { double, double } @fwddiffe.g.dc(double %sq, double [[DSQ]], i32 %n1)
; CHECK-NEXT:    %r = extractvalue { double, double } [[C]], 0
; CHECK-NEXT:    [[DR:%.*]] = extractvalue { double, double } [[C]], 1
; CHECK-NEXT:    [[P:%.*]] = insertvalue { double, double } poison, double %r, 0
; CHECK-NEXT:    insertvalue { double, double } [[P]], double [[DR]], 1

; CHECK-LABEL: define internal { double, double } @fwddiffe.g.dc(double %y, double %d.y, i32 %n)
; CHECK:         %h = fmul double %y, 5.000000e-01
; CHECK-NEXT:    [[DH:%.*]] = fmul double %d.y, 5.000000e-01
; CHECK-NEXT:    [[C:%.*]] = call { double, double } @fwddiffe.f.dc(double %h, double [[DH]], i32 %n)
; CHECK-NEXT:    %r = extractvalue { double, double } [[C]], 0
; CHECK-NEXT:    [[DR:%.*]] = extractvalue { double, double } [[C]], 1
; CHECK-NEXT:    [[P:%.*]] = insertvalue { double, double } poison, double %r, 0
; CHECK-NEXT:    insertvalue { double, double } [[P]], double [[DR]], 1
; CHECK-NOT:   define {{.*}}@fwddiffe.
