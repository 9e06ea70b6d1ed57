// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// A non-inlined callee overwrites its argument after the caller loaded from it, and a
// non-inlined callee loads a value its caller overwrites after the call returns: in both the
// value read must be kept, not re-read.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void scale(double *v, int n, double k) {
  for (int i = 0; i < n; i++)
    v[i] *= k * v[i];
}

__attribute__((noinline)) double weighted(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += sin(v[i]) * v[i];
  return s;
}

double f(const double *x, int n) {
  double *v = malloc(n * sizeof *v);
  for (int i = 0; i < n; i++)
    v[i] = x[i] + 0.5;
  double a = v[0] * v[n - 1];    // loaded before the callee overwrites v
  scale(v, n, 1.5);
  double b = weighted(v, n);     // v read inside the callee...
  for (int i = 0; i < n; i++)
    v[i] = v[i] * x[i];          // ...then overwritten here, after the call
  double c = weighted(v, n);
  free(v);
  return a * b + c;
}

enum { N = 7 };
static double f_at(const double *p, void *ctx) { (void)ctx; return f(p, N); }

int main(void) {
  double x[N], dx[N] = {0}, fd[N];
  for (int i = 0; i < N; i++) x[i] = 0.2 + 0.11 * i - 0.4 * (i % 2);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
  fd_grad(f_at, NULL, x, N, fd);
  fd_check_array("dx", dx, fd, N);
  return fd_finish();
}
