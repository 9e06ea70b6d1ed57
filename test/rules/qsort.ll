; qsort's rule: the call is replaced by the rule's own sort of the element indices
; (umbra.index.qsort.order, which calls qsort_r with the user's comparison), and that order is
; applied to the elements and to their shadows. Reverse mode saves the order and moves the
; shadow elements back with it in the adjoint.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @qsort(ptr, i64, i64, ptr)
declare double @__enzyme_fwddiff(ptr, ...)
declare void @__enzyme_autodiff(ptr, ...)

define internal i32 @by_value(ptr %a, ptr %b) {
  %x = load double, ptr %a
  %y = load double, ptr %b
  %lt = fcmp olt double %x, %y
  %gt = fcmp ogt double %x, %y
  %l = zext i1 %lt to i32
  %g = zext i1 %gt to i32
  %r = sub i32 %g, %l
  ret i32 %r
}

define double @f(ptr %x, i64 %n) {
  call void @qsort(ptr %x, i64 %n, i64 8, ptr @by_value)
  %v = load double, ptr %x
  %w = fmul double %v, 3.0
  ret double %w
}

define double @tangent(ptr %x, ptr %dx, i64 %n) {
  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %x, ptr %dx, i64 %n)
  ret double %t
}

define void @gradient(ptr %x, ptr %dx, i64 %n) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, i64 %n)
  ret void
}

; CHECK-LABEL: define internal {{.*}} @fwddiffe.f.{{.*}}(ptr %x, ptr %d.x, i64 %n)
; CHECK-NOT:     @qsort(
; CHECK:         [[O:%.*]] = call ptr @umbra.index.qsort.order(ptr %x, i64 %n, i64 8, ptr @by_value)
; CHECK-NEXT:    call void @umbra.qsort.gather(ptr %x, ptr [[O]], i64 %n, i64 8)
; CHECK-NEXT:    call void @umbra.qsort.gather(ptr %d.x, ptr [[O]], i64 %n, i64 8)
; CHECK-NEXT:    call void @free(ptr [[O]])
; CHECK-NOT:     @qsort(
; CHECK:         ret

; The order's comparison breaks ties by index.
; CHECK-LABEL: define internal i32 @umbra.index.qsort.compare(ptr %0, ptr %1, ptr %2)
; CHECK:         [[R:%.*]] = call i32 %{{.*}}(ptr
; CHECK:         icmp ult i64
; CHECK:         icmp eq i32 [[R]], 0

; CHECK-LABEL: define internal {{.*}} @augfwd.f.{{.*}}(
; CHECK-NOT:     @qsort(
; CHECK:         [[O:%.*]] = call ptr @umbra.index.qsort.order(ptr %x, i64 %n, i64 8, ptr @by_value)
; CHECK-NEXT:    call void @umbra.qsort.gather(ptr %x, ptr [[O]], i64 %n, i64 8)
; CHECK-NEXT:    call void @umbra.qsort.gather(ptr %d.x, ptr [[O]], i64 %n, i64 8)
; CHECK-NEXT:    ptrtoint ptr [[O]] to i64
; CHECK-NOT:     @qsort(
; CHECK:         ret

; CHECK-LABEL: define internal {{.*}} @adjoint.f.{{.*}}(
; CHECK:         [[P:%.*]] = call ptr @umbra.tape.pop(ptr %tape, i64 8)
; CHECK-NEXT:    [[O:%.*]] = load ptr, ptr [[P]]
; CHECK-NEXT:    call void @umbra.qsort.scatter(ptr %d.x, ptr [[O]], i64 %n, i64 8)
; CHECK-NEXT:    call void @free(ptr [[O]])

