; Bitcode that crashes LLVM's own bitcode reader (a mutant found by fuzzing; opt-22 crashes on
; it too) is reported as malformed input, on one line, with exit status 2 (not an internal
; error), from a file or from standard input, and no output is left behind.
; RUN: rm -f %t.o
; RUN: bash -c '%umbra %S/../corrupt/Inputs/reader-segv.bc -o %t.o; echo "exit $?"' > %t.log 2>&1
; RUN: FileCheck %s < %t.log
; RUN: count 2 < %t.log
; RUN: bash -c '%umbra - -o %t.o < %S/../corrupt/Inputs/reader-segv-2.bc; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=STDIN
; RUN: test ! -e %t.o
; The parent's account of each phase, with the crash injected (independent of LLVM's bugs):
; RUN: bash -c '__UMBRA_TEST_FAULT=parse-text %umbra %s -o %t.o; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=TEXT
; RUN: bash -c '__UMBRA_TEST_FAULT=verify %umbra %s -o %t.o; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=VERIFY
; RUN: test ! -e %t.o
; CHECK: umbra: error: cannot read '{{.*}}reader-segv.bc': the bitcode is malformed (LLVM's bitcode reader crashed on it with a segmentation fault; the reader does not say at which byte)
; CHECK-NEXT: exit 2
; STDIN: umbra: error: cannot read '<stdin>': the bitcode is malformed (LLVM's bitcode reader crashed on it
; STDIN-NEXT: exit 2
; TEXT: umbra: error: cannot read '{{.*}}reader-crash.ll': the IR is malformed (LLVM's IR parser crashed on it with a segmentation fault)
; TEXT-NEXT: exit 2
; VERIFY: umbra: error: cannot read '{{.*}}reader-crash.ll': the module is malformed (LLVM's verifier crashed on it with a segmentation fault)
; VERIFY-NEXT: exit 2

define double @sq(double %x) {
  %m = fmul double %x, %x
  ret double %m
}
