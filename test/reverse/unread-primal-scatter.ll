; A gradient request ignores the primal result. The primal fills a heap block with a scatter
; (which LLVM's dead-store elimination does not remove) and reads one element back for the
; result: once the result is known unread, the block is only written and freed, and the
; augmented sweep drops it with its scatter and free (reverse/unread_primal.rs). Its shadow
; is still allocated, written by nothing and read by the adjoint.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)
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

; CHECK-LABEL: define internal double @augfwd.f.d{{[.a-z]*}}(ptr %tape, ptr %x, ptr %d.x)
; CHECK-NEXT:    [[DK:%[0-9]+]] = call ptr @malloc(i64 256)
; CHECK-NEXT:    call void @llvm.memset.p0.i64(ptr align 1 [[DK]], i8 0, i64 256, i1 false)
; CHECK-NOT:     @malloc
; CHECK-NOT:     @llvm.masked.scatter
; CHECK-NOT:     @free
; CHECK:         ret double poison

; The adjoint reads the scatter's lanes from k's shadow.
; CHECK-LABEL: define internal void @adjoint.f.d{{[.a-z]*}}(
; CHECK:         call <4 x double> @llvm.masked.gather.v4f64.v4p0(
; CHECK:         call void @free(

define void @grad(ptr %x, ptr %dx) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr @enzyme_dup, ptr %x, ptr %dx)
  ret void
}
