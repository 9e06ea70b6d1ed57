; A loop counting down with `sub` (clang at -O0 writes `i -= 2` so: `sub nsw i, 2`, where `i--`
; is an `add` of -1) is a structured loop like one counting with `add`: the adjoint counts its
; counter back up (subtracting the step -2), and its iterations are in one region of the tape,
; reserved in the preheader, not one push (and one recorded predecessor) per iteration.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)

; for (i = n; i > 0; i -= 2) x[i] = x[i] * x[i];
define void @f(ptr %x, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ %n, %entry ], [ %i.next, %body ]
  %more = icmp sgt i64 %i, 0
  br i1 %more, label %body, label %done

body:
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %a = load double, ptr %p, align 8
  %sq = fmul double %a, %a
  store double %sq, ptr %p, align 8
  %i.next = sub nsw i64 %i, 2
  br label %loop

done:
  ret void
}

define void @caller(ptr %x, ptr %dx, i64 %n) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, i64 %n)
  ret void
}

; The count of i > 0 from n down by 2: (n - 1) / 2 + 1 iterations unless n <= 0, and one more.
; CHECK-LABEL: define internal void @augfwd.f.dc{{[.a-z]*}}(
; CHECK:         [[DIST:%[0-9]+]] = sub i64 %n, 0
; CHECK:         [[STOPS:%[0-9]+]] = icmp sle i64 %n, 0
; CHECK:         udiv i64 {{%[0-9]+}}, 2
; CHECK:         [[BYTES:%[0-9]+]] = mul i64 {{%[0-9]+}}, 8
; CHECK-NEXT:    [[REGION:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 [[BYTES]])
; CHECK-NEXT:    br label %[[LOOP:[0-9]+]]
; CHECK:       [[LOOP]]:
; CHECK-NEXT:    %i = phi i64
; CHECK-NOT:     @umbra.tape.push
; The iteration's index: (n - i) / 2.
; CHECK:         %sq = fmul double %a, %a
; CHECK-NEXT:    [[D:%[0-9]+]] = sub i64 %n, %i
; CHECK-NEXT:    [[IDX:%[0-9]+]] = udiv i64 [[D]], 2
; CHECK-NEXT:    icmp ult i64 [[IDX]], {{%[0-9]+}}

; CHECK-LABEL: define internal void @adjoint.f.dc{{[.a-z]*}}(
; Counting back up: one iteration down is i - (-2).
; CHECK:         [[CUR:%[0-9]+]] = load i64, ptr %counter
; CHECK:         sub i64 [[CUR]], -2
; CHECK:       release.region:
