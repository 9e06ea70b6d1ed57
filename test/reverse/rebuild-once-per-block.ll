; A chain of products in one block, read from memory the adjoint may re-read: each product's
; adjoint needs the one before it, and the adjoint rebuilds the chain from the re-read inputs.
; Each product is rebuilt once for the whole block, not once per use (large_single_block's
; 400 products took 85,000 instructions and 4 s to compile when rebuilt per use).
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)
@enzyme_dup = external global i32

define double @f(ptr %x) {
  %x0 = load double, ptr %x, align 8
  %p = getelementptr inbounds double, ptr %x, i64 1
  %x1 = load double, ptr %p, align 8
  %m1 = fmul double %x0, %x1
  %m2 = fmul double %m1, %x1
  %m3 = fmul double %m2, %x1
  %m4 = fmul double %m3, %x1
  ret double %m4
}

; CHECK-LABEL: define internal void @adjoint.f.d{{[.a-z]*}}(
; CHECK:         [[X0:%[0-9]+]] = load double, ptr %x
; CHECK:         [[M1:%[0-9]+]] = fmul double [[X0]], [[X1:%[0-9]+]]
; CHECK-NOT:     fmul double [[X0]], [[X1]]
; CHECK:         [[M2:%[0-9]+]] = fmul double [[M1]], [[X1]]
; CHECK-NOT:     fmul double [[X0]], [[X1]]
; CHECK-NOT:     fmul double [[M1]], [[X1]]
; CHECK:         ret void

define void @grad(ptr %x, ptr %dx) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr @enzyme_dup, ptr %x, ptr %dx)
  ret void
}
