// RUN: %clang -O0 -g -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t.o 2>&1 | FileCheck %s
// RUN: not %clang -O2 -g -c -fpass-plugin=%plugin %s -o %t.o 2>&1 | FileCheck %s
// Two floats packed into one uint64_t (zext, shl and or once SROA has run) and passed to a
// non-inlined function. The derivative was silently dropped in reverse mode: the type
// analysis did not follow bytes through zext, shl, lshr, trunc and or, so the integer looked
// like plain integer data. It now sees <2 x float>; forward mode differentiates it
// (test/integration/forward/float-bits-call.c), reverse mode has no adjoint for the packing
// operations yet and says so, and what to write instead.
#include <stdint.h>
#include <string.h>

__attribute__((noinline)) static float pair_sum(uint64_t u) {
  float p[2];
  memcpy(p, &u, sizeof p);
  return p[0] * p[1] + p[1];
}

float h(float a, float b) {
  float p[2] = {a, b};
  uint64_t u;
  memcpy(&u, p, sizeof u);
  return pair_sum(u) * a;
}
// CHECK: float-bits-packed.c:[[@LINE-2]]:{{[0-9]+}}: in function 'h': '{{.*}}or {{.*}}i64 {{.*}}' operates on the bits of floating-point data (<2 x float>) as an integer; reverse mode cannot carry a derivative through it (it packs or unpacks floats in one integer: keep them as floating-point values (separate arguments, or a struct or array of floats), or let the call passing the packed integer be inlined)

typedef struct {
  float da, db;
} Grad2f;
Grad2f __enzyme_autodiff_h(void *, ...);
Grad2f dh(float a, float b) { return __enzyme_autodiff_h((void *)h, a, b); }
