; --time-report prints the wall time of each phase of the pipeline on stderr, in order.
; RUN: %umbra %s --time-report -O2 -o %t.o 2>&1 | FileCheck %s

declare double @__enzyme_autodiff(ptr, ...)

define internal double @square(double %x) {
  %m = fmul double %x, %x
  ret double %m
}

define double @grad(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @square, double %x)
  ret double %d
}

; CHECK:      umbra: time: read and verify {{ *[0-9]+\.[0-9]+}} s
; CHECK-NEXT: umbra: time: differentiate {{ *[0-9]+\.[0-9]+}} s
; CHECK-NEXT: umbra: time: re-optimise {{ *[0-9]+\.[0-9]+}} s
; CHECK-NEXT: umbra: time: emit {{ *[0-9]+\.[0-9]+}} s
; CHECK-NEXT: umbra: time: total {{ *[0-9]+\.[0-9]+}} s
