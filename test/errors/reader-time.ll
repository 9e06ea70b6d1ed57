; Reading that runs too long stops at the CPU-time limit: one line, exit status 2, no output.
; The endless reader is injected (independent of LLVM's bugs).
; RUN: rm -f %t.o
; RUN: bash -c '__UMBRA_TEST_FAULT=parse-text:spin %umbra %s --max-read-time=1 -o %t.o; echo "exit $?"' > %t.log 2>&1
; RUN: FileCheck %s < %t.log
; RUN: count 2 < %t.log
; RUN: test ! -e %t.o
; CHECK: umbra: error: cannot read '{{.*}}reader-time.ll': reading took more than 1 s of CPU time (the input is probably malformed; --max-read-time raises the limit)
; CHECK-NEXT: exit 2

define double @sq(double %x) {
  %m = fmul double %x, %x
  ret double %m
}
