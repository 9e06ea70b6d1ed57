; memcpy between duplicated pointers: the adjoint calls umbra.adjoint.copy.double(dst shadow,
; src shadow, bytes), which adds the destination's adjoint into the source's and clears it.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

; y[0..n) = x[0..n); y[0] *= y[0]
define void @f(ptr %y, ptr %x, i64 %n) {
entry:
  %bytes = shl i64 %n, 3
  call void @llvm.memcpy.p0.p0.i64(ptr %y, ptr %x, i64 %bytes, i1 false)
  %v = load double, ptr %y, align 8
  %m = fmul double %v, %v
  store double %m, ptr %y, align 8
  ret void
}

define void @caller(ptr %y, ptr %dy, ptr %x, ptr %dx, i64 %n) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %y, ptr %dy, ptr %x, ptr %dx, i64 %n)
  ret void
}

; The forward sweep copies primal memory only.
; CHECK-LABEL: define internal void @augfwd.f.ddc{{[.a-z]*}}(ptr %tape, ptr %y, ptr %d.y, ptr %x, ptr %d.x, i64 %n)
; CHECK-NEXT:    %bytes = shl i64 %n, 3
; CHECK-NEXT:    call void @llvm.memcpy.p0.p0.i64(ptr %y, ptr %x, i64 %bytes, i1 false)
; CHECK-NEXT:    %v = load double, ptr %y, align 8
; CHECK-NEXT:    %m = fmul double %v, %v
; CHECK-NEXT:    store double %m, ptr %y, align 8
; CHECK-NEXT:    [[T:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 8)
; CHECK-NEXT:    store double %v, ptr [[T]]
; CHECK-NEXT:    ret void

; CHECK-LABEL: define internal void @adjoint.f.ddc{{[.a-z]*}}(ptr %tape, ptr %y, ptr %d.y, ptr %x, ptr %d.x, i64 %n)
; the frame, popped as the adjoint starts
; CHECK:       reverse:
; CHECK-NEXT:    [[TV:%[0-9]+]] = call ptr @umbra.tape.pop(ptr %tape, i64 8)
; CHECK-NEXT:    [[V:%[0-9]+]] = load double, ptr [[TV]]
; store m -> y
; CHECK:         [[W:%[0-9]+]] = load double, ptr %d.y
; CHECK-NEXT:    [[O1:%[0-9]+]] = load double, ptr [[SM:%[0-9]+]]
; CHECK-NEXT:    [[N1:%[0-9]+]] = fadd reassoc double [[O1]], [[W]]
; CHECK-NEXT:    store double [[N1]], ptr [[SM]]
; CHECK-NEXT:    store double 0.000000e+00, ptr %d.y
; m = v * v, v popped
; CHECK-NEXT:    [[DM:%[0-9]+]] = load double, ptr [[SM]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SM]]
; CHECK-NEXT:    [[DM2:%[0-9]+]] = fadd double [[DM]], [[DM]]
; CHECK-NEXT:    [[A:%[0-9]+]] = fmul double [[DM2]], [[V]]
; CHECK-NEXT:    [[OA:%[0-9]+]] = load double, ptr [[SVS:%[0-9]+]]
; CHECK-NEXT:    [[NA:%[0-9]+]] = fadd reassoc double [[OA]], [[A]]
; CHECK-NEXT:    store double [[NA]], ptr [[SVS]]
; v = load y: shadow(y) += adj(v)
; CHECK-NEXT:    [[DV:%[0-9]+]] = load double, ptr [[SVS]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SVS]]
; CHECK-NEXT:    [[O3:%[0-9]+]] = load double, ptr %d.y
; CHECK-NEXT:    [[N3:%[0-9]+]] = fadd double [[O3]], [[DV]]
; CHECK-NEXT:    store double [[N3]], ptr %d.y
; The copy: shadow(x) += shadow(y), shadow(y) = 0, over the same byte count (rebuilt).
; CHECK-NEXT:    [[BYTES:%[0-9]+]] = shl i64 %n, 3
; CHECK-NEXT:    call void @umbra.adjoint.copy.double(ptr %d.y, ptr %d.x, i64 [[BYTES]])
; CHECK-NEXT:    br label %exit

; CHECK-LABEL: define internal void @umbra.adjoint.copy.double(ptr %0, ptr %1, i64 %2)
; CHECK-NEXT:  entry:
; CHECK-NEXT:    [[N:%[0-9]+]] = udiv i64 %2, 8
; from the last element down when the destination is below the source (an overlapping
; memmove to a lower address), so no adjoint is moved twice
; CHECK-NEXT:    [[DI:%[0-9]+]] = ptrtoint ptr %0 to i64
; CHECK-NEXT:    [[SI:%[0-9]+]] = ptrtoint ptr %1 to i64
; CHECK-NEXT:    [[DOWN:%[0-9]+]] = icmp ult i64 [[DI]], [[SI]]
; CHECK-NEXT:    [[E:%[0-9]+]] = icmp eq i64 [[N]], 0
; CHECK-NEXT:    br i1 [[E]], label %done, label %body
; CHECK:       body:
; CHECK-NEXT:    [[J:%[0-9]+]] = phi i64 [ 0, %entry ], [ [[NEXT:%[0-9]+]], %body ]
; CHECK-NEXT:    [[LAST:%[0-9]+]] = sub i64 [[N]], 1
; CHECK-NEXT:    [[BACK:%[0-9]+]] = sub i64 [[LAST]], [[J]]
; CHECK-NEXT:    [[K:%[0-9]+]] = select i1 [[DOWN]], i64 [[BACK]], i64 [[J]]
; CHECK-NEXT:    [[PD:%[0-9]+]] = getelementptr inbounds double, ptr %0, i64 [[K]]
; CHECK-NEXT:    [[PS:%[0-9]+]] = getelementptr inbounds double, ptr %1, i64 [[K]]
; CHECK-NEXT:    [[D:%[0-9]+]] = load double, ptr [[PD]]
; CHECK-NEXT:    [[S:%[0-9]+]] = load double, ptr [[PS]]
; CHECK-NEXT:    [[SUM:%[0-9]+]] = fadd double [[S]], [[D]]
; CHECK-NEXT:    store double [[SUM]], ptr [[PS]]
; CHECK-NEXT:    store double 0.000000e+00, ptr [[PD]]
; CHECK-NEXT:    [[NEXT]] = add i64 [[J]], 1
; CHECK-NEXT:    [[MORE:%[0-9]+]] = icmp ult i64 [[NEXT]], [[N]]
; CHECK-NEXT:    br i1 [[MORE]], label %body, label %done
; CHECK:       done:
; CHECK-NEXT:    ret void
