; A scatter's adjoint (a gather of the shadow at the same lanes) clears those shadow lanes only
; when something that ran before the scatter touches them: each lane of the scatter is one
; store to the index reasoning, its address `k + 8·i + 32·Lane` for the lane's own number.
; @once writes columns of a scratch block, a strided scatter of four lanes per iteration, every
; entry once, then sums the block and frees it: no clearing is left. @twice scatters the same
; lanes in every iteration (the second pass overwrites what the first wrote): the clearing is
; needed. (test/integration/reverse/scatter-shadow-zeroing-avx512.c checks such gradients.)
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s
; RUN: %opt-umbra '-passes=umbra<reopt=O0>' %s | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)
declare noalias ptr @malloc(i64)
declare void @free(ptr)
declare void @llvm.masked.scatter.v4f64.v4p0(<4 x double>, <4 x ptr>, <4 x i1>)

define internal double @once(ptr %x) {
entry:
  %k = call noalias ptr @malloc(i64 256)
  br label %fill

fill:
  %i = phi i64 [ 0, %entry ], [ %i1, %fill ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %px, align 8
  %sq = fmul double %v, %v
  %ins = insertelement <4 x double> poison, double %sq, i64 0
  %vs = shufflevector <4 x double> %ins, <4 x double> poison, <4 x i32> zeroinitializer
  %ii = insertelement <4 x i64> poison, i64 %i, i64 0
  %si = shufflevector <4 x i64> %ii, <4 x i64> poison, <4 x i32> zeroinitializer
  %idx = add nuw nsw <4 x i64> %si, <i64 0, i64 8, i64 16, i64 24>
  %pk = getelementptr inbounds double, ptr %k, <4 x i64> %idx
  call void @llvm.masked.scatter.v4f64.v4p0(<4 x double> %vs, <4 x ptr> %pk, <4 x i1> splat (i1 true))
  %i1 = add nuw nsw i64 %i, 1
  %c = icmp eq i64 %i1, 8
  br i1 %c, label %sum, label %fill

sum:
  %j = phi i64 [ 0, %fill ], [ %j1, %sum ]
  %s = phi double [ 0.0, %fill ], [ %s1, %sum ]
  %qk = getelementptr inbounds double, ptr %k, i64 %j
  %w = load double, ptr %qk, align 8
  %s1 = fadd double %s, %w
  %j1 = add nuw nsw i64 %j, 1
  %d = icmp eq i64 %j1, 32
  br i1 %d, label %done, label %sum

done:
  call void @free(ptr %k)
  ret double %s1
}

define internal double @twice(ptr %x) {
entry:
  %k = call noalias ptr @malloc(i64 256)
  br label %fill

fill:
  %i = phi i64 [ 0, %entry ], [ %i1, %fill ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %px, align 8
  %sq = fmul double %v, %v
  %ins = insertelement <4 x double> poison, double %sq, i64 0
  %vs = shufflevector <4 x double> %ins, <4 x double> poison, <4 x i32> zeroinitializer
  %pk = getelementptr inbounds double, ptr %k, <4 x i64> <i64 0, i64 8, i64 16, i64 24>
  call void @llvm.masked.scatter.v4f64.v4p0(<4 x double> %vs, <4 x ptr> %pk, <4 x i1> splat (i1 true))
  %i1 = add nuw nsw i64 %i, 1
  %c = icmp eq i64 %i1, 2
  br i1 %c, label %sum, label %fill

sum:
  %j = phi i64 [ 0, %fill ], [ %j1, %sum ]
  %s = phi double [ 0.0, %fill ], [ %s1, %sum ]
  %qk = getelementptr inbounds double, ptr %k, i64 %j
  %w = load double, ptr %qk, align 8
  %s1 = fadd double %s, %w
  %j1 = add nuw nsw i64 %j, 1
  %d = icmp eq i64 %j1, 32
  br i1 %d, label %done, label %sum

done:
  call void @free(ptr %k)
  ret double %s1
}

define void @grad_once(ptr %x, ptr %dx) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @once, ptr %x, ptr %dx)
  ret void
}

define void @grad_twice(ptr %x, ptr %dx) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @twice, ptr %x, ptr %dx)
  ret void
}

; CHECK-LABEL: define internal void @adjoint.once
; CHECK:         call <4 x double> @llvm.masked.gather.v4f64.v4p0(<4 x ptr> [[SHADOW:%[0-9]+]]
; CHECK-NOT:     call void @llvm.masked.scatter
; CHECK:         ret void

; CHECK-LABEL: define internal void @adjoint.twice
; CHECK:         call <4 x double> @llvm.masked.gather.v4f64.v4p0(<4 x ptr> [[SHADOW:%[0-9]+]]
; CHECK-NEXT:    call void @llvm.masked.scatter.v4f64.v4p0(<4 x double> zeroinitializer, <4 x ptr> [[SHADOW]]
; CHECK:         ret void
