; --print-activity shows which values carry derivatives: integer code and values computed
; only from constant arguments are inactive.
; RUN: %umbra %s --print-activity --emit=llvm-ir -O0 -o %t.ll 2>&1 | FileCheck %s
; RUN: %opt-umbra '-passes=umbra<print-activity>' %s -o %t.opt.ll 2>&1 | FileCheck %s

@enzyme_const = external global i32

declare double @__enzyme_fwddiff(ptr, ...)

define double @f(double %x, double %c, i32 %n) {
  %k = sitofp i32 %n to double
  %cc = fmul double %c, %k
  %y = fmul double %x, %x
  %z = fadd double %y, %cc
  ret double %z
}

; CHECK-LABEL: activity of @f in @fwddiffe.f.dcc:
; CHECK-NEXT:    param %x: Dup
; CHECK-NEXT:    param %c: Const
; CHECK-NEXT:    param %n: Const
; CHECK-NEXT:    active: %y = fmul double %x, %x
; CHECK-NEXT:    active: %z = fadd double %y, %cc
; CHECK-NOT:     active:

define double @caller(double %x, double %c, i32 %n) {
  %m = load i32, ptr @enzyme_const
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0, i32 %m, double %c, i32 %n)
  ret double %d
}
