; A crash in LLVM's code generator on the verified module (the fuzzer found inputs on which
; llc-22 itself crashes): one line that blames LLVM's code generator and says how to tell,
; the exit status of unreadable input (2), not an internal error, and no output. The crash is
; injected where code generation starts.
; RUN: rm -f %t.o
; RUN: bash -c '__UMBRA_TEST_FAULT=codegen %umbra %s -o %t.o; echo "exit $?"' > %t.log 2>&1
; RUN: FileCheck %s < %t.log
; RUN: count 2 < %t.log
; RUN: test ! -e %t.o
; CHECK: umbra: error: cannot compile '{{.*}}codegen-crash.ll': LLVM's code generator crashed with a segmentation fault on the (verified) module; if `llc-22` crashes on the input too, the bug is LLVM's; otherwise report it to umbra with the input and the command line
; CHECK-NEXT: exit 2

define double @sq(double %x) {
  %m = fmul double %x, %x
  ret double %m
}
