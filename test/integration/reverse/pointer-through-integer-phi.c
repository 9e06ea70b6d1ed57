// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// A pointer made from an integer phi: the address of a block allocated on one path only (past
// a 16-byte header) or, for an empty buffer, the dangling address 8, as rustc's
// `Vec::with_capacity` under panic=unwind. The pointer's shadow is the same choice among the
// alternatives' shadows: the block's shadow at the same offset, or 8 itself (never
// dereferenced). Both modes against finite differences, with a buffer and an empty one. This
// used to be an error (the allocation does not dominate the cast).
#include "fdcheck.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "umbra.h"
double __enzyme_fwddiff(void *, ...);
struct buffer {
  double *data;
  int len;
};
// Fills and reads the buffer, its data pointer the merged one (dangling when empty).
__attribute__((noinline)) static double use(const struct buffer *b, const double *x, int n) {
  for (int i = 0; i < b->len; i++)
    b->data[i] = x[i % n] * x[(i + 1) % n];
  double s = 0;
  for (int i = 0; i < b->len; i++)
    s += b->data[i] * sin(x[(i + 2) % n]) + b->data[(i + 1) % b->len] * b->data[i];
  return s;
}
__attribute__((noinline)) double f(const double *x, int n, int m) {
  uintptr_t a = m > 0 ? (uintptr_t)malloc(m * sizeof(double) + 16) + 16 : (uintptr_t)8;
  struct buffer b = {(double *)a, m};
  double s = use(&b, x, n);
  for (int i = 0; i < n; i++)
    s += cos(x[i]) * x[i];
  if (m > 0)
    free((char *)b.data - 16);
  return s;
}
enum { N = 5 };
static int M;
static double at(const double *p, void *c) { (void)c; return f(p, N, M); }
static void check(int m) {
  double x[N] = {0.3, -1.1, 0.8, 1.4, -0.6}, dx[N] = {0}, fd[N];
  M = m;
  fd_grad(at, NULL, x, N, fd);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N, enzyme_const, m);
  fd_check_array("grad", dx, fd, N);
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1;
    fd_check("tangent",
             __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, N, enzyme_const, m),
             fd[k]);
  }
}
int main(void) {
  check(7);
  check(0);
  return fd_finish();
}
