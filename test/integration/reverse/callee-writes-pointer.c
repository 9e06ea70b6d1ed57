// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// f calls helpers that write through pointer arguments: a non-inlined one
// (y[i] = a*x[i]: its reverse must receive both shadows, and handle an in-place
// call with y == x) and an inlinable one.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
typedef struct {
  double a, b;
} two;
two __enzyme_autodiff_two(void *, ...);
#ifdef FD_SELFTEST
two __enzyme_autodiff_two(void *f, ...) { (void)f; two r = {0, 0}; return r; }
#endif

__attribute__((noinline)) void scale(double *y, const double *x, int n, double a) {
  for (int i = 0; i < n; i++)
    y[i] = a * x[i];
}

static void shift_sq(double *y, int n, double b) {
  for (int i = 0; i < n; i++)
    y[i] = y[i] * y[i] + b;
}

double f(const double *x, int n, double a, double b) {
  double y[16];
  scale(y, x, n, a);
  shift_sq(y, n, b);
  scale(y, y, n, 1.0 / a); // in place
  double s = 0;
  for (int i = 0; i < n; i++)
    s += y[i] * x[i];
  return s;
}

enum { N = 10 };
// packed [x (N), a, b]
static double f_at(const double *p, void *ctx) { (void)ctx; return f(p, N, p[N], p[N + 1]); }

int main(void) {
  double p[N + 2], dx[N] = {0}, fd[N + 2];
  for (int i = 0; i < N; i++) p[i] = 1.0 - 0.17 * i;
  p[N] = 1.7;
  p[N + 1] = -0.4;
  two r = __enzyme_autodiff_two((void *)f, enzyme_dup, p, dx, enzyme_const, N,
                                enzyme_out, p[N], enzyme_out, p[N + 1]);
  fd_grad(f_at, NULL, p, N + 2, fd);
  fd_check_array("dx", dx, fd, N);
  fd_check("da", r.a, fd[N]);
  fd_check("db", r.b, fd[N + 1]);
  return fd_finish();
}
