; An empty function name in --inactive is an error, alone or inside a list.
; RUN: rm -f %t.o
; RUN: bash -c "%umbra %s --inactive '' -o %t.o; echo exit \$?" > %t.log 2>&1
; RUN: FileCheck %s < %t.log
; RUN: count 2 < %t.log
; RUN: bash -c '%umbra %s --inactive=f,,g -o %t.o; echo "exit $?"' 2>&1 | FileCheck %s
; RUN: test ! -e %t.o
; CHECK: umbra: error: --inactive: empty function name
; CHECK-NEXT: exit 1

define double @sq(double %x) {
  %m = fmul double %x, %x
  ret double %m
}
