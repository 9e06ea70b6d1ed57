; An unknown target feature is an error, and so is a feature without its '+' or '-' (LLVM would
; read 'avx2' as "disable avx2").
; RUN: rm -f %t.o
; RUN: bash -c '%umbra %s --features=+bogus -o %t.o; echo "exit $?"' > %t.log 2>&1
; RUN: FileCheck %s < %t.log
; RUN: count 2 < %t.log
; RUN: bash -c '%umbra %s --features=avx2 -o %t.o; echo "exit $?"' > %t.sign.log 2>&1
; RUN: FileCheck %s --check-prefix=SIGN < %t.sign.log
; RUN: count 2 < %t.sign.log
; RUN: test ! -e %t.o
; CHECK: umbra: error: unknown target feature '+bogus' for target '{{.*}}'
; CHECK-NEXT: exit 1
; SIGN: umbra: error: --features: 'avx2' must start with '+' (enable) or '-' (disable)
; SIGN-NEXT: exit 1

define double @sq(double %x) {
  %m = fmul double %x, %x
  ret double %m
}
