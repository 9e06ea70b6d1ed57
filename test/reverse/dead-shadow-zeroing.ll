; The adjoint of a store clears the shadow bytes it wrote only when the adjoint of something that
; ran before the store reads them afterwards. @once writes each entry of a scratch block once,
; then sums the block and frees it: no clearing is left. @shifted writes entry i + 1, then reads
; and rewrites entry i, which the previous iteration wrote: the rewrite's adjoint must clear what
; that earlier store's adjoint reads; the clearing of the first entry's store and of each
; entry's first store is dead. (test/integration/reverse/shadow-zeroing.c checks such
; gradients.)
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s
; RUN: %opt-umbra '-passes=umbra<reopt=O0>' %s | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)
declare noalias ptr @malloc(i64)
declare void @free(ptr)

define internal double @once(ptr %x) {
entry:
  %k = call noalias ptr @malloc(i64 64)
  br label %fill

fill:
  %i = phi i64 [ 0, %entry ], [ %i1, %fill ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %px, align 8
  %sq = fmul double %v, %v
  %pk = getelementptr inbounds double, ptr %k, i64 %i
  store double %sq, ptr %pk, align 8
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
  %d = icmp eq i64 %j1, 8
  br i1 %d, label %done, label %sum

done:
  call void @free(ptr %k)
  ret double %s1
}

define internal double @shifted(ptr %x) {
entry:
  %k = call noalias ptr @malloc(i64 72)
  store double 1.0, ptr %k, align 8
  br label %fill

fill:
  %i = phi i64 [ 0, %entry ], [ %i1, %fill ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %px, align 8
  %sq = fmul double %v, %v
  %i1 = add nuw nsw i64 %i, 1
  %pnext = getelementptr inbounds double, ptr %k, i64 %i1
  store double %sq, ptr %pnext, align 8
  %pk = getelementptr inbounds double, ptr %k, i64 %i
  %old = load double, ptr %pk, align 8
  %cube = fmul double %old, %v
  store double %cube, ptr %pk, align 8
  %c = icmp eq i64 %i1, 8
  br i1 %c, label %sum, label %fill

sum:
  %j = phi i64 [ 0, %fill ], [ %j1, %sum ]
  %s = phi double [ 0.0, %fill ], [ %s1, %sum ]
  %qk = getelementptr inbounds double, ptr %k, i64 %j
  %w = load double, ptr %qk, align 8
  %s1 = fadd double %s, %w
  %j1 = add nuw nsw i64 %j, 1
  %d = icmp eq i64 %j1, 9
  br i1 %d, label %done, label %sum

done:
  call void @free(ptr %k)
  ret double %s1
}

define void @grad_once(ptr %x, ptr %dx) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @once, ptr %x, ptr %dx)
  ret void
}

define void @grad_shifted(ptr %x, ptr %dx) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @shifted, ptr %x, ptr %dx)
  ret void
}

; CHECK-LABEL: define internal void @adjoint.once
; CHECK-NOT:     store double 0.000000e+00
; CHECK:         ret void

; CHECK-LABEL: define internal void @adjoint.shifted
; CHECK:         [[SHADOW:%[0-9]+]] = getelementptr inbounds double, ptr %{{[0-9]+}}, i64
; CHECK:         store double 0.000000e+00, ptr [[SHADOW]]
; CHECK-NOT:     store double 0.000000e+00
; CHECK:         ret void
