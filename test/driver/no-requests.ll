; A module without derivative requests passes through the plugin and the driver unchanged.
; RUN: %opt-umbra -passes=umbra %s | FileCheck %s
; RUN: %umbra %s --emit=llvm-ir -O0 -o - | FileCheck %s

define double @square(double %x) {
entry:
  %m = fmul double %x, %x
  ret double %m
}

; CHECK-LABEL: define double @square(double %x)
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %m = fmul double %x, %x
; CHECK-NEXT:    ret double %m
; CHECK-NEXT:  }
