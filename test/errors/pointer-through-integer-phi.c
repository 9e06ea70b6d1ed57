// RUN: %clang -O0 -g -I %testinc -I %runtime-include -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t0.o 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -I %testinc -I %runtime-include -c -emit-llvm %s -o %t2.bc
// RUN: not %umbra %t2.bc -o %t2.o 2>&1 | FileCheck %s --check-prefix=O2
// RUN: %clang -O2 -g -I %testinc -I %runtime-include -DFORWARD -c -emit-llvm %s -o %tf.bc
// RUN: not %umbra %tf.bc -o %tf.o 2>&1 | FileCheck %s --check-prefix=O2
// RUN: not %clang -O2 -g -I %testinc -I %runtime-include -fpass-plugin=%plugin -c %s -o %tp.o 2>&1 | FileCheck %s --check-prefix=O2
// A pointer made from an integer phi of a block's address (allocated on one path only) and an
// integer read from memory: the merge is followed only when every alternative is certain (an
// offset of a pointer available on its edge, or an address below 4096), and a loaded integer
// may be any pointer, so the pointer still has no shadow and storing a derivative through it
// is an error naming the cast, never a shadow at a guessed place. (At -O2 clang sinks the cast
// of the loaded integer onto its own path, no phi, and Umbra reads it as the pointer load it
// is: from memory without shadow pointers, an error naming that load.)
// CHECK: pointer-through-integer-phi.c:{{[0-9]+}}:{{[0-9]+}}: in function 'f': {{.*}}made from an integer{{.*}}inttoptr
// O2: pointer-through-integer-phi.c:{{[0-9]+}}:{{[0-9]+}}: in function 'f': pointer {{.*}} = load ptr{{.*}}loaded from memory that holds no shadow pointers
#include <stdint.h>
#include <stdlib.h>
#include "umbra.h"

double __enzyme_fwddiff(void *, ...);

struct buffer {
  double *data;
  int len;
};

__attribute__((noinline)) static double use(const struct buffer *b, const double *x) {
  double s = 0;
  for (int i = 0; i < b->len; i++) {
    b->data[i] = x[0] * i;
    s += b->data[i] * x[1];
  }
  return s;
}

__attribute__((noinline)) double f(const double *x, int m, const uintptr_t *spare) {
  uintptr_t a = m > 0 ? (uintptr_t)malloc(m * sizeof(double)) : spare[0];
  struct buffer b = {(double *)a, m};
  double s = use(&b, x);
  if (m > 0)
    free(b.data);
  return s;
}

int main(void) {
  double x[2] = {1, 2}, dx[2] = {0};
  uintptr_t spare[1] = {8};
#ifdef FORWARD
  double t[2] = {1, 0};
  return __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, 3, enzyme_const, spare) > 0;
#else
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 3, enzyme_const, spare);
  return dx[0] > 0;
#endif
}
