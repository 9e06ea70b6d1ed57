; malloc: the augmented sweep allocates a shadow of the same size and zeroes it; the adjoint
; frees it when it reaches the malloc (the primal free runs in the forward sweep only).
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)
declare noalias ptr @malloc(i64)
declare void @free(ptr)

; p = malloc(8 * n); p[0] = x; v = p[i]; free(p); return v * v
define double @f(double %x, i64 %n, i64 %i) {
entry:
  %bytes = mul i64 %n, 8
  %p = call ptr @malloc(i64 %bytes)
  store double %x, ptr %p, align 8
  %q = getelementptr inbounds double, ptr %p, i64 %i
  %v = load double, ptr %q, align 8
  call void @free(ptr %p)
  %m = fmul double %v, %v
  ret double %m
}

define double @caller(double %x, i64 %n, i64 %i) {
entry:
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, i64 %n, i64 %i)
  ret double %r
}

; The shadow allocation has the primal's size and is zeroed; the primal free frees the primal
; only (the shadow lives on until the adjoint).
; CHECK-LABEL: define internal double @augfwd.f.acc{{[.a-z]*}}(ptr %tape, double %x, i64 %n, i64 %i)
; CHECK-NEXT:    %bytes = mul i64 %n, 8
; CHECK-NEXT:    %p = call ptr @malloc(i64 %bytes)
; CHECK-NEXT:    [[SH:%[0-9]+]] = call ptr @malloc(i64 %bytes)
; CHECK-NEXT:    call void @llvm.memset.p0.i64(ptr align 1 [[SH]], i8 0, i64 %bytes, i1 false)
; CHECK-NEXT:    [[T1:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 8)
; CHECK-NEXT:    store ptr [[SH]], ptr [[T1]]
; CHECK-NEXT:    store double %x, ptr %p
; CHECK-NEXT:    [[T2:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 8)
; CHECK-NEXT:    store ptr [[SH]], ptr [[T2]]
; CHECK-NEXT:    %q = getelementptr inbounds double, ptr %p, i64 %i
; CHECK-NEXT:    [[SQ:%[0-9]+]] = getelementptr inbounds double, ptr [[SH]], i64 %i
; CHECK-NEXT:    %v = load double, ptr %q
; CHECK-NEXT:    [[T3:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 8)
; CHECK-NEXT:    store ptr [[SQ]], ptr [[T3]]
; CHECK-NEXT:    call void @free(ptr %p)
; CHECK-NEXT:    %m = fmul double %v, %v
; CHECK-NEXT:    [[T4:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 8)
; CHECK-NEXT:    store double %v, ptr [[T4]]
; CHECK-NEXT:    ret double %m

; CHECK-LABEL: define internal { double } @adjoint.f.acc{{[.a-z]*}}(ptr %tape, double %x, i64 %n, i64 %i, double %dret)
; CHECK:         [[O0:%[0-9]+]] = load double, ptr [[SM:%[0-9]+]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd double [[O0]], %dret
; CHECK-NEXT:    store double [[N0]], ptr [[SM]]
; m = v * v
; CHECK-NEXT:    [[TV:%[0-9]+]] = call ptr @umbra.tape.pop(ptr %tape, i64 8)
; CHECK-NEXT:    [[V:%[0-9]+]] = load double, ptr [[TV]]
; CHECK-NEXT:    [[DM:%[0-9]+]] = load double, ptr [[SM]]
; CHECK-NEXT:    store double 0.000000e+00, ptr [[SM]]
; CHECK-NEXT:    [[A:%[0-9]+]] = fmul double [[DM]], [[V]]
; CHECK-NEXT:    [[O1:%[0-9]+]] = load double, ptr [[SVS:%[0-9]+]]
; CHECK-NEXT:    [[N1:%[0-9]+]] = fadd double [[O1]], [[A]]
; CHECK-NEXT:    store double [[N1]], ptr [[SVS]]
; CHECK-NEXT:    [[B:%[0-9]+]] = fmul double [[V]], [[DM]]
; CHECK-NEXT:    [[O2:%[0-9]+]] = load double, ptr [[SVS]]
; CHECK-NEXT:    [[N2:%[0-9]+]] = fadd double [[O2]], [[B]]
; CHECK-NEXT:    store double [[N2]], ptr [[SVS]]
; v = load q: shadow(q) (popped) += adj(v)
; CHECK-NEXT:    [[TQ:%[0-9]+]] = call ptr @umbra.tape.pop(ptr %tape, i64 8)
; CHECK-NEXT:    [[SQ:%[0-9]+]] = load ptr, ptr [[TQ]]
; CHECK-NEXT:    [[DV:%[0-9]+]] = load double, ptr [[SVS]]
; CHECK-NEXT:    store double 0.000000e+00, ptr [[SVS]]
; CHECK-NEXT:    [[O3:%[0-9]+]] = load double, ptr [[SQ]]
; CHECK-NEXT:    [[N3:%[0-9]+]] = fadd double [[O3]], [[DV]]
; CHECK-NEXT:    store double [[N3]], ptr [[SQ]]
; store x -> p: adj(x) += shadow(p) (popped), shadow(p) = 0
; CHECK-NEXT:    [[TP:%[0-9]+]] = call ptr @umbra.tape.pop(ptr %tape, i64 8)
; CHECK-NEXT:    [[SP:%[0-9]+]] = load ptr, ptr [[TP]]
; CHECK-NEXT:    [[W:%[0-9]+]] = load double, ptr [[SP]]
; CHECK-NEXT:    [[O4:%[0-9]+]] = load double, ptr [[SX:%[0-9]+]]
; CHECK-NEXT:    [[N4:%[0-9]+]] = fadd double [[O4]], [[W]]
; CHECK-NEXT:    store double [[N4]], ptr [[SX]]
; CHECK-NEXT:    store double 0.000000e+00, ptr [[SP]]
; p = malloc: the shadow allocation (popped) is freed.
; CHECK-NEXT:    [[TS:%[0-9]+]] = call ptr @umbra.tape.pop(ptr %tape, i64 8)
; CHECK-NEXT:    [[SHADOW:%[0-9]+]] = load ptr, ptr [[TS]]
; CHECK-NEXT:    call void @free(ptr [[SHADOW]])
; CHECK-NEXT:    br label %exit
; CHECK:       exit:
; CHECK-NEXT:    [[AX:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    insertvalue { double } poison, double [[AX]], 0
