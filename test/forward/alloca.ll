; An alloca holding differentiable data (it escapes into a callee, so SROA keeps it) gets a
; shadow alloca, zeroed with llvm.memset; stores, the call and the load use the shadow.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)

define void @square_in_place(ptr %p) {
entry:
  %v = load double, ptr %p, align 8
  %m = fmul double %v, %v
  store double %m, ptr %p, align 8
  ret void
}

define double @f(double %x) {
entry:
  %a = alloca double, align 8
  store double %x, ptr %a, align 8
  call void @square_in_place(ptr %a)
  %v = load double, ptr %a, align 8
  ret double %v
}

define double @caller(double %x, double %dx) {
entry:
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx)
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.d(double %x, double %d.x)
; CHECK:         %a = alloca double, align 8
; CHECK-NEXT:    [[SA:%.*]] = alloca double, align 8
; CHECK-NEXT:    call void @llvm.memset.p0.i64(ptr {{.*}}[[SA]], i8 0, i64 8, i1 false)
; CHECK-NEXT:    store double %x, ptr %a, align 8
; CHECK-NEXT:    store double %d.x, ptr [[SA]], align 8
; CHECK-NEXT:    call void @fwddiffe.square_in_place.d(ptr %a, ptr [[SA]])
; CHECK-NEXT:    %v = load double, ptr %a, align 8
; CHECK-NEXT:    [[DV:%.*]] = load double, ptr [[SA]], align 8
; CHECK-NEXT:    [[R:%.*]] = insertvalue { double, double } poison, double %v, 0
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[DV]], 1

; CHECK-LABEL: define internal void @fwddiffe.square_in_place.d(ptr %p, ptr %d.p)
; CHECK:         %v = load double, ptr %p, align 8
; CHECK-NEXT:    [[DV:%.*]] = load double, ptr %d.p, align 8
; CHECK-NEXT:    %m = fmul double %v, %v
; CHECK-NEXT:    [[DD:%.*]] = fadd double [[DV]], [[DV]]
; CHECK-NEXT:    [[DM:%.*]] = fmul double [[DD]], %v
; CHECK-NEXT:    store double %m, ptr %p, align 8
; CHECK-NEXT:    store double [[DM]], ptr %d.p, align 8
