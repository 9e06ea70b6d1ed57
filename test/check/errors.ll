; `umbra check` refuses clearly what it cannot check: one line `umbra: error: ...`, status 1.
; RUN: bash -c '%umbra check %s --function f; echo "exit $?"' 2>&1 | FileCheck --check-prefix=PTR %s
; PTR: umbra: error: 'f': parameter 0 is ptr; describe it, e.g. --function 'f(x: double[8], n: const 8)'
; PTR: exit 1
; RUN: bash -c '%umbra check %s --function "f(x: double[4])"; echo "exit $?"' 2>&1 | FileCheck --check-prefix=COUNT %s
; COUNT: umbra: error: --function 'f(x: double[4])': 'f' has 2 parameter(s), the description 1
; RUN: bash -c '%umbra check %s --function "f(x: double, n: 4)"; echo "exit $?"' 2>&1 | FileCheck --check-prefix=TYPE %s
; TYPE: umbra: error: --function 'f(x: double, n: 4)': parameter 'x' of 'f' is ptr: the description gives another type
; RUN: bash -c '%umbra check %s --function g; echo "exit $?"' 2>&1 | FileCheck --check-prefix=MISSING %s
; MISSING: umbra: error: the module has no function named 'g'
; RUN: bash -c '%umbra check %s; echo "exit $?"' 2>&1 | FileCheck --check-prefix=NOTHING %s
; NOTHING: umbra: error: nothing to check
; NOTHING: exit 1
; RUN: bash -c '%umbra check %s --function f --range 3; echo "exit $?"' 2>&1 | FileCheck --check-prefix=RANGE %s
; RANGE: umbra: error: --range '3': expected LO,HI
; RUN: bash -c '%umbra check %s --bogus; echo "exit $?"' 2>&1 | FileCheck --check-prefix=USAGE %s
; USAGE: umbra: error: unexpected argument '--bogus' found (see 'umbra check --help')
; USAGE: exit 1
; Described correctly, it passes.
; RUN: %umbra check %s --function 'f(x: double[4], n: const 4)' | FileCheck --check-prefix=OK %s
; OK: umbra check: 'f' ok: worst relative error

define double @f(ptr %x, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %p = getelementptr double, ptr %x, i32 %i
  %v = load double, ptr %p
  %sq = fmul double %v, %v
  %s1 = fadd double %s, %sq
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %s1
}
