; An adjoint's division by a value that does not change in its loop is `arcp`, so the
; re-optimised loop multiplies by a reciprocal computed once before it, as a hand-written
; gradient does; the program's own division (z, rebuilt in the adjoint) stays a division.
; q = sum_i ((x_i - mu) / s)^2.
; RUN: %opt-umbra -passes='umbra,default<O2>' %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O2 -o - | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O2 -o - | grep -c "fdiv arcp" | FileCheck --check-prefix=ONE %s
; RUN: %opt-umbra -passes='umbra,default<O2>' %s | grep -c "fdiv arcp" | FileCheck --check-prefix=ONE %s

%pair = type { double, double }
declare %pair @__enzyme_autodiff(ptr, ...)
@enzyme_dup = external global i32
@enzyme_const = external global i32

define double @f(ptr %x, double %mu, double %s, i64 %n) {
entry:
  %any = icmp sgt i64 %n, 0
  br i1 %any, label %loop, label %exit
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %q = phi double [ 0.0, %entry ], [ %q.next, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %p
  %d = fsub double %xi, %mu
  %z = fdiv double %d, %s
  %zz = fmul double %z, %z
  %q.next = fadd double %q, %zz
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %r = phi double [ 0.0, %entry ], [ %q.next, %loop ]
  ret double %r
}

define %pair @grad(ptr %x, ptr %dx, double %mu, double %s, i64 %n) {
entry:
  %dup = load i32, ptr @enzyme_dup
  %const = load i32, ptr @enzyme_const
  %g = call %pair (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %dup, ptr %x, ptr %dx, double %mu, double %s, i32 %const, i64 %n)
  ret %pair %g
}

; The adjoint multiplies by the reciprocal (hoisted out of the loop) and divides only by the
; rebuilt z = (x_i - mu) / s: the reciprocal is the module's one `arcp` division.
; CHECK-LABEL: define {{.*}} @grad(
; CHECK-DAG:     [[R:%[0-9]+]] = fdiv arcp double 1.000000e+00, %s
; CHECK-DAG:     fdiv double {{%.*}}, %s
; CHECK-DAG:     fmul arcp double [[R]],
; CHECK:         ret %pair
; ONE: {{^}}1{{$}}
