; One derived function per (function, activity): two requests with the same activities share
; @fwddiffe.g.dd, and g's two calls of sq share @fwddiffe.sq.d.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)

define double @sq(double %x) {
entry:
  %m = fmul double %x, %x
  ret double %m
}

define double @g(double %x, double %y) {
entry:
  %a = call double @sq(double %x)
  %b = call double @sq(double %y)
  %s = fadd double %a, %b
  ret double %s
}

define double @caller(double %a, double %da, double %b, double %db) {
entry:
  %r1 = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, double %a, double %da, double %b, double %db)
  %r2 = call double (ptr, ...) @__enzyme_fwddiff(ptr @g, double %b, double %db, double %a, double %da)
  %r = fadd double %r1, %r2
  ret double %r
}

; CHECK-LABEL: define double @caller(
; CHECK:         call { double, double } @fwddiffe.g.dd(double %a, double %da, double %b, double %db)
; CHECK:         call { double, double } @fwddiffe.g.dd(double %b, double %db, double %a, double %da)

; CHECK-LABEL: define internal { double, double } @fwddiffe.g.dd(double %x, double %d.x, double %y, double %d.y)
; CHECK:         [[CA:%.*]] = call { double, double } @fwddiffe.sq.d(double %x, double %d.x)
; CHECK:         [[CB:%.*]] = call { double, double } @fwddiffe.sq.d(double %y, double %d.y)
; CHECK-NOT:   define {{.*}}@fwddiffe.
; CHECK-LABEL: define internal { double, double } @fwddiffe.sq.d(double %x, double %d.x)
; CHECK-NOT:   define {{.*}}@fwddiffe.
