// RUN: %clang -O0 -g -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=O0
// RUN: %clang -O2 -g -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=O2
// RUN: not %clang -O2 -g -c -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s --check-prefix=O2
// A double that travels as a uint64_t (memcpy into an integer, passed by value to a
// non-inlined function, memcpy back) lost its derivative through the integer parameter and
// return: f'(x) came out as half the right value at -O0..-O3 (issue 11, case 1). Integers that
// carry float bits are floats for differentiation, and an integer parameter or return value has
// no derivative path, so this is now a clear error at the call, never a silent zero.
#include <stdint.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);

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

// O0: float-bits-call.c:[[@LINE-2]]:{{[0-9]+}}: in function 'f': receives floating-point data (double) as an integer: '{{.*}}call i64 @bits{{.*}}' (i64) holds float bits
// O2: float-bits-call.c:[[@LINE-3]]:{{[0-9]+}}: in function 'f': passes floating-point data (double) as an integer: '{{.*}}bitcast double {{.*}} to i64' (i64) holds float bits, and a derivative cannot travel through an integer parameter or return value; pass or return it as a floating-point value (or let the call be inlined)

double df(double x) { return __enzyme_autodiff((void *)f, x); }
