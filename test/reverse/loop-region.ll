; A loop whose iterations the exit test counts keeps what each iteration tapes in one region of
; the tape: reserved by one push in the preheader (count x stride bytes), written at
; region + i x stride with no capacity check, and released when the adjoint leaves the loop.
; The region's address and count go on the tape where the loop exits, with the last i. An
; iteration past the reserved count (not possible here) would push as usual.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)

; for (i = 0; i < n; i++) { m = x[i] * y[i]; x[i] = m; y[i] = m; }  (n >= 1)
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
  %i1 = add nuw nsw i64 %i, 1
  %more = icmp ult i64 %i1, %n
  br i1 %more, label %loop, label %done

done:
  ret void
}

define void @caller(ptr %x, ptr %dx, ptr %y, ptr %dy, i64 %n) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, ptr %y, ptr %dy, i64 %n)
  ret void
}

; The test i + 1 < n first fails after iteration max(n - 1, 0) (starting at 0): that many
; iterations and one more, 16 bytes each.
; CHECK-LABEL: define internal void @augfwd.f.ddc{{[.a-z]*}}(
; CHECK:         [[DIST:%[0-9]+]] = sub i64 %n, 1
; CHECK:         [[STOPS:%[0-9]+]] = icmp uge i64 1, %n
; CHECK:         [[LESS:%[0-9]+]] = sub i64 [[DIST]], 1
; CHECK:         [[Q:%[0-9]+]] = add i64 [[LESS]], 1
; CHECK:         [[FIRST:%[0-9]+]] = select i1 [[STOPS]], i64 0, i64 [[Q]]
; CHECK:         [[COUNT1:%[0-9]+]] = add i64 [[FIRST]], 1
; CHECK:         [[COUNT:%[0-9]+]] = select i1 {{%[0-9]+}}, i64 0, i64 [[COUNT1]]
; CHECK:         [[BYTES:%[0-9]+]] = mul i64 [[COUNT]], 16
; CHECK:         [[REGION:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 [[BYTES]])
; CHECK-NEXT:    br label %[[LOOP:[0-9]+]]
; CHECK:       [[LOOP]]:
; CHECK:         %m = fmul double %a, %b
; CHECK:         [[IDX:%[0-9]+]] = sub i64 %i, 0
; CHECK-NEXT:    [[IN:%[0-9]+]] = icmp ult i64 [[IDX]], [[COUNT]]
; CHECK-NEXT:    br i1 [[IN]], label %in.region, label %past.region
; Leaving: the last i, the region and its count in one 24-byte push.
; CHECK:         [[EXIT:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 24)
; CHECK-NEXT:    store i64 %i, ptr [[EXIT]], align 1
; CHECK-NEXT:    [[E1:%[0-9]+]] = getelementptr inbounds i8, ptr [[EXIT]], i64 8
; CHECK-NEXT:    store ptr [[REGION]], ptr [[E1]], align 1
; CHECK-NEXT:    [[E2:%[0-9]+]] = getelementptr inbounds i8, ptr [[EXIT]], i64 16
; CHECK-NEXT:    store i64 [[COUNT]], ptr [[E2]], align 1
; CHECK:       in.region:
; CHECK-NEXT:    [[AT:%[0-9]+]] = mul i64 [[IDX]], 16
; CHECK-NEXT:    [[AT0:%[0-9]+]] = add i64 [[AT]], 0
; CHECK-NEXT:    [[INR:%[0-9]+]] = getelementptr inbounds i8, ptr [[REGION]], i64 [[AT0]]
; CHECK:       past.region:
; CHECK-NEXT:    [[PUSHED:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 16)
; CHECK:         [[SLOT:%[0-9]+]] = phi ptr [ [[INR]], %in.region ], [ [[PUSHED]], %past.region ]
; CHECK-NEXT:    store double %a, ptr [[SLOT]], align 1
; CHECK-NEXT:    [[B:%[0-9]+]] = getelementptr inbounds i8, ptr [[SLOT]], i64 8
; CHECK-NEXT:    store double %b, ptr [[B]], align 1
; CHECK-NOT:     @umbra.tape.push
; CHECK:         br i1 %more

; CHECK-LABEL: define internal void @adjoint.f.ddc{{[.a-z]*}}(
; In the loop: the same slot, from the counter.
; CHECK:         [[AB:%[0-9]+]] = load ptr, ptr %region, align {{[0-9]+}}
; CHECK-NEXT:    [[AC:%[0-9]+]] = load i64, ptr %region.count, align 1
; CHECK-NEXT:    [[AI:%[0-9]+]] = load i64, ptr %counter, align {{[0-9]+}}
; CHECK-NEXT:    [[AIDX:%[0-9]+]] = sub i64 [[AI]], 0
; CHECK-NEXT:    [[AIN:%[0-9]+]] = icmp ult i64 [[AIDX]], [[AC]]
; CHECK-NEXT:    br i1 [[AIN]], label %in.region, label %past.region
; Entering the loop backwards: its record.
; CHECK:         [[REC:%[0-9]+]] = call ptr @umbra.tape.pop(ptr %tape, i64 24)
; CHECK:         [[R1:%[0-9]+]] = getelementptr inbounds i8, ptr [[REC]], i64 8
; CHECK-NEXT:    [[RBASE:%[0-9]+]] = load ptr, ptr [[R1]], align 1
; CHECK-NEXT:    store ptr [[RBASE]], ptr %region, align {{[0-9]+}}
; CHECK:       in.region:
; CHECK-NEXT:    [[AAT:%[0-9]+]] = mul i64 [[AIDX]], 16
; CHECK-NEXT:    [[AAT0:%[0-9]+]] = add i64 [[AAT]], 0
; CHECK-NEXT:    getelementptr inbounds i8, ptr [[AB]], i64 [[AAT0]]
; CHECK:       past.region:
; CHECK-NEXT:    call ptr @umbra.tape.pop(ptr %tape, i64 16)
; Leaving the loop backwards releases the region.
; CHECK:       release.region:
; CHECK-NEXT:    [[RC:%[0-9]+]] = load i64, ptr %region.count, align 1
; CHECK-NEXT:    [[RB:%[0-9]+]] = mul i64 [[RC]], 16
; CHECK-NEXT:    call ptr @umbra.tape.pop(ptr %tape, i64 [[RB]])
