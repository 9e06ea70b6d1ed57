; calloc gets a shadow calloc with the same arguments; calloc memory is zeroed already, so no
; memset follows.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)
declare ptr @calloc(i64, i64)
declare void @free(ptr)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define double @f(ptr %x, i64 %n) {
entry:
  %buf = call ptr @calloc(i64 %n, i64 8)
  call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %x, i64 8, i1 false)
  %v = load double, ptr %buf, align 8
  call void @free(ptr %buf)
  ret double %v
}

define double @caller(ptr %x, ptr %dx, i64 %n) {
entry:
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %x, ptr %dx, i64 %n)
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.dc(ptr %x, ptr %d.x, i64 %n)
; CHECK:         %buf = call ptr @calloc(i64 %n, i64 8)
; CHECK-NEXT:    [[SB:%.*]] = call ptr @calloc(i64 %n, i64 8)
; CHECK-NEXT:    call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %x, i64 8, i1 false)
; CHECK-NEXT:    call void @llvm.memcpy.p0.p0.i64(ptr [[SB]], ptr %d.x, i64 8, i1 false)
; CHECK-NEXT:    %v = load double, ptr %buf, align 8
; CHECK-NEXT:    [[DV:%.*]] = load double, ptr [[SB]], align 8
; CHECK-NEXT:    call void @free(ptr %buf)
; CHECK-NEXT:    call void @free(ptr [[SB]])
; CHECK-NEXT:    [[R:%.*]] = insertvalue { double, double } poison, double %v, 0
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[DV]], 1
