; A triangular nest (the inner count is affine in the outer iteration index t) keeps the whole
; nest in one region of the tape, reserved with one push where the nest is entered, for
; exactly the slots its iterations use: the inner rows are max(0, first + slope x t) long, and
; the row of outer iteration t starts at the sum of the rows before it,
; slope x t(t-1)/2 + first x t (loop_tape.rs). `first` is the inner count at the outer loop's
; first iteration when the count falls with t, else at its last minus slope x (count - 1).
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)

; for (i = 0; i < n; i++) for (j = i; j < n; j++) x[j] = x[j] * x[j];  (n >= 1)
; Rows n - t (header runs of the rotated inner loop): n(n+1)/2 slots.
define void @f(ptr %x, i64 %n) {
entry:
  br label %outer

outer:
  %i = phi i64 [ 0, %entry ], [ %i1, %outer.latch ]
  br label %inner

inner:
  %j = phi i64 [ %i, %outer ], [ %j1, %inner ]
  %p = getelementptr inbounds double, ptr %x, i64 %j
  %a = load double, ptr %p, align 8
  %sq = fmul double %a, %a
  store double %sq, ptr %p, align 8
  %j1 = add nuw nsw i64 %j, 1
  %more.j = icmp ult i64 %j1, %n
  br i1 %more.j, label %inner, label %outer.latch

outer.latch:
  %i1 = add nuw nsw i64 %i, 1
  %more.i = icmp ult i64 %i1, %n
  br i1 %more.i, label %outer, label %done

done:
  ret void
}

; for (i = 0; i < n; i++) for (j = 0; j < i; j++) x[j] = x[j] * x[j];  (tested in the header)
; Rows t + 1 (the header runs once more than the body): n(n+1)/2 slots.
define void @g(ptr %x, i64 %n) {
entry:
  br label %outer

outer:
  %i = phi i64 [ 0, %entry ], [ %i1, %outer.latch ]
  br label %inner

inner:
  %j = phi i64 [ 0, %outer ], [ %j1, %body ]
  %more.j = icmp ult i64 %j, %i
  br i1 %more.j, label %body, label %outer.latch

body:
  %p = getelementptr inbounds double, ptr %x, i64 %j
  %a = load double, ptr %p, align 8
  %sq = fmul double %a, %a
  store double %sq, ptr %p, align 8
  %j1 = add nuw nsw i64 %j, 1
  br label %inner

outer.latch:
  %i1 = add nuw nsw i64 %i, 1
  %more.i = icmp ult i64 %i1, %n
  br i1 %more.i, label %outer, label %done

done:
  ret void
}

define void @caller(ptr %x, ptr %dx, i64 %n) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, i64 %n)
  call void (ptr, ...) @__enzyme_autodiff(ptr @g, ptr %x, ptr %dx, i64 %n)
  ret void
}

; CHECK-LABEL: define internal void @augfwd.f.dc{{[.a-z]*}}(
; The outer count N, capped, and its last index.
; CHECK:         icmp ugt i64 {{%[0-9]+}}, 268435456
; CHECK-NEXT:    [[N:%[0-9]+]] = select i1 {{%[0-9]+}}, i64 0, i64 {{%[0-9]+}}
; CHECK-NEXT:    [[LAST:%[0-9]+]] = sub i64 [[N]], 1
; The inner count at i = 0 (it falls with i: that is `first`), frozen, checked against the cap
; and against the sum of the rows.
; CHECK:         [[N0:%[0-9]+]] = freeze i64
; CHECK:         mul i64 [[LAST]], -1
; CHECK:         [[FIRST:%[0-9]+]] = select i1 {{%[0-9]+}}, i64 [[N0]], i64 -9223372036854775808
; CHECK-NEXT:    [[NONE:%[0-9]+]] = icmp eq i64 [[FIRST]], -9223372036854775808
; The rows first - t are positive before t = first: their sum over t < min(N, first).
; CHECK-NEXT:    [[POS:%[0-9]+]] = icmp sgt i64 [[FIRST]], 0
; CHECK-NEXT:    [[STOP:%[0-9]+]] = select i1 [[POS]], i64 [[FIRST]], i64 0
; CHECK-NEXT:    [[LESS:%[0-9]+]] = icmp ult i64 [[N]], [[STOP]]
; CHECK-NEXT:    [[M:%[0-9]+]] = select i1 [[LESS]], i64 [[N]], i64 [[STOP]]
; CHECK-NEXT:    [[BYF:%[0-9]+]] = mul i64 [[FIRST]], [[M]]
; CHECK-NEXT:    [[M1:%[0-9]+]] = sub i64 [[M]], 1
; CHECK-NEXT:    [[PAIRS:%[0-9]+]] = mul i64 [[M]], [[M1]]
; CHECK-NEXT:    [[HALF:%[0-9]+]] = lshr i64 [[PAIRS]], 1
; CHECK-NEXT:    [[BYS:%[0-9]+]] = mul i64 [[HALF]], -1
; CHECK-NEXT:    [[SUM:%[0-9]+]] = add i64 [[BYS]], [[BYF]]
; CHECK-NEXT:    [[ROWS:%[0-9]+]] = select i1 [[NONE]], i64 0, i64 [[SUM]]
; One push for the nest: N outer slots of 16 bytes and the rows' slots of 8.
; CHECK-NEXT:    [[BYTESI:%[0-9]+]] = mul i64 [[N]], 16
; CHECK-NEXT:    [[BYTESJ:%[0-9]+]] = mul i64 [[ROWS]], 8
; CHECK-NEXT:    [[TOTAL:%[0-9]+]] = add i64 [[BYTESI]], [[BYTESJ]]
; CHECK-NEXT:    [[BASE:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 [[TOTAL]])
; CHECK-NEXT:    [[BASEJ:%[0-9]+]] = getelementptr inbounds i8, ptr [[BASE]], i64 [[BYTESI]]
; CHECK-NEXT:    br label %[[OUTER:[0-9]+]]
; CHECK:       [[OUTER]]:
; CHECK-NEXT:    %i = phi i64
; No reservation per execution of the inner loop.
; CHECK-NOT:     @umbra.tape.push
; CHECK:         %sq = fmul double %a, %a
; CHECK-NEXT:    [[II:%[0-9]+]] = sub i64 %i, 0
; CHECK-NEXT:    [[JJ:%[0-9]+]] = sub i64 %j, %i
; CHECK-NEXT:    [[INI:%[0-9]+]] = icmp ult i64 [[II]], [[N]]
; In the region when j - i is below the row at i, max(0, first - i).
; CHECK-NEXT:    [[MOVED:%[0-9]+]] = mul i64 [[II]], -1
; CHECK-NEXT:    [[AT:%[0-9]+]] = add i64 [[FIRST]], [[MOVED]]
; CHECK-NEXT:    [[APOS:%[0-9]+]] = icmp sgt i64 [[AT]], 0
; CHECK-NEXT:    [[ROW:%[0-9]+]] = select i1 [[APOS]], i64 [[AT]], i64 0
; CHECK-NEXT:    [[NONE2:%[0-9]+]] = icmp eq i64 [[FIRST]], -9223372036854775808
; CHECK-NEXT:    [[LIM:%[0-9]+]] = select i1 [[NONE2]], i64 0, i64 [[ROW]]
; CHECK-NEXT:    [[INJ:%[0-9]+]] = icmp ult i64 [[JJ]], [[LIM]]
; CHECK-NEXT:    [[IN:%[0-9]+]] = and i1 [[INI]], [[INJ]]
; CHECK-NEXT:    br i1 [[IN]], label %in.region, label %past.region
; CHECK-NOT:     @umbra.tape.push
; Leaving the nest: the last i and both regions and counts, in one push.
; CHECK:         [[REC:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 40)
; CHECK:         store ptr [[BASE]], ptr {{%[0-9]+}}, align 1
; CHECK:         store i64 [[N]], ptr {{%[0-9]+}}, align 1
; CHECK:         store ptr [[BASEJ]], ptr {{%[0-9]+}}, align 1
; CHECK:         store i64 [[FIRST]], ptr {{%[0-9]+}}, align 1
; The slot of (i, j): after the rows before i (their sum over t < min(i, first)), at j - i.
; CHECK:       in.region:
; CHECK-NEXT:    [[P2:%[0-9]+]] = icmp sgt i64 [[FIRST]], 0
; CHECK-NEXT:    [[S2:%[0-9]+]] = select i1 [[P2]], i64 [[FIRST]], i64 0
; CHECK-NEXT:    [[L2:%[0-9]+]] = icmp ult i64 [[II]], [[S2]]
; CHECK-NEXT:    [[MI:%[0-9]+]] = select i1 [[L2]], i64 [[II]], i64 [[S2]]
; CHECK-NEXT:    [[BF:%[0-9]+]] = mul i64 [[FIRST]], [[MI]]
; CHECK-NEXT:    [[MI1:%[0-9]+]] = sub i64 [[MI]], 1
; CHECK-NEXT:    [[PR:%[0-9]+]] = mul i64 [[MI]], [[MI1]]
; CHECK-NEXT:    [[HF:%[0-9]+]] = lshr i64 [[PR]], 1
; CHECK-NEXT:    [[BS:%[0-9]+]] = mul i64 [[HF]], -1
; CHECK-NEXT:    [[BEFORE:%[0-9]+]] = add i64 [[BS]], [[BF]]
; CHECK-NEXT:    [[FLAT:%[0-9]+]] = add i64 [[BEFORE]], [[JJ]]
; CHECK-NEXT:    [[OFF:%[0-9]+]] = mul i64 [[FLAT]], 8
; CHECK-NEXT:    [[OFF0:%[0-9]+]] = add i64 [[OFF]], 0
; CHECK-NEXT:    getelementptr inbounds i8, ptr [[BASEJ]], i64 [[OFF0]]
; Past the row: pushed as usual.
; CHECK:       past.region:
; CHECK-NEXT:    call ptr @umbra.tape.push(ptr %tape, i64 8)
; The inner loop's exit record, its start i and last j, in the outer iteration's slot.
; CHECK:         store i64 %i, ptr [[ESLOT:%[0-9]+]], align 1
; CHECK-NEXT:    [[LASTJ:%[0-9]+]] = getelementptr inbounds i8, ptr [[ESLOT]], i64 8
; CHECK-NEXT:    store i64 %j, ptr [[LASTJ]], align 1

; The adjoint releases the same bytes, from the counts it read back.
; CHECK-LABEL: define internal void @adjoint.f.dc{{[.a-z]*}}(
; CHECK:       release.region:
; CHECK-NEXT:    [[RN:%[0-9]+]] = load i64, ptr %region.count, align 1
; CHECK-NEXT:    [[RF:%[0-9]+]] = load i64, ptr %region.count{{[0-9]+}}, align 1
; CHECK-NEXT:    [[RNONE:%[0-9]+]] = icmp eq i64 [[RF]], -9223372036854775808
; CHECK:         [[RSUM:%[0-9]+]] = add i64 {{%[0-9]+}}, {{%[0-9]+}}
; CHECK-NEXT:    [[RROWS:%[0-9]+]] = select i1 [[RNONE]], i64 0, i64 [[RSUM]]
; CHECK-NEXT:    [[RBI:%[0-9]+]] = mul i64 [[RN]], 16
; CHECK-NEXT:    [[RBJ:%[0-9]+]] = mul i64 [[RROWS]], 8
; CHECK-NEXT:    [[RT:%[0-9]+]] = add i64 [[RBI]], [[RBJ]]
; CHECK-NEXT:    call ptr @umbra.tape.pop(ptr %tape, i64 [[RT]])
; CHECK-NOT:   release.region

; g: the count grows with i, so `first` is the count at the last i minus (N - 1).
; CHECK-LABEL: define internal void @augfwd.g.dc{{[.a-z]*}}(
; CHECK:         icmp ugt i64 {{%[0-9]+}}, 536870912
; CHECK-NEXT:    [[GN:%[0-9]+]] = select i1 {{%[0-9]+}}, i64 0, i64 {{%[0-9]+}}
; CHECK-NEXT:    [[GLAST:%[0-9]+]] = sub i64 [[GN]], 1
; CHECK-NEXT:    [[GMOVED:%[0-9]+]] = mul i64 [[GLAST]], 1
; CHECK-NEXT:    [[GI:%[0-9]+]] = add i64 0, [[GMOVED]]
; CHECK:         [[GCOUNT:%[0-9]+]] = freeze i64
; CHECK-NEXT:    [[GSLOPE:%[0-9]+]] = mul i64 [[GLAST]], 1
; CHECK-NEXT:    [[GFIRST0:%[0-9]+]] = sub i64 [[GCOUNT]], [[GSLOPE]]
; CHECK:         [[GFIRST:%[0-9]+]] = select i1 {{%[0-9]+}}, i64 [[GFIRST0]], i64 -9223372036854775808
; The rows first + t (negative ones, none here, are left out): their sum over t < N.
; CHECK:         [[GROWS:%[0-9]+]] = select i1 {{%[0-9]+}}, i64 0, i64 {{%[0-9]+}}
; CHECK-NEXT:    [[GBI:%[0-9]+]] = mul i64 [[GN]], 8
; CHECK-NEXT:    [[GBJ:%[0-9]+]] = mul i64 [[GROWS]], 8
; CHECK-NEXT:    [[GT:%[0-9]+]] = add i64 [[GBI]], [[GBJ]]
; CHECK-NEXT:    call ptr @umbra.tape.push(ptr %tape, i64 [[GT]])
; CHECK-NOT:     @umbra.tape.push
; CHECK:         %more.j = icmp ult i64 %j, %i
; CHECK:       in.region:
