// RUN: %clang -O0 -g -I %testinc -I %runtime-include -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t0.o 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -I %testinc -I %runtime-include -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t2.o 2>&1 | FileCheck %s
// RUN: %clang -O0 -g -I %testinc -I %runtime-include -DFORWARD -c -emit-llvm %s -o %tf.bc
// RUN: not %umbra %tf.bc -o %tf.o 2>&1 | FileCheck %s
// RUN: not %clang -O2 -g -I %testinc -I %runtime-include -fpass-plugin=%plugin -c %s -o %tp.o 2>&1 | FileCheck %s
// A buffer aligned by hand through an integer (`(uintptr_t)raw + 63 & ~63`): the pointer is made
// by `inttoptr`, whose shadow Umbra cannot follow. The error said the pointer "is a constant
// argument or a global" and to pass it as dup, which the user cannot do; it now says what the
// pointer is and what to write instead.
// CHECK: pointer-through-integer.c:[[@LINE+12]]:{{[0-9]+}}: in function 'f': stores a value with a derivative into memory without a shadow ('{{.*}}' is made from an integer, with `inttoptr`: Umbra does not follow pointers through integer arithmetic yet); keep the arithmetic on pointers
// CHECK-NOT: pass the destination as dup
#include <stdint.h>
#include <stdlib.h>
#include "umbra.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double f(const double *x, int n) {
  char *raw = malloc(n * sizeof(double) + 64);
  double *a = (double *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
  for (int i = 0; i < n; i++)
    a[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * a[(i + 1) % n];
  free(raw);
  return s;
}

int main(void) {
  double x[3] = {1, 2, 3}, dx[3] = {0};
#ifdef FORWARD
  double t[3] = {1, 0, 0};
  return __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, 3) > 0;
#else
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 3);
  return dx[0] > 0;
#endif
}
