; memcpy: between duplicated pointers the shadows are copied alike; from constant memory into
; a duplicated destination the destination's shadow is zeroed instead.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_fwddiff(ptr, ...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
@enzyme_const = external global i32

define void @f(ptr %dst, ptr %src, i64 %n) {
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %n, i1 false)
  ret void
}

define void @caller(ptr %dst, ptr %ddst, ptr %src, ptr %dsrc, i64 %n) {
entry:
  call void (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %dst, ptr %ddst, ptr %src, ptr %dsrc, i64 %n)
  %k = load i32, ptr @enzyme_const
  call void (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %dst, ptr %ddst, i32 %k, ptr %src, i64 %n)
  ret void
}

; CHECK-LABEL: define internal void @fwddiffe.f.ddc(ptr %dst, ptr %d.dst, ptr %src, ptr %d.src, i64 %n)
; CHECK:         call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %n, i1 false)
; CHECK-NEXT:    call void @llvm.memcpy.p0.p0.i64(ptr %d.dst, ptr %d.src, i64 %n, i1 false)
; CHECK-NEXT:    ret void

; CHECK-LABEL: define internal void @fwddiffe.f.dcc(ptr %dst, ptr %d.dst, ptr %src, i64 %n)
; CHECK:         call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %n, i1 false)
; CHECK-NEXT:    call void @llvm.memset.p0.i64(ptr {{.*}}%d.dst, i8 0, i64 %n, i1 false)
; CHECK-NEXT:    ret void
