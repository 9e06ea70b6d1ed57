// RUN: %clang -O2 -g -fopenmp -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O0 -g -fopenmp -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s
// A memcpy inside a parallel region out of memory the threads share: its adjoint adds into
// the shared source's shadow, which other threads may be adding to. Reverse mode refuses it
// by name (a copy between a thread's own local arrays is differentiated:
// integration/reverse/openmp-private-memory.c).
#include <string.h>
void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double window(const double *x, int n, int m) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n - 4; i++) {
    double loc[4] = {0};
    // CHECK: openmp-shared-memcpy.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}reverse mode cannot differentiate the call to 'llvm.memcpy{{.*}}' inside an OpenMP parallel region yet: its adjoint would add into memory other threads may share
    memcpy(loc, x + i, m * sizeof *loc);
    s += loc[0] * loc[3];
  }
  return s;
}

int main(void) {
  double x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dx[8] = {0};
  __enzyme_autodiff((void *)window, enzyme_dup, x, dx, enzyme_const, 8, enzyme_const, 4);
  return dx[0] > 0;
}
