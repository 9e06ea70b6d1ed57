; A crash after the input was read is Umbra's fault: one internal-error line that says how to
; report it, exit status 70, no output. The crash is injected.
; RUN: rm -f %t.o
; RUN: bash -c '__UMBRA_TEST_FAULT=work %umbra %s -o %t.o; echo "exit $?"' > %t.log 2>&1
; RUN: FileCheck %s < %t.log
; RUN: count 2 < %t.log
; RUN: test ! -e %t.o
; CHECK: umbra: error: internal error: segmentation fault (this is a bug in umbra {{[0-9.]+}} (LLVM {{[0-9.]+}}); please report it with the input file, the command line and this message)
; CHECK-NEXT: exit 70

define double @sq(double %x) {
  %m = fmul double %x, %x
  ret double %m
}
