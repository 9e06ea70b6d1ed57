; Enzyme's other marker spellings: a metadata string (metadata !"enzyme_const"), a C++
; `static int enzyme_dup;` (internal, mangled _ZL10enzyme_dup) loaded as an int as template
; requests receive it, a namespace-scope marker (_ZN2ns12enzyme_constE), and a cast of a
; marker's address. Requests are C++-mangled names containing __enzyme_fwddiff.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

@_ZL10enzyme_dup = internal global i32 0
@_ZN2ns12enzyme_constE = external global i32
@umbra_dupnoneed = external global i32

declare double @_Z16__enzyme_fwddiffIdJiddEET_PvDpT0_(ptr, i32, double, double)
declare double @_Z16__enzyme_fwddiffPvz(ptr, ...)

; p[0] * y + n
define double @f(ptr %p, i32 %n, double %y) {
entry:
  %v = load double, ptr %p, align 8
  %m = fmul double %v, %y
  %fn = sitofp i32 %n to double
  %s = fadd double %m, %fn
  ret double %s
}

define double @sq(double %x) {
entry:
  %m = fmul double %x, %x
  ret double %m
}

define double @caller(ptr %p, ptr %dp, i32 %n, double %y, double %dy) {
entry:
  %md = load i32, ptr @_ZL10enzyme_dup
  %r1 = call double @_Z16__enzyme_fwddiffIdJiddEET_PvDpT0_(ptr @sq, i32 %md, double %y, double %dy)
  %mc = load i32, ptr @_ZN2ns12enzyme_constE
  %r2 = call double (ptr, ...) @_Z16__enzyme_fwddiffPvz(ptr @f, metadata !"enzyme_const", ptr %p, i32 %mc, i32 %n, i64 ptrtoint (ptr @_ZL10enzyme_dup to i64), double %y, double %dy)
  %r3 = call double (ptr, ...) @_Z16__enzyme_fwddiffPvz(ptr @f, i64 ptrtoint (ptr @umbra_dupnoneed to i64), ptr %p, ptr %dp, metadata !"umbra_const", i32 %n, metadata !"enzyme_const", double %y)
  %a = fadd double %r1, %r2
  %b = fadd double %a, %r3
  ret double %b
}

; CHECK-NOT:   @_ZN2ns12enzyme_constE
; CHECK-NOT:   @umbra_dupnoneed
; CHECK-NOT:   __enzyme_fwddiff

; CHECK-LABEL: define double @caller(ptr %p, ptr %dp, i32 %n, double %y, double %dy)
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[C1:%.*]] = call { double, double } @fwddiffe.sq.d(double %y, double %dy)
; CHECK:         call { double, double } @fwddiffe.f.ccd(ptr %p, i32 %n, double %y, double %dy)
; CHECK:         call { double, double } @fwddiffe.f.ncc(ptr %p, ptr %dp, i32 %n, double %y)
; CHECK-NOT:   __enzyme_fwddiff
