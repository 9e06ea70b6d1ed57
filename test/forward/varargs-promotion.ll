; C varargs promote float to double and small integers to int: the request's arguments are
; converted back to the parameter types (fptrunc, trunc), and the float tangent to the
; request's double result (fpext).
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_fwddiff(ptr, ...)

define float @f(float %x, i16 %k) {
entry:
  %fk = sitofp i16 %k to float
  %m = fmul float %x, %fk
  ret float %m
}

define double @caller(double %x, double %dx, i32 %k) {
entry:
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx, i32 %k)
  ret double %r
}

; CHECK-LABEL: define double @caller(double %x, double %dx, i32 %k)
; CHECK-NEXT:  entry:
; CHECK-DAG:     [[X:%.*]] = fptrunc double %x to float
; CHECK-DAG:     [[DX:%.*]] = fptrunc double %dx to float
; CHECK-DAG:     [[K:%.*]] = trunc i32 %k to i16
; CHECK:         [[C:%.*]] = call { float, float } @fwddiffe.f.dc(float [[X]], float [[DX]], i16 [[K]])
; CHECK-NEXT:    [[T:%.*]] = extractvalue { float, float } [[C]], 1
; CHECK-NEXT:    [[E:%.*]] = fpext float [[T]] to double
; CHECK-NEXT:    ret double [[E]]

; CHECK-LABEL: define internal { float, float } @fwddiffe.f.dc(float %x, float %d.x, i16 %k)
; CHECK:         %m = fmul float %x, %fk
; CHECK-NEXT:    [[DM:%.*]] = fmul float %d.x, %fk
