; Loads from a constant global carry no adjoint: the loaded value is only a constant factor of
; the product (replayed in the adjoint, since nothing writes memory), no shadow of the table
; exists, and nothing is accumulated for it.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)

@table = private unnamed_addr constant [4 x double] [double 1.0, double 2.0, double 3.0, double 4.0], align 8

define double @f(double %x, i64 %i) {
entry:
  %p = getelementptr inbounds [4 x double], ptr @table, i64 0, i64 %i
  %w = load double, ptr %p, align 8
  %m = fmul double %x, %w
  ret double %m
}

define double @caller(double %x, i64 %i) {
entry:
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, i64 %i)
  ret double %r
}

; No shadow is made for the table (after the header, which names the test's path).
; CHECK:       source_filename = {{.*}}
; CHECK-NOT:   @table{{[._a-z]+}} =
; CHECK-NOT:   shadow

; CHECK-LABEL: define internal double @augfwd.f.ac{{[.a-z]*}}(ptr %tape, double %x, i64 %i)
; CHECK-NEXT:    %p = getelementptr inbounds [4 x double], ptr @table, i64 0, i64 %i
; CHECK-NEXT:    %w = load double, ptr %p
; CHECK-NEXT:    %m = fmul double %x, %w
; CHECK-NEXT:    ret double %m

; The table entry is replayed (nothing writes memory); adj(x) += d * w is all there is: the
; load's reverse adds nothing anywhere, and nothing is stored outside the adjoint slots.
; CHECK-LABEL: define internal { double } @adjoint.f.ac{{[.a-z]*}}(ptr %tape, double %x, i64 %i, double %dret)
; CHECK:         [[O0:%[0-9]+]] = load double, ptr [[SM:%[0-9]+]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd reassoc double [[O0]], %dret
; CHECK-NEXT:    store double [[N0]], ptr [[SM]]
; CHECK-NEXT:    [[D:%[0-9]+]] = load double, ptr [[SM]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SM]]
; CHECK-NEXT:    [[P:%[0-9]+]] = getelementptr inbounds [4 x double], ptr @table, i64 0, i64 %i
; CHECK-NEXT:    [[W:%[0-9]+]] = load double, ptr [[P]]
; CHECK-NEXT:    [[T:%[0-9]+]] = fmul double [[D]], [[W]]
; CHECK-NEXT:    [[OX:%[0-9]+]] = load double, ptr [[SX:%[0-9]+]]
; CHECK-NEXT:    [[NX:%[0-9]+]] = fadd reassoc double [[OX]], [[T]]
; CHECK-NEXT:    store double [[NX]], ptr [[SX]]
; CHECK-NEXT:    br label %exit
; CHECK:       exit:
; CHECK-NEXT:    [[AX:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[AXZ:%[0-9]+]] = fadd double [[AX]], 0.000000e+00
; CHECK-NEXT:    insertvalue { double } poison, double [[AXZ]], 0
