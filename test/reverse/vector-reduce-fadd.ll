; llvm.vector.reduce.fadd(s, v): the start value receives the adjoint, every lane of v the same
; adjoint (a splat).
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)
declare double @llvm.vector.reduce.fadd.v4f64(double, <4 x double>)

define double @f(double %s, ptr %x) {
entry:
  %v = load <4 x double>, ptr %x, align 32
  %r = call double @llvm.vector.reduce.fadd.v4f64(double %s, <4 x double> %v)
  ret double %r
}

define double @caller(double %s, ptr %x, ptr %dx) {
entry:
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %s, ptr %x, ptr %dx)
  ret double %r
}

; CHECK-LABEL: define internal double @augfwd.f.ad{{[.a-z]*}}(ptr %tape, double %s, ptr %x, ptr %d.x)
; CHECK-NEXT:    %v = load <4 x double>, ptr %x, align 32
; CHECK-NEXT:    %r = call double @llvm.vector.reduce.fadd.v4f64(double %s, <4 x double> %v)
; CHECK:         ret double %r

; CHECK-LABEL: define internal { double } @adjoint.f.ad{{[.a-z]*}}(ptr %tape, double %s, ptr %x, ptr %d.x, double %dret)
; CHECK:       entry:
; CHECK:         [[SVV:%[0-9]+]] = alloca <4 x double>
; CHECK-NEXT:    store <4 x double> splat (double -0.000000e+00), ptr [[SVV]]
; CHECK:         [[O0:%[0-9]+]] = load double, ptr [[SR:%[0-9]+]]
; CHECK-NEXT:    [[N0:%[0-9]+]] = fadd reassoc double [[O0]], %dret
; CHECK-NEXT:    store double [[N0]], ptr [[SR]]
; CHECK:         [[D:%[0-9]+]] = load double, ptr [[SR]]
; CHECK-NEXT:    store double -0.000000e+00, ptr [[SR]]
; the rule's adjoint half: d for s, splat(d) for v
; CHECK-NEXT:    [[V0:%[0-9]+]] = insertelement <4 x double> zeroinitializer, double [[D]], i32 0
; CHECK-NEXT:    [[V1:%[0-9]+]] = insertelement <4 x double> [[V0]], double [[D]], i32 1
; CHECK-NEXT:    [[V2:%[0-9]+]] = insertelement <4 x double> [[V1]], double [[D]], i32 2
; CHECK-NEXT:    [[V3:%[0-9]+]] = insertelement <4 x double> [[V2]], double [[D]], i32 3
; adj(s) += d
; CHECK-NEXT:    [[OS:%[0-9]+]] = load double, ptr [[SS:%[0-9]+]]
; CHECK-NEXT:    [[NS:%[0-9]+]] = fadd reassoc double [[OS]], [[D]]
; CHECK-NEXT:    store double [[NS]], ptr [[SS]]
; adj(v) += splat(d)
; CHECK-NEXT:    [[OV:%[0-9]+]] = load <4 x double>, ptr [[SVV]]
; CHECK-NEXT:    [[NV:%[0-9]+]] = fadd reassoc <4 x double> [[OV]], [[V3]]
; CHECK-NEXT:    store <4 x double> [[NV]], ptr [[SVV]]
; v = load x: shadow(x) += adj(v), as a vector
; CHECK-NEXT:    [[DV:%[0-9]+]] = load <4 x double>, ptr [[SVV]]
; CHECK-NEXT:    store <4 x double> splat (double -0.000000e+00), ptr [[SVV]]
; CHECK-NEXT:    [[OX:%[0-9]+]] = load <4 x double>, ptr %d.x, align 32
; CHECK-NEXT:    [[NX:%[0-9]+]] = fadd <4 x double> [[OX]], [[DV]]
; CHECK-NEXT:    store <4 x double> [[NX]], ptr %d.x, align 32
; CHECK-NEXT:    br label %exit
; CHECK:       exit:
; CHECK-NEXT:    [[AS:%[0-9]+]] = load double, ptr [[SS]]
; CHECK-NEXT:    [[ASZ:%[0-9]+]] = fadd double [[AS]], 0.000000e+00
; CHECK-NEXT:    insertvalue { double } poison, double [[ASZ]], 0
