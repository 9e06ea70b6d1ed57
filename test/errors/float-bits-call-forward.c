// RUN: %clang -O0 -g -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=O0
// RUN: %clang -O2 -g -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=O2
// Forward mode of float-bits-call.c: the tangent of a double passed as a uint64_t to a
// non-inlined function was dropped (f'(x) half the right value); now a clear error.
#include <stdint.h>
#include <string.h>

double __enzyme_fwddiff(void *, ...);

static uint64_t bits(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

__attribute__((noinline)) static double bits_scaled(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return 2 * d;
}

double f(double x) { return bits_scaled(bits(x)) * x; }

// O0: float-bits-call-forward.c:[[@LINE-2]]:{{[0-9]+}}: in function 'f': receives floating-point data (double) as an integer
// O2: float-bits-call-forward.c:[[@LINE-3]]:{{[0-9]+}}: in function 'f': passes floating-point data (double) as an integer: '{{.*}}bitcast double {{.*}} to i64' (i64) holds float bits

double df(double x) { return __enzyme_fwddiff((void *)f, x, 1.0); }
