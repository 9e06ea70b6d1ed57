// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// Pointers made from integers, in both modes against finite differences: a buffer aligned by
// hand (`(uintptr_t)raw + 63 & ~63`) and an input read at a byte offset added in uintptr_t.
// The shadow of such a pointer is its base's shadow at the same byte offset
// (analysis/int_pointers.rs). Both used to be errors (the pointer had no shadow).
#include "fdcheck.h"
#include <stdint.h>
#include <stdlib.h>
#include "umbra.h"
double __enzyme_fwddiff(void *, ...);
__attribute__((noinline)) double f(const double *x, int n) {
  char *raw = malloc(n * sizeof(double) + 64);
  double *a = (double *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
  for (int i = 0; i < n; i++)
    a[i] = x[i] * x[i];
  const double *x2 = (const double *)((uintptr_t)x + 2 * sizeof(double));
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * a[(i + 1) % n] + x2[i % (n - 2)] * a[i];
  free(raw);
  return s;
}
enum { N = 5 };
static double at(const double *p, void *c) { (void)c; return f(p, N); }
int main(void) {
  double x[N] = {0.3, -1.1, 0.8, 1.4, -0.6}, dx[N] = {0}, fd[N];
  fd_grad(at, NULL, x, N, fd);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
  fd_check_array("grad", dx, fd, N);
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1;
    fd_check("tangent", __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, N), fd[k]);
  }
  return fd_finish();
}
