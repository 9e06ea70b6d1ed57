; A switch with two cases to the same block (std::max_element at -O1: `switch i64 %bytes,
; [8, %join], [0, %join]`): the join's predecessor record needs one incoming entry per edge,
; as LLVM requires, or the augmented sweep is invalid IR. Both cases record the same
; predecessor.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)

define double @f(double %x, i64 %k) {
entry:
  switch i64 %k, label %other [
    i64 8, label %join
    i64 0, label %join
  ]

other:
  %a = fmul double %x, %x
  br label %join

join:
  %p = phi double [ %x, %entry ], [ %x, %entry ], [ %a, %other ]
  %q = fmul double %p, %x
  ret double %q
}

define double @caller(double %x, i64 %k) {
entry:
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, i64 %k)
  ret double %r
}

; CHECK-LABEL: define internal double @augfwd.f.ac{{[.a-z]*}}(ptr %tape, double %x, i64 %k)
; CHECK:         switch i64 %k, label %[[OTHER:[0-9]+]] [
; CHECK-NEXT:      i64 8, label %[[JOIN:[0-9]+]]
; CHECK-NEXT:      i64 0, label %[[JOIN]]
; CHECK:       {{^}}[[JOIN]]:
; CHECK-NEXT:    %p = phi double [ %x, %0 ], [ %x, %0 ], [ %a, %[[OTHER]] ]
; CHECK-NEXT:    [[IDX:%[0-9]+]] = phi i32 [ 0, %0 ], [ 0, %0 ], [ 1, %[[OTHER]] ]
