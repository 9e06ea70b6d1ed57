; An output that cannot be written is an error that says why, before any work is done.
; RUN: bash -c '%umbra %s --emit=llvm-ir -o /proc/version; echo "exit $?"' > %t.log 2>&1
; RUN: FileCheck %s --check-prefix=PROC < %t.log
; RUN: count 2 < %t.log
; RUN: rm -rf %t.dir
; RUN: bash -c '%umbra %s -o %t.dir/x.o; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=DIR
; RUN: test ! -e %t.dir
; PROC: umbra: error: cannot write '/proc/version': cannot create files in '/proc'
; PROC-NEXT: exit 1
; DIR: umbra: error: cannot write '{{.*}}.dir/x.o': directory '{{.*}}.dir' does not exist
; DIR-NEXT: exit 1

define double @sq(double %x) {
  %m = fmul double %x, %x
  ret double %m
}
