; llvm.powi(x, n) = x^n: the tangent is n * x^(n-1) * dx; the integer exponent has none.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)
declare double @llvm.powi.f64.i32(double, i32)

define double @f(double %x, i32 %n) {
entry:
  %p = call double @llvm.powi.f64.i32(double %x, i32 %n)
  ret double %p
}

define double @caller(double %x, double %dx, i32 %n) {
entry:
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx, i32 %n)
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.dc(double %x, double %d.x, i32 %n)
; CHECK:         %p = call double @llvm.powi.f64.i32(double %x, i32 %n)
; CHECK-NEXT:    [[NM1:%.*]] = sub i32 %n, 1
; CHECK-NEXT:    [[Q:%.*]] = call double @llvm.powi.f64.i32(double %x, i32 [[NM1]])
; CHECK-NEXT:    [[NF:%.*]] = sitofp i32 %n to double
; CHECK-NEXT:    [[N0:%.*]] = icmp eq i32 %n, 0
; CHECK-NEXT:    [[NQ:%.*]] = fmul double [[NF]], [[Q]]
; The partial is 0 for n = 0 (x^0 is constant), never 0 * powi(0, -1) = NaN.
; CHECK-NEXT:    [[PART:%.*]] = select i1 [[N0]], double 0.000000e+00, double [[NQ]]
; CHECK-NEXT:    [[DP:%.*]] = fmul double [[PART]], %d.x
; A power's partial may be infinite (x = 0, n < 0): a zero tangent contributes exactly zero.
; CHECK-NEXT:    [[Z:%.*]] = fcmp oeq double %d.x, 0.000000e+00
; CHECK-NEXT:    [[SZ:%.*]] = select i1 [[Z]], double 0.000000e+00, double [[DP]]
; CHECK-NEXT:    [[R:%.*]] = insertvalue { double, double } poison, double %p, 0
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[SZ]], 1
