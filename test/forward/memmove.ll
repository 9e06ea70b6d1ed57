; memmove (intrinsic and libc): the shadows are moved alike; libc memmove returns its
; destination, so the returned pointer's shadow is the destination's shadow.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_fwddiff(ptr, ...)
declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)
declare ptr @memmove(ptr, ptr, i64)

define void @f(ptr %dst, ptr %src, i64 %n) {
entry:
  call void @llvm.memmove.p0.p0.i64(ptr %dst, ptr %src, i64 %n, i1 false)
  ret void
}

; The pointer returned by memmove is used: stores through it reach the shadow of %dst.
define void @g(ptr %dst, ptr %src, i64 %n, double %x) {
entry:
  %r = call ptr @memmove(ptr %dst, ptr %src, i64 %n)
  store double %x, ptr %r, align 8
  ret void
}

define void @caller(ptr %dst, ptr %ddst, ptr %src, ptr %dsrc, i64 %n, double %x, double %dx) {
entry:
  call void (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %dst, ptr %ddst, ptr %src, ptr %dsrc, i64 %n)
  call void (ptr, ...) @__enzyme_fwddiff(ptr @g, ptr %dst, ptr %ddst, ptr %src, ptr %dsrc, i64 %n, double %x, double %dx)
  ret void
}

; CHECK-LABEL: define internal void @fwddiffe.f.ddc(ptr %dst, ptr %d.dst, ptr %src, ptr %d.src, i64 %n)
; CHECK:         call void @llvm.memmove.p0.p0.i64(ptr %dst, ptr %src, i64 %n, i1 false)
; CHECK-NEXT:    call void @llvm.memmove.p0.p0.i64(ptr %d.dst, ptr %d.src, i64 %n, i1 false)
; CHECK-NEXT:    ret void

; CHECK-LABEL: define internal void @fwddiffe.g.ddcd(ptr %dst, ptr %d.dst, ptr %src, ptr %d.src, i64 %n, double %x, double %d.x)
; CHECK:         %r = call ptr @memmove(ptr %dst, ptr %src, i64 %n)
; CHECK-NEXT:    call ptr @memmove(ptr %d.dst, ptr %d.src, i64 %n)
; CHECK-NEXT:    store double %x, ptr %r, align 8
; CHECK-NEXT:    store double %d.x, ptr %d.dst, align 8
; CHECK-NEXT:    ret void
