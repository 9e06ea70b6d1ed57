; Reverse mode of BLAS calls whose input arrays nothing changes before the adjoint: the
; adjoint reads them where they are, and the augmented sweep copies nothing (Enzyme's
; uncacheable-argument analysis for BLAS). An input is copied when the call itself may write
; it (its output may alias it), when a later instruction may write it, when the caller may
; write it before the adjoint, or when it lives on the stack. A heap block the function frees
; after the call is freed by the adjoint instead (a deferred free).
; RUN: %umbra %s --print-types --emit=llvm-ir -O0 -o %t.ll 2>&1 | FileCheck %s --check-prefix=WHY
; RUN: FileCheck %s < %t.ll
; RUN: %opt-umbra '-passes=umbra<print-types>' %s -S -o %t.opt.ll 2>&1 | FileCheck %s --check-prefix=WHY
; RUN: FileCheck %s < %t.opt.ll

declare void @__enzyme_autodiff(ptr, ...)
declare void @cblas_dgemv(i32, i32, i32, i32, double, ptr, i32, ptr, i32, double, ptr, i32)
declare double @cblas_ddot(i32, ptr, i32, ptr, i32)
declare ptr @malloc(i64)
declare void @free(ptr)

; y = 2 A x (row-major 3 x 2), nothing written afterwards: A and x read in place.
define void @stable(ptr noalias %A, ptr noalias %x, ptr noalias %y) {
  call void @cblas_dgemv(i32 101, i32 111, i32 3, i32 2, double 2.0, ptr %A, i32 2, ptr %x, i32 1, double 0.0, ptr %y, i32 1)
  ret void
}

; WHY-LABEL: overwrites of @stable (memory stable):
; WHY-NEXT:    call void @cblas_dgemv({{.*}}): argument 5 read in place
; WHY-NEXT:    call void @cblas_dgemv({{.*}}): argument 7 read in place

; CHECK-LABEL: define internal void @augfwd.stable
; CHECK-NOT:     @cblas_dcopy
; CHECK-NOT:     @umbra.blas.dgecopy
; CHECK:         call void @cblas_dgemv(
; CHECK:         ret void

; Without noalias, the output may be either input.
define void @aliased(ptr %A, ptr %x, ptr %y) {
  call void @cblas_dgemv(i32 101, i32 111, i32 3, i32 2, double 2.0, ptr %A, i32 2, ptr %x, i32 1, double 0.0, ptr %y, i32 1)
  ret void
}

; WHY-LABEL: overwrites of @aliased (memory stable):
; WHY-NEXT:    call void @cblas_dgemv({{.*}}): argument 5 copied: the call itself may write it
; WHY-NEXT:    call void @cblas_dgemv({{.*}}): argument 7 copied: the call itself may write it

; CHECK-LABEL: define internal void @augfwd.aliased
; CHECK:         call void @umbra.blas.dgecopy.i32(
; CHECK:         call void @cblas_dcopy(
; CHECK:         call void @cblas_dgemv(
; CHECK:         ret void

; x is changed after the call: copied; A is not: read in place.
define void @later(ptr noalias %A, ptr noalias %x, ptr noalias %y) {
  call void @cblas_dgemv(i32 101, i32 111, i32 3, i32 2, double 2.0, ptr %A, i32 2, ptr %x, i32 1, double 0.0, ptr %y, i32 1)
  store double 0.0, ptr %x
  ret void
}

; WHY-LABEL: overwrites of @later (memory stable):
; WHY-NEXT:    call void @cblas_dgemv({{.*}}): argument 5 read in place
; WHY-NEXT:    call void @cblas_dgemv({{.*}}): argument 7 copied: may be overwritten by store double 0.000000e+00, ptr %x

; A heap copy of x, freed after the dot: read in place, its free deferred to the adjoint. The
; stack copy is always copied.
define double @freed(ptr noalias %x) {
  %h = call ptr @malloc(i64 16)
  call void @llvm.memcpy.p0.p0.i64(ptr %h, ptr %x, i64 16, i1 false)
  %s = alloca [2 x double]
  call void @llvm.memcpy.p0.p0.i64(ptr %s, ptr %x, i64 16, i1 false)
  %d = call double @cblas_ddot(i32 2, ptr %h, i32 1, ptr %s, i32 1)
  call void @free(ptr %h)
  ret double %d
}
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

; WHY-LABEL: overwrites of @freed (memory stable):
; WHY:         %d = call double @cblas_ddot({{.*}}): argument 1 read in place
; WHY-NEXT:    %d = call double @cblas_ddot({{.*}}): argument 3 copied: reads a stack slot, dead when the adjoint runs
; WHY-NEXT:    deferred free: call void @free(ptr %h)

; Called from a function that writes A afterwards: the caller may write it.
define void @inner(ptr noalias %A, ptr noalias %x, ptr noalias %y) noinline {
  call void @cblas_dgemv(i32 101, i32 111, i32 3, i32 2, double 2.0, ptr %A, i32 2, ptr %x, i32 1, double 0.0, ptr %y, i32 1)
  ret void
}
define void @outer(ptr noalias %A, ptr noalias %x, ptr noalias %y) {
  call void @inner(ptr %A, ptr %x, ptr %y)
  store double 0.0, ptr %A
  ret void
}

; WHY-LABEL: overwrites of @inner (caller may write
; WHY-NEXT:    call void @cblas_dgemv({{.*}}): argument 5 copied: the caller may write %A before the adjoint
; WHY-NEXT:    call void @cblas_dgemv({{.*}}): argument 7 copied: the caller may write %x before the adjoint

define void @caller(ptr %A, ptr %dA, ptr %x, ptr %dx, ptr %y, ptr %dy) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @stable, ptr %A, ptr %dA, ptr %x, ptr %dx, ptr %y, ptr %dy)
  call void (ptr, ...) @__enzyme_autodiff(ptr @aliased, ptr %A, ptr %dA, ptr %x, ptr %dx, ptr %y, ptr %dy)
  call void (ptr, ...) @__enzyme_autodiff(ptr @later, ptr %A, ptr %dA, ptr %x, ptr %dx, ptr %y, ptr %dy)
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @freed, ptr %x, ptr %dx)
  call void (ptr, ...) @__enzyme_autodiff(ptr @outer, ptr %A, ptr %dA, ptr %x, ptr %dx, ptr %y, ptr %dy)
  ret void
}
