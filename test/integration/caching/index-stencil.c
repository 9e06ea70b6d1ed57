// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// RUN: %clang -O0 -I %testinc -I %runtime-include -c -emit-llvm %s -o %t.0.bc
// RUN: %umbra %t.0.bc --emit=llvm-ir -o /dev/null --print-types 2>&1 | FileCheck %s
// A stencil updating a[i] in place from a[i - 1] and a[i + 1] (Gauss-Seidel sweeps), in an
// outer loop of sweeps: a[i - 1] is final within the sweep but rewritten by the next sweep,
// a[i + 1] by the next iteration. Every read of the sweeps stays taped; only the final sum,
// after every sweep, re-reads a.
// CHECK: overwrites of @f (memory stable):
// CHECK-DAG: cached: may be overwritten by store
// CHECK-NOT: by index
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

#define N 10

double f(const double *x) {
  double *a = malloc(sizeof(double) * N);
  for (int i = 0; i < N; i++)
    a[i] = x[i];
  for (int sweep = 0; sweep < 3; sweep++)
    for (int i = 1; i < N - 1; i++)
      a[i] = 0.3 * a[i - 1] * a[i - 1] + 0.2 * a[i] + 0.4 * sin(a[i + 1]);
  double s = 0;
  for (int i = 0; i < N; i++)
    s += a[i] * cos(a[i]);
  free(a);
  return s;
}

static double f_at(const double *p, void *ctx) { (void)ctx; return f(p); }

int main(void) {
  double x[N], dx[N] = {0}, fd[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.5 + 0.05 * i - 0.25 * (i % 2);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  fd_grad(f_at, NULL, x, N, fd);
  fd_check_array("dx", dx, fd, N);
  return fd_finish();
}
