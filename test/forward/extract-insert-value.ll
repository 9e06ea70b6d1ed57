; Aggregates: extractvalue/insertvalue are repeated on the aggregate's tangent; a function
; returning { double, double } returns { primal, tangent } of that type.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare { double, double } @__enzyme_fwddiff(ptr, ...)

; (a, b) -> (a * s, b)
define { double, double } @f({ double, double } %z, double %s) {
entry:
  %a = extractvalue { double, double } %z, 0
  %m = fmul double %a, %s
  %r = insertvalue { double, double } %z, double %m, 0
  ret { double, double } %r
}

define { double, double } @caller({ double, double } %z, { double, double } %dz, double %s, double %ds) {
entry:
  %r = call { double, double } (ptr, ...) @__enzyme_fwddiff(ptr @f, { double, double } %z, { double, double } %dz, double %s, double %ds)
  ret { double, double } %r
}

; CHECK-LABEL: define { double, double } @caller(
; CHECK:         [[C:%.*]] = call { { double, double }, { double, double } } @fwddiffe.f.dd({ double, double } %z, { double, double } %dz, double %s, double %ds)
; CHECK-NEXT:    [[T:%.*]] = extractvalue { { double, double }, { double, double } } [[C]], 1
; CHECK-NEXT:    ret { double, double } [[T]]

; CHECK-LABEL: define internal { { double, double }, { double, double } } @fwddiffe.f.dd({ double, double } %z, { double, double } %d.z, double %s, double %d.s)
; CHECK:         %a = extractvalue { double, double } %z, 0
; CHECK-NEXT:    [[DA:%.*]] = extractvalue { double, double } %d.z, 0
; CHECK-NEXT:    %m = fmul double %a, %s
; CHECK-NEXT:    [[X:%.*]] = fmul double [[DA]], %s
; CHECK-NEXT:    [[Y:%.*]] = fmul double %a, %d.s
; CHECK-NEXT:    [[DM:%.*]] = fadd double [[X]], [[Y]]
; CHECK-NEXT:    %r = insertvalue { double, double } %z, double %m, 0
; CHECK-NEXT:    [[DR:%.*]] = insertvalue { double, double } %d.z, double [[DM]], 0
; CHECK-NEXT:    [[P:%.*]] = insertvalue { { double, double }, { double, double } } poison, { double, double } %r, 0
; CHECK-NEXT:    insertvalue { { double, double }, { double, double } } [[P]], { double, double } [[DR]], 1
