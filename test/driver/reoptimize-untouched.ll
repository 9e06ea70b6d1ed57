; Re-optimisation skips what differentiation left alone, which the host optimised already, and
; optimises the rest: the functions holding requests, the derived code and whatever those refer
; to. A function that does not look optimised (a local still in memory) is optimised anyway.
; The attributes that keep functions out of the pipeline are gone from the output.
; RUN: %umbra %s --emit=llvm-ir -O2 -o - | FileCheck %s
; RUN: %opt-umbra '-passes=umbra<reopt=O2>' %s | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)

define internal double @f(double %x) {
  %n = call i32 @count(i32 3)
  %c = sitofp i32 %n to double
  %m = fmul double %x, %x
  %r = fmul double %m, %c
  ret double %r
}

; Called by the derived code: optimised (the two adds are one).
define i32 @count(i32 %k) {
  %a = add i32 %k, 1
  %b = add i32 %k, 1
  %s = add i32 %a, %b
  ret i32 %s
}

define double @grad(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %d
}

; Untouched: the repeated product stays, and so does the call (not inlined).
define double @alone(double %x) {
  %a = fmul double %x, 2.0
  %b = fmul double %x, 2.0
  %c = fadd double %a, %b
  ret double %c
}

define double @calls_alone(double %x) {
  %r = call double @alone(double %x)
  ret double %r
}

; Untouched but unoptimised: the local becomes a register.
define double @unoptimised(double %x) {
  %p = alloca double
  store double %x, ptr %p
  %v = load double, ptr %p
  %r = fmul double %v, %v
  ret double %r
}

; CHECK-LABEL: define {{.*}}i32 @count(i32 %k)
; CHECK-NOT:     add i32 %k, 1
; CHECK:         ret i32

; CHECK-LABEL: define double @grad(double %x)
; CHECK-NOT:     call {{.*}}@__enzyme_autodiff
; CHECK-NOT:     call {{.*}}@adjoint.f
; CHECK:         ret double

; CHECK-LABEL: define double @alone(double %x)
; CHECK-NEXT:    %a = fmul double %x, 2.000000e+00
; CHECK-NEXT:    %b = fmul double %x, 2.000000e+00
; CHECK-NEXT:    %c = fadd double %a, %b

; CHECK-LABEL: define double @calls_alone(double %x)
; CHECK-NEXT:    %r = call double @alone(double %x)

; CHECK-LABEL: define double @unoptimised(double %x)
; CHECK-NEXT:    %r = fmul double %x, %x
; CHECK-NEXT:    ret double %r

; CHECK-NOT: umbra-reopt-skip
; CHECK-NOT: optnone
