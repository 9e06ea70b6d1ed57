; Two 'out' arguments around a constant one: the adjoint returns { adj(x), adj(y) } in argument
; order, and the request's struct result is rebuilt from it field by field.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare { double, double } @__enzyme_autodiff(ptr, ...)
@enzyme_const = external global i32

; f(x, n, y) = x - y * n
define double @f(double %x, i32 %n, double %y) {
entry:
  %c = sitofp i32 %n to double
  %t = fmul double %y, %c
  %q = fsub double %x, %t
  ret double %q
}

define { double, double } @caller(double %x, i32 %n, double %y) {
entry:
  %mc = load i32, ptr @enzyme_const
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, i32 %mc, i32 %n, double %y)
  ret { double, double } %r
}

; The caller: the constant n is passed to both sweeps (no shadow), and the request's
; { double, double } is rebuilt from the adjoint's struct in order.
; CHECK-LABEL: define { double, double } @caller(double %x, i32 %n, double %y)
; CHECK:         call double @augfwd.f.aca[[SFX:[.a-z]*]](ptr %tape, double %x, i32 %n, double %y)
; CHECK-NEXT:    call void @umbra.tape.settle(ptr %tape, ptr @umbra.tape.hint)
; CHECK-NEXT:    [[ADJ:%[0-9]+]] = call { double, double } @adjoint.f.aca[[SFX]](ptr %tape, double %x, i32 %n, double %y, double 1.000000e+00)
; CHECK:         [[GX:%[0-9]+]] = extractvalue { double, double } [[ADJ]], 0
; CHECK-NEXT:    [[R1:%[0-9]+]] = insertvalue { double, double } poison, double [[GX]], 0
; CHECK-NEXT:    [[GY:%[0-9]+]] = extractvalue { double, double } [[ADJ]], 1
; CHECK-NEXT:    [[R2:%[0-9]+]] = insertvalue { double, double } [[R1]], double [[GY]], 1
; CHECK-NEXT:    ret { double, double } [[R2]]

; CHECK-LABEL: define internal double @augfwd.f.aca{{[.a-z]*}}(ptr %tape, double %x, i32 %n, double %y)
; CHECK-NEXT:    %c = sitofp i32 %n to double
; CHECK-NEXT:    %t = fmul double %y, %c
; CHECK-NEXT:    %q = fsub double %x, %t
; CHECK-NEXT:    ret double %q

; CHECK-LABEL: define internal { double, double } @adjoint.f.aca{{[.a-z]*}}(ptr %tape, double %x, i32 %n, double %y, double %dret)
; CHECK:         [[O0:%[0-9]+]] = load double, ptr [[SQ:%[0-9]+]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd reassoc double [[O0]], %dret
; CHECK-NEXT:    store double [[N0]], ptr [[SQ]]
; q = x - t
; CHECK-NEXT:    [[D:%[0-9]+]] = load double, ptr [[SQ]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SQ]]
; CHECK-NEXT:    [[O1:%[0-9]+]] = load double, ptr [[SX:%[0-9]+]]
; CHECK-NEXT:    [[N1:%[0-9]+]] = fadd reassoc double [[O1]], [[D]]
; CHECK-NEXT:    store double [[N1]], ptr [[SX]]
; CHECK-NEXT:    [[ND:%[0-9]+]] = fneg arcp double [[D]]
; CHECK-NEXT:    [[O2:%[0-9]+]] = load double, ptr [[ST:%[0-9]+]]
; CHECK-NEXT:    [[N2:%[0-9]+]] = fadd reassoc double [[O2]], [[ND]]
; CHECK-NEXT:    store double [[N2]], ptr [[ST]]
; t = y * c, c = (double)n rebuilt; n itself has no adjoint
; CHECK-NEXT:    [[DT:%[0-9]+]] = load double, ptr [[ST]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[ST]]
; CHECK-NEXT:    [[C:%[0-9]+]] = sitofp i32 %n to double
; CHECK-NEXT:    [[TY:%[0-9]+]] = fmul double [[DT]], [[C]]
; CHECK-NEXT:    [[O3:%[0-9]+]] = load double, ptr [[SY:%[0-9]+]]
; CHECK-NEXT:    [[N3:%[0-9]+]] = fadd reassoc double [[O3]], [[TY]]
; CHECK-NEXT:    store double [[N3]], ptr [[SY]]
; CHECK-NEXT:    br label %exit
; Field 0 is x's adjoint, field 1 is y's.
; CHECK:       exit:
; CHECK-NEXT:    [[AX:%[0-9]+]] = load double, ptr [[SX]]
; CHECK-NEXT:    [[AXZ:%[0-9]+]] = fadd double [[AX]], 0.000000e+00
; CHECK-NEXT:    [[R:%[0-9]+]] = insertvalue { double, double } poison, double [[AXZ]], 0
; CHECK-NEXT:    [[AY:%[0-9]+]] = load double, ptr [[SY]]
; CHECK-NEXT:    [[AYZ:%[0-9]+]] = fadd double [[AY]], 0.000000e+00
; CHECK-NEXT:    [[R2:%[0-9]+]] = insertvalue { double, double } [[R]], double [[AYZ]], 1
; CHECK-NEXT:    ret { double, double } [[R2]]
