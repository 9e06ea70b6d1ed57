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
// Iteration i reads a[i] and rewrites a[i - 1]: no store of iteration i touches a[i], but the
// store of iteration i + 1 does. Index reasoning must see that later iteration and keep a[i]
// taped; the second loop reads a[i] and writes only a[i + 1] of a later row (re-read).
// CHECK: overwrites of @f (memory stable):
// CHECK-DAG: re-read (later stores miss it by index)
// CHECK-DAG: cached: may be overwritten by store
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

#define N 8

double f(const double *x) {
  double *a = malloc(sizeof(double) * 2 * N);
  for (int i = 0; i < 2 * N; i++)
    a[i] = x[i % N] + 0.1 * i;
  for (int i = 1; i < N; i++) {
    double y = a[i];
    a[i - 1] = a[i - 1] * 0.5 + y * y;
  }
  for (int i = 0; i < N; i++) /* a[i] is never written again: re-read */
    a[N + i] = a[N + i] + sin(a[i]);
  double s = 0;
  for (int i = 0; i < 2 * N; i++)
    s += a[i] * a[i];
  free(a);
  return s;
}

static double f_at(const double *p, void *ctx) { (void)ctx; return f(p); }

int main(void) {
  double x[N], dx[N] = {0}, fd[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.3 + 0.11 * i - 0.2 * (i % 2);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  fd_grad(f_at, NULL, x, N, fd);
  fd_check_array("dx", dx, fd, N);
  return fd_finish();
}
