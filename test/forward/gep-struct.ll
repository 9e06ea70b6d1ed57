; GEPs into a struct (a field, and an array element inside a field at a variable index) are
; repeated on the shadow pointer with the same indices.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

%struct.S = type { i32, double, [4 x double] }

declare double @__enzyme_fwddiff(ptr, ...)

define double @f(ptr %s, i64 %i) {
entry:
  %fp = getelementptr inbounds %struct.S, ptr %s, i64 0, i32 1
  %a = load double, ptr %fp, align 8
  %ep = getelementptr inbounds %struct.S, ptr %s, i64 0, i32 2, i64 %i
  %b = load double, ptr %ep, align 8
  %m = fmul double %a, %b
  ret double %m
}

define double @caller(ptr %s, ptr %ds, i64 %i) {
entry:
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %s, ptr %ds, i64 %i)
  ret double %r
}

; CHECK-LABEL: define internal { double, double } @fwddiffe.f.dc(ptr %s, ptr %d.s, i64 %i)
; CHECK:         %fp = getelementptr inbounds %struct.S, ptr %s, i64 0, i32 1
; CHECK-NEXT:    [[DFP:%.*]] = getelementptr inbounds %struct.S, ptr %d.s, i64 0, i32 1
; CHECK-NEXT:    %a = load double, ptr %fp, align 8
; CHECK-NEXT:    [[DA:%.*]] = load double, ptr [[DFP]], align 8
; CHECK-NEXT:    %ep = getelementptr inbounds %struct.S, ptr %s, i64 0, i32 2, i64 %i
; CHECK-NEXT:    [[DEP:%.*]] = getelementptr inbounds %struct.S, ptr %d.s, i64 0, i32 2, i64 %i
; CHECK-NEXT:    %b = load double, ptr %ep, align 8
; CHECK-NEXT:    [[DB:%.*]] = load double, ptr [[DEP]], align 8
; CHECK-NEXT:    %m = fmul double %a, %b
; CHECK-NEXT:    [[X:%.*]] = fmul double [[DA]], %b
; CHECK-NEXT:    [[Y:%.*]] = fmul double %a, [[DB]]
; CHECK-NEXT:    [[DM:%.*]] = fadd double [[X]], [[Y]]
; CHECK-NEXT:    [[R:%.*]] = insertvalue { double, double } poison, double %m, 0
; CHECK-NEXT:    insertvalue { double, double } [[R]], double [[DM]], 1
