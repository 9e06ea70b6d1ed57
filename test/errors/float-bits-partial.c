// RUN: %clang -O0 -g -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=REV
// RUN: %clang -O2 -g -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=REV
// RUN: not %clang -O2 -g -c -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s --check-prefix=REV
// RUN: %clang -O0 -g -c -emit-llvm -DFORWARD %s -o %tf.bc
// RUN: not %umbra %tf.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=REV
// A float in the low half of a uint64_t passed to a non-inlined function: the integer holds
// float bits but is not filled by whole floats of one format, so no derived signature carries
// it as a float (a double or two floats would be: test/integration/*/float-bits-call.c).
// Its derivative would vanish through the integer parameter: a clear error, in both modes.
#include <stdint.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) static double low_half(uint64_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return 2.0 * f;
}

double f(double x) {
  float y = (float)x;
  uint64_t u = 0;
  memcpy(&u, &y, sizeof y);
  return low_half(u) * x;
}
// REV: float-bits-partial.c:[[@LINE-2]]:{{[0-9]+}}: in function 'f': passes floating-point data (float) as an integer: '{{.*}}zext i32 {{.*}} to i64' (i64) holds float bits but is not filled by whole floats of one format, so a derivative cannot travel through it as an integer parameter or return value; pass or return it as a floating-point value (or let the call be inlined)

#ifdef FORWARD
double df(double x) { return __enzyme_fwddiff((void *)f, x, 1.0); }
#else
double df(double x) { return __enzyme_autodiff((void *)f, x); }
#endif
