; Bitcode that makes LLVM's reader allocate without bound (a fuzzing mutant: unlimited, it took
; all 24 GB of the machine) stops at the memory limit: one line, exit status 2, no output.
; RUN: echo existing > %t.o
; RUN: bash -c '%umbra %S/../corrupt/Inputs/reader-oom.bc --max-memory=256 -o %t.o; echo "exit $?"' > %t.log 2>&1
; RUN: FileCheck %s < %t.log
; RUN: count 2 < %t.log
; RUN: FileCheck %s --check-prefix=KEEP < %t.o
; The same for an allocation that grows slowly, injected (independent of LLVM's bugs):
; RUN: bash -c '__UMBRA_TEST_FAULT=parse-text:grow %umbra %s --max-memory=64 -o %t.o; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=GROW
; RUN: FileCheck %s --check-prefix=KEEP < %t.o
; CHECK: umbra: error: cannot read '{{.*}}reader-oom.bc': exceeded the memory limit of 256 MiB while reading (the input is probably malformed; --max-memory raises the limit)
; CHECK-NEXT: exit 2
; GROW: umbra: error: cannot read '{{.*}}reader-memory.ll': exceeded the memory limit of 64 MiB while reading
; GROW-NEXT: exit 2
; KEEP: existing

define double @sq(double %x) {
  %m = fmul double %x, %x
  ret double %m
}
