; Batched forward mode computes the N tangents of a scalar double as one <N x double> vector
; operation: partials are built once on the primal scalars and broadcast (fadd, fmul, fdiv with
; its strong zero, a math call's partial), selections pick whole vectors on the primal
; condition, conversions convert whole vectors, phis carry vectors. The caller's aggregate
; (four doubles) is kept at the request's boundary. Re-optimised at -O2 the vector code stays.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s
; RUN: %opt-umbra -passes='umbra,default<O2>' %s | FileCheck %s --check-prefix=O2
; RUN: %umbra %s --emit=llvm-ir -O2 -o - | FileCheck %s --check-prefix=O2

declare { double, double, double, double } @__enzyme_fwddiff(ptr, ...)
declare double @llvm.sin.f64(double)
@enzyme_width = external global i32
@enzyme_const = external global i32

define double @f(double %x, double %y, i32 %n) {
entry:
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %sx = fmul double %s, %x
  %s1 = fadd double %s, 1.0
  %ys = fmul double %y, %s1
  %q = fdiv double %ys, %x
  %sn = call double @llvm.sin.f64(double %q)
  %c = fcmp olt double %sn, %sx
  %m = select i1 %c, double %sn, double %sx
  %t = fptrunc double %m to float
  %e = fpext float %t to double
  %s.next = fadd double %sx, %e
  %i.next = add i32 %i, 1
  %done = icmp sge i32 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  ret double %s.next
}

define { double, double, double, double } @caller(double %x, ptr %dx, double %y, ptr %dy, i32 %n) {
entry:
  %w = load i32, ptr @enzyme_width
  %k = load i32, ptr @enzyme_const
  %dx0 = load double, ptr %dx
  %dx1p = getelementptr double, ptr %dx, i64 1
  %dx1 = load double, ptr %dx1p
  %dx2p = getelementptr double, ptr %dx, i64 2
  %dx2 = load double, ptr %dx2p
  %dx3p = getelementptr double, ptr %dx, i64 3
  %dx3 = load double, ptr %dx3p
  %dy0 = load double, ptr %dy
  %dy1p = getelementptr double, ptr %dy, i64 1
  %dy1 = load double, ptr %dy1p
  %dy2p = getelementptr double, ptr %dy, i64 2
  %dy2 = load double, ptr %dy2p
  %dy3p = getelementptr double, ptr %dy, i64 3
  %dy3 = load double, ptr %dy3p
  %r = call { double, double, double, double } (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %w, i32 4, double %x, double %dx0, double %dx1, double %dx2, double %dx3, double %y, double %dy0, double %dy1, double %dy2, double %dy3, i32 %k, i32 %n)
  ret { double, double, double, double } %r
}

; CHECK-LABEL: define {{.*}}{ double, double, double, double } @caller(
; CHECK: [[DX:%.*]] = insertelement <4 x double> {{.*}}, i32 3
; CHECK: [[DY:%.*]] = insertelement <4 x double> {{.*}}, i32 3
; CHECK: [[R:%.*]] = call { double, <4 x double> } @fwddiffe.f.ddc.w4(double %x, <4 x double> [[DX]], double %y, <4 x double> [[DY]], i32 %n)
; CHECK: [[T:%.*]] = extractvalue { double, <4 x double> } [[R]], 1
; CHECK: extractelement <4 x double> [[T]], i32 0
; CHECK: insertvalue { double, double, double, double }
; CHECK: extractelement <4 x double> [[T]], i32 3
; CHECK: insertvalue { double, double, double, double }

; CHECK-LABEL: define internal { double, <4 x double> } @fwddiffe.f.ddc.w4(double %x, <4 x double> %d.x, double %y, <4 x double> %d.y, i32 %n)
; CHECK: [[DS:%.*]] = phi <4 x double> [ zeroinitializer,
; CHECK: %sx = fmul double %s, %x
; CHECK: [[XS:%.*]] = shufflevector <4 x double> {{.*}}, <4 x i32> zeroinitializer
; CHECK: [[A:%.*]] = fmul <4 x double> [[DS]], [[XS]]
; CHECK: [[B:%.*]] = fmul <4 x double> {{.*}}, %d.x
; CHECK: [[DSX:%.*]] = fadd <4 x double> [[A]], [[B]]
; CHECK: %q = fdiv double %ys, %x
; CHECK: [[NUM:%.*]] = fsub <4 x double>
; CHECK: [[QV:%.*]] = fdiv arcp <4 x double> [[NUM]],
; CHECK: [[Z:%.*]] = fcmp oeq <4 x double> [[NUM]], zeroinitializer
; CHECK: [[DQ:%.*]] = select <4 x i1> [[Z]], <4 x double> zeroinitializer, <4 x double> [[QV]]
; CHECK: %sn = call double @llvm.sin.f64(double %q)
; CHECK: [[DSN:%.*]] = fmul <4 x double> {{.*}}, [[DQ]]
; CHECK: %m = select i1 %c, double %sn, double %sx
; CHECK: [[DM:%.*]] = select i1 %c, <4 x double> [[DSN]], <4 x double> [[DSX]]
; CHECK: [[DT:%.*]] = fptrunc <4 x double> [[DM]] to <4 x float>
; CHECK: [[DE:%.*]] = fpext <4 x float> [[DT]] to <4 x double>
; CHECK: fadd <4 x double> [[DSX]], [[DE]]
; CHECK: ret { double, <4 x double> }

; The re-optimised loop still computes the tangents as vectors; the tangent's division by
; the loop-invariant %x (an `arcp` quotient) is a multiplication by its reciprocal, computed
; once before the loop.
; O2-LABEL: define {{.*}} @caller(
; O2: [[RX:%.*]] = fdiv arcp <4 x double> splat (double 1.000000e+00),
; O2: phi <4 x double>
; O2-NOT: fdiv {{.*}}<4 x double>
; O2: fmul arcp <4 x double> [[RX]],
; O2: select i1 {{.*}}, <4 x double>
; O2: fptrunc <4 x double> {{.*}} to <4 x float>
; O2: fadd <4 x double>
