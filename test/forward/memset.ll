; memset: the shadow is set to zero bytes (whatever the primal's fill byte), over the same
; length.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_fwddiff(ptr, ...)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

define void @f(ptr %p, i8 %c, i64 %n) {
entry:
  call void @llvm.memset.p0.i64(ptr %p, i8 %c, i64 %n, i1 false)
  ret void
}

define void @caller(ptr %p, ptr %dp, i8 %c, i64 %n) {
entry:
  call void (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %p, ptr %dp, i8 %c, i64 %n)
  ret void
}

; CHECK-LABEL: define internal void @fwddiffe.f.dcc(ptr %p, ptr %d.p, i8 %c, i64 %n)
; CHECK:         call void @llvm.memset.p0.i64(ptr %p, i8 %c, i64 %n, i1 false)
; CHECK-NEXT:    call void @llvm.memset.p0.i64(ptr %d.p, i8 0, i64 %n, i1 false)
; CHECK-NEXT:    ret void
