; memcpy of a struct holding a pointer between duplicated pointers (issue 15): the augmented
; sweep copies the shadow of the pointer field (and only it: the float field's shadow holds an
; adjoint) into the destination's shadow, so that the copied pointer's shadow is found later.
; The adjoint adds back only the float field. A copy of pointers only copies the whole shadow.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

%struct.View = type { i64, ptr, double }

declare void @__enzyme_autodiff(ptr, ...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

; *out = *in; return out->scale * out->data[0]
define double @f(ptr %out, ptr %in) {
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr %out, ptr %in, i64 24, i1 false)
  %pd = getelementptr inbounds %struct.View, ptr %out, i64 0, i32 1
  %data = load ptr, ptr %pd, align 8
  %ps = getelementptr inbounds %struct.View, ptr %out, i64 0, i32 2
  %s = load double, ptr %ps, align 8
  %x = load double, ptr %data, align 8
  %m = fmul double %s, %x
  ret double %m
}

; *out = *in for an iterator (one pointer); return out->p[0]
define double @g(ptr %out, ptr %in) {
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr %out, ptr %in, i64 8, i1 false)
  %p = load ptr, ptr %out, align 8
  %x = load double, ptr %p, align 8
  ret double %x
}

define void @caller(ptr %o, ptr %do, ptr %i, ptr %di) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %o, ptr %do, ptr %i, ptr %di)
  call void (ptr, ...) @__enzyme_autodiff(ptr @g, ptr %o, ptr %do, ptr %i, ptr %di)
  ret void
}

; CHECK-LABEL: define internal double @augfwd.f.dd{{[.a-z]*}}(ptr %tape, ptr %out, ptr %d.out, ptr %in, ptr %d.in)
; CHECK-NEXT:    call void @llvm.memcpy.p0.p0.i64(ptr %out, ptr %in, i64 24, i1 false)
; CHECK-NEXT:    call void @umbra.shadow.slots.24.8ptr(ptr %d.out, ptr %d.in, i64 24)
; CHECK:         %data = load ptr, ptr %pd
; CHECK:         load ptr, ptr

; CHECK-LABEL: define internal void @adjoint.f.dd{{[.a-z]*}}(
; CHECK:         call void @umbra.adjoint.slots.24.16double(ptr %d.out, ptr %d.in, i64 24)
; CHECK-NOT:     memset
; CHECK:         ret void

; The helpers copy pointer slots (backwards when the destination is above the source, as
; memmove does) and add float slots back, each only when it fits in the copied bytes.
; CHECK-LABEL: define internal void @umbra.shadow.slots.24.8ptr(ptr %0, ptr %1, i64 %2)
; CHECK:         icmp ugt i64
; CHECK:         [[AT:%[0-9]+]] = add i64 {{%[0-9]+}}, 8
; CHECK:         [[END:%[0-9]+]] = add i64 [[AT]], 8
; CHECK-NEXT:    icmp ule i64 [[END]], %2
; CHECK:         [[S:%[0-9]+]] = getelementptr inbounds i8, ptr %1, i64 [[AT]]
; CHECK-NEXT:    [[V:%[0-9]+]] = load ptr, ptr [[S]], align 1
; CHECK-NEXT:    store ptr [[V]], ptr {{%[0-9]+}}, align 1

; CHECK-LABEL: define internal void @umbra.adjoint.slots.24.16double(ptr %0, ptr %1, i64 %2)
; CHECK:         fadd double
; CHECK:         store double 0.000000e+00

; CHECK-LABEL: define internal double @augfwd.g.dd{{[.a-z]*}}(ptr %tape, ptr %out, ptr %d.out, ptr %in, ptr %d.in)
; CHECK-NEXT:    call void @llvm.memcpy.p0.p0.i64(ptr %out, ptr %in, i64 8, i1 false)
; CHECK-NEXT:    call void @llvm.memcpy.p0.p0.i64(ptr %d.out, ptr %d.in, i64 8, i1 false)
