// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: %umbra %t.bc -o %t.o
// RUN: %clang %t.o -lm -o %t.exe
// RUN: not --crash %t.exe 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -fpass-plugin=%plugin %s -lm -o %t.plugin.exe
// RUN: not --crash %t.plugin.exe 2>&1 | FileCheck %s
// A split-mode tape consumed twice: the second reverse sweep would pop a tape that is no
// longer there. The program stops with a message naming the request instead of computing a
// wrong gradient. The first sweep's result is printed, so it did run.
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_allocated, enzyme_tape;
int __enzyme_augmentsize(void *, ...);
void __enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

__attribute__((noinline)) void sq(double *y, const double *x) { y[0] = x[0] * x[0]; }

int main(void) {
  char tape[32];
  double x = 3, dx = 0, y, dy = 1;
  __enzyme_augmentfwd((void *)sq, enzyme_allocated, 32, enzyme_tape, tape, &y, &dy, &x, &dx);
  __enzyme_reverse((void *)sq, enzyme_allocated, 32, enzyme_tape, tape, &y, &dy, &x, &dx);
  // CHECK: dx = 6
  printf("dx = %g\n", dx);
  fflush(stdout);
  dy = 1;
  // CHECK: umbra: {{.*}}split-tape-reused.c:[[@LINE+1]]:{{[0-9]+}}: __enzyme_reverse of 'sq' got a tape its __enzyme_augmentfwd (same function and activities) did not fill, or one already consumed
  __enzyme_reverse((void *)sq, enzyme_allocated, 32, enzyme_tape, tape, &y, &dy, &x, &dx);
  printf("dx = %g\n", dx);
  return 0;
}
