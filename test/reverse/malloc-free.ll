; malloc: the augmented sweep allocates a shadow of the same size and zeroes it; the adjoint
; frees it when it reaches the malloc. The primal free is deferred to the adjoint: v is read
; after the last write to p, so the adjoint re-reads p[i] instead of taping v, and p must stay
; allocated until then (it is released when the adjoint exits). p and its shadow are kept in
; the call's frame, once, instead of being taped at every use: one push of both at the return.
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

; The shadow allocation has the primal's size and is zeroed; no free in the forward sweep.
; CHECK-LABEL: define internal double @augfwd.f.acc{{[.a-z]*}}(ptr %tape, double %x, i64 %n, i64 %i)
; CHECK-NEXT:    %bytes = mul i64 %n, 8
; CHECK-NEXT:    %p = call ptr @malloc(i64 %bytes)
; CHECK-NEXT:    [[SH:%[0-9]+]] = call ptr @malloc(i64 %bytes)
; CHECK-NEXT:    call void @llvm.memset.p0.i64(ptr align 1 [[SH]], i8 0, i64 %bytes, i1 false)
; CHECK-NEXT:    [[T1:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 8)
; CHECK-NEXT:    store ptr [[SH]], ptr [[T1]]
; CHECK-NEXT:    store double %x, ptr %p
; CHECK-NEXT:    %q = getelementptr inbounds double, ptr %p, i64 %i
; CHECK-NOT:     @free
; CHECK:         %v = load double, ptr %q
; CHECK-NEXT:    %m = fmul double %v, %v
; the frame: p and its shadow, in one slot
; CHECK-NEXT:    [[T2:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 16)
; CHECK-NEXT:    store ptr %p, ptr [[T2]]
; CHECK-NEXT:    [[T3:%[0-9]+]] = getelementptr inbounds i8, ptr [[T2]], i64 8
; CHECK-NEXT:    store ptr [[SH]], ptr [[T3]]
; CHECK-NEXT:    ret double %m

; CHECK-LABEL: define internal { double } @adjoint.f.acc{{[.a-z]*}}(ptr %tape, double %x, i64 %n, i64 %i, double %dret)
; CHECK:         %deferred = alloca { ptr, i64, i64 }
; CHECK:       reverse:
; CHECK-NEXT:    [[F:%[0-9]+]] = call ptr @umbra.tape.pop(ptr %tape, i64 16)
; CHECK-NEXT:    [[P:%[0-9]+]] = load ptr, ptr [[F]]
; CHECK-NEXT:    [[F2:%[0-9]+]] = getelementptr inbounds i8, ptr [[F]], i64 8
; CHECK-NEXT:    [[SP:%[0-9]+]] = load ptr, ptr [[F2]]
; m = v * v, v re-read from p[i]
; CHECK:         [[O0:%[0-9]+]] = load double, ptr [[SM:%[0-9]+]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd reassoc double [[O0]], %dret
; CHECK-NEXT:    store double [[N0]], ptr [[SM]]
; CHECK-NEXT:    [[DM:%[0-9]+]] = load double, ptr [[SM]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SM]]
; CHECK-NEXT:    [[Q:%[0-9]+]] = getelementptr inbounds double, ptr [[P]], i64 %i
; CHECK-NEXT:    [[V:%[0-9]+]] = load double, ptr [[Q]]
; CHECK-NEXT:    [[DM2:%[0-9]+]] = fadd double [[DM]], [[DM]]
; CHECK-NEXT:    fmul double [[DM2]], [[V]]
; free(p): deferred until the adjoint exits
; CHECK:         [[D1:%[0-9]+]] = call ptr @umbra.tape.push(ptr %deferred, i64 8)
; CHECK-NEXT:    store ptr [[P]], ptr [[D1]]
; CHECK-NEXT:    [[D2:%[0-9]+]] = call ptr @umbra.tape.push(ptr %deferred, i64 8)
; CHECK-NEXT:    store ptr @free, ptr [[D2]]
; v = load q: shadow(q) += adj(v)
; CHECK:         [[SQ:%[0-9]+]] = getelementptr inbounds double, ptr [[SP]], i64 %i
; store x -> p: adj(x) += shadow(p)
; CHECK:         load double, ptr [[SP]]
; p = malloc: the shadow allocation (popped) is freed.
; CHECK:         [[TS:%[0-9]+]] = call ptr @umbra.tape.pop(ptr %tape, i64 8)
; CHECK-NEXT:    [[SHADOW:%[0-9]+]] = load ptr, ptr [[TS]]
; CHECK-NEXT:    call void @free(ptr [[SHADOW]])
; CHECK-NEXT:    br label %exit
; CHECK:       exit:
; CHECK-NEXT:    call void @umbra.tape.release(ptr %deferred)
