; An unknown --cpu is an error (LLVM itself only warns, then ignores it or aborts later), and an
; existing output is left as it was.
; RUN: echo existing > %t.o
; RUN: bash -c '%umbra %s --cpu=bogus -o %t.o; echo "exit $?"' > %t.log 2>&1
; RUN: FileCheck %s < %t.log
; RUN: count 2 < %t.log
; RUN: FileCheck %s --check-prefix=KEEP < %t.o
; CHECK: umbra: error: unknown CPU 'bogus' for target '{{.*}}' (`llc-22 -mtriple={{.*}} -mcpu=help` lists the known ones)
; CHECK-NEXT: exit 1
; KEEP: existing

define double @sq(double %x) {
  %m = fmul double %x, %x
  ret double %m
}
