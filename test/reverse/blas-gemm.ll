; Reverse mode of a cblas_dgemm call: the augmented sweep saves what the adjoint needs
; (copies of A and B, through the column-wise copy helper) in one malloc'd buffer and
; runs the primal gemm; the adjoint sweep's gradient is two gemm calls on the shadows
; (dA += alpha dC op(B)^T, dB += alpha op(A)^T dC), then dC *= beta, then the buffer is
; freed.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)
declare void @cblas_dgemm(i32, i32, i32, i32, i32, i32, double, ptr, i32, ptr, i32, double, ptr, i32)

; C = 1.5 A B + 0.5 C, all 2 x 2, column-major
define void @f(ptr %A, ptr %B, ptr %C) {
entry:
  call void @cblas_dgemm(i32 102, i32 111, i32 111, i32 2, i32 2, i32 2, double 1.5, ptr %A, i32 2, ptr %B, i32 2, double 5.000000e-01, ptr %C, i32 2)
  ret void
}

define void @caller(ptr %A, ptr %dA, ptr %B, ptr %dB, ptr %C, ptr %dC) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %A, ptr %dA, ptr %B, ptr %dB, ptr %C, ptr %dC)
  ret void
}

; CHECK-LABEL: define internal void @augfwd.f
; CHECK:         [[BUF:%.*]] = call ptr @malloc(i64
; CHECK:         call void @umbra.blas.dgecopy.i32(
; CHECK:         call void @umbra.blas.dgecopy.i32(
; CHECK:         call void @cblas_dgemm(i32 102, i32 111, i32 111, i32 2, i32 2, i32 2, double 1.500000e+00, ptr %A, i32 2, ptr %B, i32 2, double 5.000000e-01, ptr %C, i32 2)
; CHECK:         ret void

; CHECK-LABEL: define internal void @adjoint.f
; CHECK:         [[BUF:%.*]] = load ptr, ptr
; CHECK-NOT:     call void @cblas_dgemm
; CHECK:         call void @cblas_dgemm({{.*}}, double 1.000000e+00, ptr %d.A, i32 {{%?[0-9]+}})
; CHECK-NOT:     call void @cblas_dgemm
; CHECK:         call void @cblas_dgemm({{.*}}, double 1.000000e+00, ptr %d.B, i32 {{%?[0-9]+}})
; CHECK-NOT:     call void @cblas_dgemm
; CHECK:         call void @umbra.blas.dgescale.i32({{.*}}, ptr %d.C, i32 [[LDC:%?[0-9]+]], ptr %d.C, i32 [[LDC]])
; CHECK-NEXT:    call void @free(ptr [[BUF]])
; CHECK-NOT:     call void @cblas_dgemm
; CHECK:         ret void
