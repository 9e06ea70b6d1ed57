; A branch whose condition the adjoint cannot evaluate again: it reads p[0], which the function
; overwrites after the branch, so the adjoint would see the new value. The join records which
; arm was taken (0 = else, 1 = then, the augmented sweep's predecessor phi) and the adjoint pops
; it and switches on it. (A condition the adjoint can rebuild records nothing: branch.ll.)
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare void @__enzyme_autodiff(ptr, ...)

define double @f(ptr %p, double %x, double %y) {
entry:
  %v = load double, ptr %p, align 8
  %c = fcmp ogt double %v, 0.0
  br i1 %c, label %then, label %else

then:
  %a = fmul double %x, %y
  br label %join

else:
  %b = fsub double %x, %y
  br label %join

join:
  %r = phi double [ %a, %then ], [ %b, %else ]
  store double %r, ptr %p, align 8
  ret double %r
}

define void @caller(ptr %p, ptr %dp, double %x, double %y) {
entry:
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %p, ptr %dp, double %x, double %y)
  ret void
}

; CHECK-LABEL: define internal {{.*}} @augfwd.f.
; CHECK:       %r = phi double [ %a, %[[THEN:[0-9]+]] ], [ %b, %[[ELSE:[0-9]+]] ]
; CHECK-NEXT:    [[IDX:%[0-9]+]] = phi i32 [ 0, %[[ELSE]] ], [ 1, %[[THEN]] ]
; CHECK-NEXT:    [[T:%[0-9]+]] = call ptr @umbra.tape.push(ptr %tape, i64 4)
; CHECK-NEXT:    store i32 [[IDX]], ptr [[T]]

; CHECK-LABEL: define internal {{.*}} @adjoint.f.
; CHECK:         [[TI:%[0-9]+]] = call ptr @umbra.tape.pop(ptr %tape, i64 4)
; CHECK-NEXT:    [[K:%[0-9]+]] = load i32, ptr [[TI]]
; CHECK:         switch i32 [[K]], label %{{[0-9]+}} [
; CHECK-NEXT:      i32 1, label %{{[0-9]+}}
; CHECK-NEXT:    ]
