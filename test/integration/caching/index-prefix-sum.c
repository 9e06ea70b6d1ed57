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
// A prefix recurrence in place, run twice: a[i] += a[i - 1]^2. Within one pass a[i - 1] is
// final once iteration i reads it, but the second pass rewrites every entry: the reads of the
// first pass must stay taped, those of the second are re-read by index.
// CHECK: overwrites of @f (memory stable):
// CHECK-DAG: re-read (later stores miss it by index)
// CHECK-DAG: cached: may be overwritten by store
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

#define N 9

double f(const double *x) {
  double *a = malloc(sizeof(double) * N);
  for (int i = 0; i < N; i++)
    a[i] = 0.2 * x[i];
  for (int i = 1; i < N; i++)
    a[i] += a[i - 1] * a[i - 1];
  for (int i = 1; i < N; i++)
    a[i] += 0.5 * a[i - 1] * a[i - 1];
  double s = 0;
  for (int i = 0; i < N; i++)
    s += a[i];
  free(a);
  return s;
}

static double f_at(const double *p, void *ctx) { (void)ctx; return f(p); }

int main(void) {
  double x[N], dx[N] = {0}, fd[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.4 + 0.07 * i - 0.15 * (i % 3);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  fd_grad(f_at, NULL, x, N, fd);
  fd_check_array("dx", dx, fd, N);
  return fd_finish();
}
