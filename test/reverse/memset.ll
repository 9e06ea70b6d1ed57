; memset of a duplicated pointer: the values it overwrote get no adjoint, so the adjoint zeroes
; the shadow over the same length.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

; v = p[0]; memset(p, 0, n); w = p[i]; return v * w
define double @f(ptr %p, i64 %n, i64 %i) {
entry:
  %v = load double, ptr %p, align 8
  call void @llvm.memset.p0.i64(ptr %p, i8 0, i64 %n, i1 false)
  %q = getelementptr inbounds double, ptr %p, i64 %i
  %w = load double, ptr %q, align 8
  %m = fmul double %v, %w
  ret double %m
}

define void @caller(ptr %p, ptr %dp, i64 %n, i64 %i) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %p, ptr %dp, i64 %n, i64 %i)
  ret void
}

; v is read before the memset overwrites p[0]: it is kept in the frame (pushed at the return,
; popped as the adjoint starts). w is read after the last write, so the adjoint re-reads it.
; The primal memset runs as it is.
; CHECK-LABEL: define internal double @augfwd.f.dcc{{[.a-z]*}}(ptr %tape, ptr %p, ptr %d.p, i64 %n, i64 %i)
; CHECK-NEXT:    %v = load double, ptr %p, align 8
; CHECK-NEXT:    call void @llvm.memset.p0.i64(ptr %p, i8 0, i64 %n, i1 false)
; CHECK-NEXT:    %q = getelementptr inbounds double, ptr %p, i64 %i
; CHECK-NOT:     memset
; CHECK:         %w = load double, ptr %q, align 8
; CHECK-NEXT:    %m = fmul double %v, %w
; CHECK-NEXT:    [[T1:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 8)
; CHECK-NEXT:    store double %v, ptr [[T1]]
; CHECK-NEXT:    ret double %m

; CHECK-LABEL: define internal void @adjoint.f.dcc{{[.a-z]*}}(ptr %tape, ptr %p, ptr %d.p, i64 %n, i64 %i, double %dret)
; CHECK:       reverse:
; CHECK-NEXT:    [[TV:%[0-9]+]] = call ptr @umbra.tape.pop(ptr %tape, i64 8)
; CHECK-NEXT:    [[V:%[0-9]+]] = load double, ptr [[TV]]
; CHECK:         [[O0:%[0-9]+]] = load double, ptr [[SM:%[0-9]+]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd reassoc double [[O0]], %dret
; CHECK-NEXT:    store double [[N0]], ptr [[SM]]
; m = v * w, w re-read from p[i]
; CHECK-NEXT:    [[DM:%[0-9]+]] = load double, ptr [[SM]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SM]]
; CHECK-NEXT:    [[Q:%[0-9]+]] = getelementptr inbounds double, ptr %p, i64 %i
; CHECK-NEXT:    [[W:%[0-9]+]] = load double, ptr [[Q]]
; CHECK-NEXT:    [[T1:%[0-9]+]] = fmul double [[DM]], [[W]]
; CHECK-NEXT:    [[O1:%[0-9]+]] = load double, ptr [[SV:%[0-9]+]]
; CHECK-NEXT:    [[N1:%[0-9]+]] = fadd reassoc double [[O1]], [[T1]]
; CHECK-NEXT:    store double [[N1]], ptr [[SV]]
; CHECK-NEXT:    [[T2:%[0-9]+]] = fmul double [[V]], [[DM]]
; CHECK-NEXT:    [[O2:%[0-9]+]] = load double, ptr [[SW:%[0-9]+]]
; CHECK-NEXT:    [[N2:%[0-9]+]] = fadd reassoc double [[O2]], [[T2]]
; CHECK-NEXT:    store double [[N2]], ptr [[SW]]
; w = load q: shadow(q) += adj(w)
; CHECK-NEXT:    [[DW:%[0-9]+]] = load double, ptr [[SW]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SW]]
; CHECK-NEXT:    [[SQ:%[0-9]+]] = getelementptr inbounds double, ptr %d.p, i64 %i
; CHECK-NEXT:    [[O3:%[0-9]+]] = load double, ptr [[SQ]]
; CHECK-NEXT:    [[N3:%[0-9]+]] = fadd double [[O3]], [[DW]]
; CHECK-NEXT:    store double [[N3]], ptr [[SQ]]
; memset: the overwritten values get no adjoint
; CHECK-NEXT:    call void @llvm.memset.p0.i64(ptr align 1 %d.p, i8 0, i64 %n, i1 false)
; v = load p
; CHECK-NEXT:    [[DV:%[0-9]+]] = load double, ptr [[SV]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SV]]
; CHECK-NEXT:    [[O4:%[0-9]+]] = load double, ptr %d.p
; CHECK-NEXT:    [[N4:%[0-9]+]] = fadd double [[O4]], [[DV]]
; CHECK-NEXT:    store double [[N4]], ptr %d.p
; CHECK-NEXT:    br label %exit
