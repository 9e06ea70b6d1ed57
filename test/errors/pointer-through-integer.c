// RUN: %clang -O0 -g -I %testinc -I %runtime-include -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t0.o 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -I %testinc -I %runtime-include -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t2.o 2>&1 | FileCheck %s
// RUN: %clang -O0 -g -I %testinc -I %runtime-include -DFORWARD -c -emit-llvm %s -o %tf.bc
// RUN: not %umbra %tf.bc -o %tf.o 2>&1 | FileCheck %s
// RUN: not %clang -O2 -g -I %testinc -I %runtime-include -fpass-plugin=%plugin -c %s -o %tp.o 2>&1 | FileCheck %s
// A pointer made from an integer whose offset is read from memory: the loaded integer may hide
// a pointer (a difference `q - p`), so Umbra cannot tell which block the pointer points into
// and gives it no shadow (integer_pointer_base follows constants and loop counters only).
// The error used to say the pointer "is a constant argument or a global" and to pass it as
// dup, which the user cannot do; it says what the pointer is and what to write instead.
// CHECK: pointer-through-integer.c:[[@LINE+10]]:{{[0-9]+}}: in function 'f': stores a value with a derivative into memory without a shadow ('{{.*}}' is made from an integer, with `inttoptr`, whose value Umbra cannot tie to one pointer
// CHECK-NOT: pass the destination as dup
#include <stdint.h>
#include <stdlib.h>
#include "umbra.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double f(const double *x, const long *offs, double *out) {
  double *o = (double *)((uintptr_t)out + offs[0]);
  *o = x[0] * x[1];
  return out[1] * x[0];
}

int main(void) {
  double x[2] = {1, 2}, dx[2] = {0}, out[2] = {0}, dout[2] = {0};
  long offs[1] = {8};
#ifdef FORWARD
  double t[2] = {1, 0};
  return __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, offs, enzyme_dup, out,
                          dout) > 0;
#else
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, offs, enzyme_dup, out, dout);
  return dx[0] > 0;
#endif
}
