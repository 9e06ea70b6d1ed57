; Endless or oversized input is refused without reading it all: /dev/zero is rejected after its
; first bytes, and a file larger than the memory limit before reading it.
; RUN: rm -f %t.o
; RUN: bash -c '%umbra /dev/zero -o %t.o; echo "exit $?"' > %t.log 2>&1
; RUN: FileCheck %s --check-prefix=ZERO < %t.log
; RUN: count 2 < %t.log
; RUN: bash -c '%umbra - -o %t.o < /dev/zero; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=STDIN
; RUN: rm -f %t.big && truncate -s 17M %t.big
; RUN: bash -c '%umbra %t.big --max-memory=16 -o %t.o; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=BIG
; RUN: test ! -e %t.o
; ZERO: umbra: error: '/dev/zero' is neither LLVM bitcode nor textual IR
; ZERO-NEXT: exit 1
; STDIN: umbra: error: '<stdin>' is neither LLVM bitcode nor textual IR
; STDIN-NEXT: exit 1
; BIG: umbra: error: cannot read '{{.*}}.big': it is larger than the memory limit of 16 MiB (--max-memory raises the limit)
; BIG-NEXT: exit 1
