; A directional derivative request extracts only the tangent from the forward function's
; {primal, tangent} result. The primal fills a heap block with a scatter (which LLVM's
; dead-store elimination does not remove) and reads one element back: once the primal field is
; known unread, the block is only written and freed, and the forward function drops it with its
; scatter and free (reverse/unread_primal.rs). The tangent's block (its shadow) keeps its
; scatter.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)
declare noalias ptr @malloc(i64)
declare void @free(ptr)
declare void @llvm.masked.scatter.v4f64.v4p0(<4 x double>, <4 x ptr>, <4 x i1>)
@enzyme_dup = external global i32

define double @f(ptr %x) {
  %k = call ptr @malloc(i64 256)
  %xv = load <4 x double>, ptr %x, align 8
  %sq = fmul <4 x double> %xv, %xv
  %at = getelementptr inbounds double, ptr %k, <4 x i64> <i64 0, i64 5, i64 10, i64 15>
  call void @llvm.masked.scatter.v4f64.v4p0(<4 x double> %sq, <4 x ptr> %at, <4 x i1> splat (i1 true))
  %p5 = getelementptr inbounds double, ptr %k, i64 5
  %v = load double, ptr %p5, align 8
  call void @free(ptr %k)
  ret double %v
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.d(
; CHECK:         call ptr @malloc(i64 256)
; CHECK:         call void @llvm.masked.scatter.v4f64.v4p0(
; CHECK-NOT:     @llvm.masked.scatter
; CHECK:         ret { double, double }

define double @tangent(ptr %x, ptr %dx) {
  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr @enzyme_dup, ptr %x, ptr %dx)
  ret double %t
}
