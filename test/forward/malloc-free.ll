; malloc gets a shadow malloc of the same size, zeroed; data copied into the buffer has its
; shadow copied into the shadow buffer; free releases the shadow too.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)
declare ptr @malloc(i64)
declare void @free(ptr)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define double @f(ptr %x, i64 %n) {
entry:
  %bytes = shl i64 %n, 3
  %buf = call ptr @malloc(i64 %bytes)
  call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %x, i64 %bytes, i1 false)
  %v = load double, ptr %buf, align 8
  %m = fmul double %v, %v
  call void @free(ptr %buf)
  ret double %m
}

define double @caller(ptr %x, ptr %dx, i64 %n) {
entry:
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %x, ptr %dx, i64 %n)
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.dc(ptr %x, ptr %d.x, i64 %n)
; CHECK:         %buf = call ptr @malloc(i64 %bytes)
; CHECK-NEXT:    [[SB:%.*]] = call ptr @malloc(i64 %bytes)
; CHECK-NEXT:    call void @llvm.memset.p0.i64(ptr {{.*}}[[SB]], i8 0, i64 %bytes, i1 false)
; CHECK-NEXT:    call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %x, i64 %bytes, i1 false)
; CHECK-NEXT:    call void @llvm.memcpy.p0.p0.i64(ptr [[SB]], ptr %d.x, i64 %bytes, i1 false)
; CHECK-NEXT:    %v = load double, ptr %buf, align 8
; CHECK-NEXT:    [[DV:%.*]] = load double, ptr [[SB]], align 8
; CHECK:         call void @free(ptr %buf)
; CHECK-NEXT:    call void @free(ptr [[SB]])
; CHECK-NEXT:    [[R:%.*]] = insertvalue { double, double } poison, double %m, 0
