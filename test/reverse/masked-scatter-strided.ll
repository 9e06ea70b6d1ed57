; The adjoint of a scatter and a gather whose lanes are provably apart (a splat index plus
; distinct constants, as the vectoriser writes a strided access): one masked gather and one
; masked scatter of the shadow serve all lanes, instead of one pair per lane (which lanes that
; may share an address need: a scatter's highest lane wins).
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)
declare void @llvm.masked.scatter.v4f64.v4p0(<4 x double>, <4 x ptr>, <4 x i1>)
declare <4 x double> @llvm.masked.gather.v4f64.v4p0(<4 x ptr>, <4 x i1>, <4 x double>)
@enzyme_dup = external global i32

define void @f(ptr %y, ptr %x, i64 %i) {
  %xv = load <4 x double>, ptr %x, align 8
  %sq = fmul <4 x double> %xv, %xv
  %s0 = insertelement <4 x i64> poison, i64 %i, i64 0
  %s = shufflevector <4 x i64> %s0, <4 x i64> poison, <4 x i32> zeroinitializer
  %idx = add <4 x i64> %s, <i64 0, i64 5, i64 10, i64 15>
  %at = getelementptr inbounds double, ptr %y, <4 x i64> %idx
  %g = call <4 x double> @llvm.masked.gather.v4f64.v4p0(<4 x ptr> %at, <4 x i1> splat (i1 true), <4 x double> zeroinitializer)
  %h = fmul <4 x double> %g, %sq
  call void @llvm.masked.scatter.v4f64.v4p0(<4 x double> %h, <4 x ptr> %at, <4 x i1> splat (i1 true))
  ret void
}

; CHECK-LABEL: define {{.*}}@adjoint.f
; CHECK: call <4 x double> @llvm.masked.gather.v4f64.v4p0(<4 x ptr> [[AT:%.*]], <4 x i1> splat (i1 true)
; CHECK-NEXT: call void @llvm.masked.scatter.v4f64.v4p0(<4 x double> zeroinitializer, <4 x ptr> [[AT]], <4 x i1> splat (i1 true))
; CHECK-NOT: masked.scatter
; CHECK: call <4 x double> @llvm.masked.gather.v4f64.v4p0(
; CHECK-NEXT: fadd <4 x double>
; CHECK-NEXT: call void @llvm.masked.scatter.v4f64.v4p0(
; CHECK-NOT: masked.
; CHECK: ret
define void @grad(ptr %y, ptr %dy, ptr %x, ptr %dx, i64 %i) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr @enzyme_dup, ptr %y, ptr %dy, ptr @enzyme_dup, ptr %x, ptr %dx, i64 %i)
  ret void
}
