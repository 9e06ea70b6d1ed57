; The corrupt-input corpus (test/corrupt/corpus.py): mutants of the seed modules, truncations,
; and the checked-in inputs that crash LLVM's bitcode reader or make it allocate without bound.
; Each must give exit 0 with an output, or exit 1 or 2 with one error line and no output left
; behind (an existing one untouched); the known crashers must give exit 2.
; RUN: python3 %S/../corrupt/corpus.py %umbra %t | FileCheck %s
; CHECK-NOT: FAIL
; CHECK: {{[0-9]+}} inputs ({{.*}}exit 2: {{[1-9][0-9]*}}{{.*}}), 0 failures
