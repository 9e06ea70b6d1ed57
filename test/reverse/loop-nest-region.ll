; A loop nest whose inner count is the same in every outer iteration keeps the whole nest in one
; region of the tape, reserved by one push where the nest is entered: the outer loop's slots
; (here the inner loop's last j, its exit record) and, after them, one slot per (i, j) at
; i x inner count + j. No push inside the nest but the fallback for an index past its count,
; and one record where the nest exits: the last i and each loop's region and count. The
; adjoint releases the whole nest when it leaves the outer loop backwards.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)

; for (i = 0; i < n; i++) for (j = 0; j < m; j++) x[j] = x[j] * x[j];  (n, m >= 1)
define void @f(ptr %x, i64 %n, i64 %m) {
entry:
  br label %outer

outer:
  %i = phi i64 [ 0, %entry ], [ %i1, %outer.latch ]
  br label %inner

inner:
  %j = phi i64 [ 0, %outer ], [ %j1, %inner ]
  %p = getelementptr inbounds double, ptr %x, i64 %j
  %a = load double, ptr %p, align 8
  %sq = fmul double %a, %a
  store double %sq, ptr %p, align 8
  %j1 = add nuw nsw i64 %j, 1
  %more.j = icmp ult i64 %j1, %m
  br i1 %more.j, label %inner, label %outer.latch

outer.latch:
  %i1 = add nuw nsw i64 %i, 1
  %more.i = icmp ult i64 %i1, %n
  br i1 %more.i, label %outer, label %done

done:
  ret void
}

define void @caller(ptr %x, ptr %dx, i64 %n, i64 %m) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, i64 %n, i64 %m)
  ret void
}

; The counts of both loops at the nest's entry, the inner one capped against the outer's
; slots, then one push for outer count x 8 + outer count x inner count x 8 bytes.
; CHECK-LABEL: define internal void @augfwd.f.dcc{{[.a-z]*}}(
; CHECK:         icmp ugt i64 {{%[0-9]+}}, 536870912
; CHECK-NEXT:    [[COUNTI:%[0-9]+]] = select i1 {{%[0-9]+}}, i64 0, i64 {{%[0-9]+}}
; CHECK:         [[OVER:%[0-9]+]] = or i1
; CHECK-NEXT:    [[COUNTJ:%[0-9]+]] = select i1 [[OVER]], i64 0, i64 {{%[0-9]+}}
; CHECK-NEXT:    [[SLOTSJ:%[0-9]+]] = mul i64 [[COUNTI]], [[COUNTJ]]
; CHECK-NEXT:    [[BYTESI:%[0-9]+]] = mul i64 [[COUNTI]], 8
; CHECK-NEXT:    [[BYTESJ:%[0-9]+]] = mul i64 [[SLOTSJ]], 8
; CHECK-NEXT:    [[TOTAL:%[0-9]+]] = add i64 [[BYTESI]], [[BYTESJ]]
; CHECK-NEXT:    [[BASE:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 [[TOTAL]])
; CHECK-NEXT:    [[BASEJ:%[0-9]+]] = getelementptr inbounds i8, ptr [[BASE]], i64 [[BYTESI]]
; CHECK-NEXT:    br label %[[OUTER:[0-9]+]]
; CHECK:       [[OUTER]]:
; CHECK-NEXT:    %i = phi i64
; CHECK-NOT:     @umbra.tape.push
; The inner iteration's slot: both indices below their counts, at i x count + j.
; CHECK:         %sq = fmul double %a, %a
; CHECK:         [[II:%[0-9]+]] = sub i64 %i, 0
; CHECK:         [[JJ:%[0-9]+]] = sub i64 %j, 0
; CHECK-NEXT:    [[INI:%[0-9]+]] = icmp ult i64 [[II]], [[COUNTI]]
; CHECK-NEXT:    [[INJ:%[0-9]+]] = icmp ult i64 [[JJ]], [[COUNTJ]]
; CHECK-NEXT:    [[IN:%[0-9]+]] = and i1 [[INI]], [[INJ]]
; CHECK-NEXT:    br i1 [[IN]], label %in.region, label %past.region
; CHECK-NOT:     @umbra.tape.push
; Leaving the nest: the last i and both regions and counts, in one push.
; CHECK:         [[REC:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 40)
; CHECK-NEXT:    store i64 %i, ptr [[REC]], align 1
; CHECK:         store ptr [[BASE]], ptr {{%[0-9]+}}, align 1
; CHECK:         store i64 [[COUNTI]], ptr {{%[0-9]+}}, align 1
; CHECK:         store ptr [[BASEJ]], ptr {{%[0-9]+}}, align 1
; CHECK:         store i64 [[COUNTJ]], ptr {{%[0-9]+}}, align 1
; CHECK:       in.region:
; CHECK-NEXT:    [[ROW:%[0-9]+]] = mul i64 [[II]], [[COUNTJ]]
; CHECK-NEXT:    [[FLAT:%[0-9]+]] = add i64 [[ROW]], [[JJ]]
; CHECK-NEXT:    [[JAT:%[0-9]+]] = mul i64 [[FLAT]], 8
; CHECK-NEXT:    [[JAT0:%[0-9]+]] = add i64 [[JAT]], 0
; CHECK-NEXT:    getelementptr inbounds i8, ptr [[BASEJ]], i64 [[JAT0]]
; CHECK:       past.region:
; CHECK-NEXT:    call ptr @umbra.tape.push(ptr %tape, i64 8)
; The inner loop's exit record (its last j) goes into the outer iteration's slot.
; CHECK:       in.region1:
; CHECK-NEXT:    [[AT:%[0-9]+]] = mul i64 {{%[0-9]+}}, 8
; CHECK-NEXT:    [[AT0:%[0-9]+]] = add i64 [[AT]], 0
; CHECK-NEXT:    [[OSLOT:%[0-9]+]] = getelementptr inbounds i8, ptr [[BASE]], i64 [[AT0]]
; CHECK:         [[ESLOT:%[0-9]+]] = phi ptr [ [[OSLOT]], %in.region1 ]
; CHECK-NEXT:    store i64 %j, ptr [[ESLOT]], align 1

; CHECK-LABEL: define internal void @adjoint.f.dcc{{[.a-z]*}}(
; Leaving the outer loop backwards releases the whole nest.
; CHECK:       release.region:
; CHECK-NEXT:    [[RI:%[0-9]+]] = load i64, ptr %region.count, align 1
; CHECK-NEXT:    [[RJ:%[0-9]+]] = load i64, ptr %region.count{{[0-9]+}}, align 1
; CHECK-NEXT:    [[RS:%[0-9]+]] = mul i64 [[RI]], [[RJ]]
; CHECK-NEXT:    [[RBI:%[0-9]+]] = mul i64 [[RI]], 8
; CHECK-NEXT:    [[RBJ:%[0-9]+]] = mul i64 [[RS]], 8
; CHECK-NEXT:    [[RT:%[0-9]+]] = add i64 [[RBI]], [[RBJ]]
; CHECK-NEXT:    call ptr @umbra.tape.pop(ptr %tape, i64 [[RT]])
; CHECK-NOT:   release.region
