; A read-only input read in a loop while the function writes a fresh heap buffer (kron_sum's
; shape): the buffer cannot alias the input, so the adjoint re-reads x[i] instead of taping
; it, and nothing is pushed per iteration. The sum's adjoint needs none of k's values, so the
; free of k stays where it is (nothing defers it) and k's loads are neither re-read nor taped.
; The overwrite analysis says so in --print-types.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o /dev/null --print-types 2>&1 | FileCheck --check-prefix=TYPES %s

declare void @__enzyme_autodiff(ptr, ...)
declare noalias ptr @malloc(i64)
declare void @free(ptr)

; k = malloc(8n); for i: k[i] = x[i] * x[i]; s = sum k; free(k); return s
define double @f(ptr %x, i64 %n) {
entry:
  %bytes = shl i64 %n, 3
  %k = call ptr @malloc(i64 %bytes)
  br label %fill

fill:
  %i = phi i64 [ 0, %entry ], [ %i1, %fill ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %px, align 8
  %sq = fmul double %v, %v
  %pk = getelementptr inbounds double, ptr %k, i64 %i
  store double %sq, ptr %pk, align 8
  %i1 = add i64 %i, 1
  %more = icmp ult i64 %i1, %n
  br i1 %more, label %fill, label %sum

sum:
  %j = phi i64 [ 0, %fill ], [ %j1, %sum ]
  %s = phi double [ 0.0, %fill ], [ %s1, %sum ]
  %qk = getelementptr inbounds double, ptr %k, i64 %j
  %w = load double, ptr %qk, align 8
  %s1 = fadd double %s, %w
  %j1 = add i64 %j, 1
  %again = icmp ult i64 %j1, %n
  br i1 %again, label %sum, label %done

done:
  call void @free(ptr %k)
  ret double %s1
}

define void @caller(ptr %x, ptr %dx, i64 %n) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, i64 %n)
  ret void
}

; TYPES: overwrites of @f (memory stable):
; TYPES:   %v = load double, ptr %px, align 8: re-read
; TYPES:   %w = load double, ptr %qk, align 8: cached: its block is freed by call void @free(ptr %k)
; TYPES-NOT: deferred free

; The loops push nothing per iteration (only their last index, once, at their exits). The
; gradient request ignores the primal result, so the sum is not computed, and then k is only
; written and freed: the forward sweep neither allocates nor fills it (reverse/unread_primal.rs).
; Only k's shadow is allocated.
; CHECK-LABEL: define internal double @augfwd.f.dc{{[.a-z]*}}(ptr %tape, ptr %x, ptr %d.x, i64 %n)
; CHECK:         [[DK:%[0-9]+]] = call ptr @malloc(i64 %bytes)
; CHECK-NEXT:    call void @llvm.memset.p0.i64(ptr align 1 [[DK]], i8 0
; CHECK-NOT:     @malloc
; CHECK:         %i = phi i64
; CHECK-NOT:     @umbra.tape.push
; CHECK-NOT:     store double
; CHECK:         br i1 %more
; CHECK:         %j = phi i64
; CHECK-NOT:     @umbra.tape.push
; CHECK:         br i1 %again
; CHECK-NOT:     @free
; CHECK:         ret double poison

; The adjoint re-reads x[i] for the product's adjoint.
; CHECK-LABEL: define internal void @adjoint.f.dc{{[.a-z]*}}(ptr %tape, ptr %x, ptr %d.x, i64 %n, double %dret)
; CHECK:         [[P:%[0-9]+]] = getelementptr inbounds double, ptr %x, i64 [[I:%[0-9]+]]
; CHECK-NEXT:    [[V:%[0-9]+]] = load double, ptr [[P]]
