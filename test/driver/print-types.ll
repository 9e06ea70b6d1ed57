; --print-types shows what each access to differentiable memory carries in reverse mode:
; floating-point loads and stores, the element type inferred for a memcpy, and integers
; with their TBAA type.
; RUN: %umbra %s --print-types --emit=llvm-ir -O0 -o %t.ll 2>&1 | FileCheck %s
; RUN: %opt-umbra '-passes=umbra<print-types>' %s -o %t.opt.ll 2>&1 | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define void @f(ptr %x, ptr %y, ptr %ni, ptr %no) {
  %v = load double, ptr %x, align 8
  %w = fmul double %v, %v
  store double %w, ptr %y, align 8
  %n = load i32, ptr %ni, align 4, !tbaa !1
  store i32 %n, ptr %no, align 4, !tbaa !1
  call void @llvm.memcpy.p0.p0.i64(ptr %x, ptr %y, i64 8, i1 false)
  ret void
}

; CHECK-LABEL: memory types of @f in @augfwd.f.dddd{{(\.s)?}}:
; CHECK-NEXT:    %v = load double, ptr %x, align 8: double
; CHECK-NEXT:    store double %w, ptr %y, align 8: double
; CHECK-NEXT:    %n = load i32, ptr %ni, align 4: i32 (TBAA 'int')
; CHECK-NEXT:    store i32 %n, ptr %no, align 4: i32 (TBAA 'int')
; CHECK-NEXT:    call void @llvm.memcpy.p0.p0.i64(ptr %x, ptr %y, i64 8, i1 false): double elements

define void @caller(ptr %x, ptr %dx, ptr %y, ptr %dy, ptr %ni, ptr %dni, ptr %no, ptr %dno) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, ptr %y, ptr %dy, ptr %ni, ptr %dni, ptr %no, ptr %dno)
  ret void
}

!0 = !{!"omnipotent char", !2, i64 0}
!1 = !{!3, !3, i64 0}
!2 = !{!"Simple C/C++ TBAA"}
!3 = !{!"int", !0, i64 0}
