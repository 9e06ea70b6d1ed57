; The values a run of instructions tapes go onto the tape in one push: here both factors of
; a * b, read from memory the loop then overwrites, are kept per iteration in one 16-byte push
; (one capacity check) and come back in one 16-byte pop, each read at its offset. (The loop
; ends where the data says, so its iterations cannot be counted ahead: a countable loop keeps
; them in one region instead, see loop-region.ll.)
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)

; do { m = x[i] * y[i]; x[i] = m; y[i] = m; i++ } while (m < 1)
define void @f(ptr %x, ptr %y, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %py = getelementptr inbounds double, ptr %y, i64 %i
  %a = load double, ptr %px, align 8
  %b = load double, ptr %py, align 8
  %m = fmul double %a, %b
  store double %m, ptr %px, align 8
  store double %m, ptr %py, align 8
  %i1 = add i64 %i, 1
  %more = fcmp olt double %m, 1.0
  br i1 %more, label %loop, label %done

done:
  ret void
}

define void @caller(ptr %x, ptr %dx, ptr %y, ptr %dy, i64 %n) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, ptr %y, ptr %dy, i64 %n)
  ret void
}

; CHECK-LABEL: define internal void @augfwd.f.ddc{{[.a-z]*}}(
; CHECK:         %m = fmul double %a, %b
; CHECK-NEXT:    [[S:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 16)
; CHECK-NEXT:    store double %a, ptr [[S]], align 1
; CHECK-NEXT:    [[B:%[0-9]+]] = getelementptr inbounds i8, ptr [[S]], i64 8
; CHECK-NEXT:    store double %b, ptr [[B]], align 1
; CHECK-NOT:     @umbra.tape.push(ptr %tape, i64 8)
; CHECK:         br i1 %more

; CHECK-LABEL: define internal void @adjoint.f.ddc{{[.a-z]*}}(
; CHECK:         [[P:%[0-9]+]] = call ptr @umbra.tape.pop(ptr %tape, i64 16)
; CHECK-NEXT:    [[VA:%[0-9]+]] = load double, ptr [[P]], align 1
; CHECK-NEXT:    [[PB:%[0-9]+]] = getelementptr inbounds i8, ptr [[P]], i64 8
; CHECK-NEXT:    [[VB:%[0-9]+]] = load double, ptr [[PB]], align 1
