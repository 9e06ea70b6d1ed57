// RUN: %clang -O1 -g -fopenmp -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O0 -g -fopenmp -c -emit-llvm %s -o %t0.bc
// RUN: not %umbra %t0.bc -o %t.o 2>&1 | FileCheck %s
// A helper called inside a parallel region copies into its parameter, and one of its callers
// passes memory the threads share: the parameter is not private to a thread, so the copy's
// adjoint could race, and reverse mode refuses it (a helper only ever given local arrays is
// differentiated: integration/reverse/openmp-private-memory.c).
#include <string.h>
void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) static void copy4(double *to, const double *from, int m) {
  // CHECK: openmp-shared-helper.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}reverse mode cannot differentiate the call to 'llvm.memcpy{{.*}}' inside an OpenMP parallel region yet
  memcpy(to, from, m * sizeof *to);
}

double spread(const double *x, double *y, int n, int m) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n - 4; i++) {
    double loc[4] = {0};
    copy4(loc, x + i, m);
    copy4(y + 4 * (i % 2), loc, m);
    s += loc[0] * loc[3];
  }
  return s;
}

int main(void) {
  double x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dx[8] = {0}, y[8], dy[8] = {0};
  __enzyme_autodiff((void *)spread, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, 8,
                    enzyme_const, 4);
  return dx[0] > 0;
}
