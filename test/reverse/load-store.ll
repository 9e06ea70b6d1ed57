; Loads and stores through duplicated pointers. A store takes the adjoint waiting in the
; destination's shadow and clears it; a load adds its adjoint into the source's shadow. x and
; y may alias (neither is noalias), so the store may overwrite x[i]: the loaded v cannot be
; re-read in the adjoint. It is kept in the call's frame (pushed once, at the return, and
; popped as the adjoint starts); the shadow of the GEP is rebuilt from the argument's shadow.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)

; y[0] = x[i] * x[i]
define void @f(ptr %x, i64 %i, ptr %y) {
entry:
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p, align 8
  %m = fmul double %v, %v
  store double %m, ptr %y, align 8
  ret void
}

define void @caller(ptr %x, ptr %dx, i64 %i, ptr %y, ptr %dy) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, i64 %i, ptr %y, ptr %dy)
  ret void
}

; The forward sweep leaves shadow memory alone (no store to %d.y) and pushes v at the return.
; CHECK-LABEL: define internal void @augfwd.f.dcd{{[.a-z]*}}(ptr %tape, ptr %x, ptr %d.x, i64 %i, ptr %y, ptr %d.y)
; CHECK-NEXT:    %p = getelementptr inbounds double, ptr %x, i64 %i
; CHECK-NOT:     %d.y
; CHECK:         %v = load double, ptr %p
; CHECK-NEXT:    %m = fmul double %v, %v
; CHECK-NEXT:    store double %m, ptr %y
; CHECK-NEXT:    [[T:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 8)
; CHECK-NEXT:    store double %v, ptr [[T]]
; CHECK-NEXT:    ret void

; CHECK-LABEL: define internal void @adjoint.f.dcd{{[.a-z]*}}(ptr %tape, ptr %x, ptr %d.x, i64 %i, ptr %y, ptr %d.y)
; the frame: v
; CHECK:       reverse:
; CHECK-NEXT:    [[TP:%[0-9]+]] = call ptr @umbra.tape.pop(ptr %tape, i64 8)
; CHECK-NEXT:    [[V:%[0-9]+]] = load double, ptr [[TP]]
; store m -> y: adj(m) += shadow(y), then shadow(y) = 0
; CHECK:         [[W:%[0-9]+]] = load double, ptr %d.y
; CHECK-NEXT:    [[O1:%[0-9]+]] = load double, ptr [[SM:%[0-9]+]]
; CHECK-NEXT:    [[N1:%[0-9]+]] = fadd reassoc double [[O1]], [[W]]
; CHECK-NEXT:    store double [[N1]], ptr [[SM]]
; CHECK-NEXT:    store double 0.000000e+00, ptr %d.y
; m = v * v: adj(v) += (dm + dm) * v
; CHECK-NEXT:    [[DM:%[0-9]+]] = load double, ptr [[SM]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SM]]
; CHECK-NEXT:    [[DM2:%[0-9]+]] = fadd double [[DM]], [[DM]]
; CHECK-NEXT:    [[A:%[0-9]+]] = fmul double [[DM2]], [[V]]
; CHECK-NEXT:    [[O2:%[0-9]+]] = load double, ptr [[SV:%[0-9]+]]
; CHECK-NEXT:    [[N2:%[0-9]+]] = fadd reassoc double [[O2]], [[A]]
; CHECK-NEXT:    store double [[N2]], ptr [[SV]]
; v = load p: shadow(p) += adj(v), shadow(p) = d.x + i
; CHECK-NEXT:    [[DV:%[0-9]+]] = load double, ptr [[SV]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SV]]
; CHECK-NEXT:    [[SP:%[0-9]+]] = getelementptr inbounds double, ptr %d.x, i64 %i
; CHECK-NEXT:    [[O4:%[0-9]+]] = load double, ptr [[SP]]
; CHECK-NEXT:    [[N4:%[0-9]+]] = fadd double [[O4]], [[DV]]
; CHECK-NEXT:    store double [[N4]], ptr [[SP]]
; CHECK-NEXT:    br label %exit
; CHECK:       exit:
; CHECK-NEXT:    ret void
