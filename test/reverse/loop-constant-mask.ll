; A loop nest between constant bounds with a branch on its counters (an upper-triangular mask,
; kron_view_sum's shape when it is not vectorised): the adjoint evaluates the mask again to
; tell which way each iteration went, and starts each loop's countdown at its last counter
; value, the same on every entry (3 here): the forward sweep records nothing at all.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)

; s = sum over r, c < 4 with c >= r of a[r] * b[c]
define double @f(ptr %a, ptr %b) {
entry:
  br label %outer

outer:
  %r = phi i64 [ 0, %entry ], [ %r1, %outer.latch ]
  %s.o = phi double [ 0.0, %entry ], [ %s.next, %outer.latch ]
  br label %inner

inner:
  %c = phi i64 [ 0, %outer ], [ %c1, %join ]
  %s = phi double [ %s.o, %outer ], [ %s.next, %join ]
  %upper = icmp uge i64 %c, %r
  br i1 %upper, label %mul, label %join

mul:
  %pa = getelementptr inbounds double, ptr %a, i64 %r
  %va = load double, ptr %pa, align 8
  %pb = getelementptr inbounds double, ptr %b, i64 %c
  %vb = load double, ptr %pb, align 8
  %m = fmul double %va, %vb
  %s.m = fadd double %s, %m
  br label %join

join:
  %s.next = phi double [ %s.m, %mul ], [ %s, %inner ]
  %c1 = add nuw nsw i64 %c, 1
  %more = icmp ult i64 %c1, 4
  br i1 %more, label %inner, label %outer.latch

outer.latch:
  %r1 = add nuw nsw i64 %r, 1
  %omore = icmp ult i64 %r1, 4
  br i1 %omore, label %outer, label %done

done:
  ret double %s.next
}

define void @caller(ptr %a, ptr %da, ptr %b, ptr %db) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %a, ptr %da, ptr %b, ptr %db)
  ret void
}

; CHECK-LABEL: define internal {{.*}} @augfwd.f.
; CHECK-NOT:     umbra.tape.push
; CHECK:       ret double

; The mask again, and a branch on it back to the multiplying arm or past it; each countdown
; starts at 3.
; CHECK-LABEL: define internal {{.*}} @adjoint.f.
; CHECK-NOT:     umbra.tape.pop
; CHECK:         [[UPPER:%[0-9]+]] = icmp uge i64 {{%[0-9]+}}, {{%[0-9]+}}
; CHECK:         br i1 [[UPPER]], label %{{[0-9]+}}, label %{{[0-9]+}}
; CHECK-NOT:     umbra.tape.pop
; CHECK:         store i64 3, ptr %counter
; CHECK-NOT:     umbra.tape.pop
; CHECK:         store i64 3, ptr %counter
; CHECK-NOT:     umbra.tape.pop
; CHECK:         ret void
