// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// The differentiated function calls helpers that write through pointers:
// a non-inlined one (shadow pointers must be passed to its derivative) and
// an inlinable one.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

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
  double p[N + 2], v[N + 2];
  for (int i = 0; i < N; i++) {
    p[i] = 1.0 - 0.17 * i;
    v[i] = 0.2 * (i % 5) - 0.3;
  }
  p[N] = 1.7; v[N] = 0.6;
  p[N + 1] = -0.4; v[N + 1] = 1.1;
  double ad = __enzyme_fwddiff((void *)f, enzyme_dup, p, v, enzyme_const, N,
                               p[N], v[N], p[N + 1], v[N + 1]);
  fd_check("f all", ad, fd_dir(f_at, NULL, p, v, N + 2));
  double ea[N + 2] = {0};
  ea[N] = 1.0;
  ad = __enzyme_fwddiff((void *)f, enzyme_const, p, enzyme_const, N, p[N], 1.0,
                        enzyme_const, p[N + 1]);
  fd_check("f d/da", ad, fd_dir(f_at, NULL, p, ea, N + 2));

  // the helper itself, output through a dup pointer
  double y[N], dy[N] = {0}, fd[N];
  __enzyme_fwddiff((void *)scale, enzyme_dup, y, dy, enzyme_dup, p, v,
                   enzyme_const, N, p[N], v[N]);
  for (int i = 0; i < N; i++) fd[i] = v[N] * p[i] + p[N] * v[i];
  fd_check_array("scale dy", dy, fd, N);
  return fd_finish();
}
