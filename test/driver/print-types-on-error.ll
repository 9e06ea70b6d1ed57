; --print-types (and --print-activity) still print what they gathered when differentiation
; then refuses the function: the lines explain the refusal, and they come before the error.
; Before, a refusal dropped them, leaving only the error.
; RUN: not %umbra %s --print-types --emit=llvm-ir -O0 -o %t.ll 2>&1 | FileCheck %s
; RUN: not %opt-umbra '-passes=umbra<print-types>' %s -o %t.opt.ll 2>&1 | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)

; Half of a double copied as an untyped integer (no TBAA): refused in reverse mode.
define void @f(ptr %x, ptr %y) {
  %v = load double, ptr %x, align 8
  %w = fmul double %v, %v
  store double %w, ptr %y, align 8
  %n = load i32, ptr %x, align 8
  %q = getelementptr inbounds i8, ptr %y, i64 8
  store i32 %n, ptr %q, align 8
  ret void
}

; CHECK-LABEL: memory types of @f in @augfwd.f.dd{{(\.s)?}}:
; CHECK-NEXT:    %v = load double, ptr %x, align 8: double
; CHECK:       umbra: error: {{.*}}'store i32 %n, ptr %q, align 8': copies differentiable memory through an integer

define void @caller(ptr %x, ptr %dx, ptr %y, ptr %dy) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, ptr %y, ptr %dy)
  ret void
}
