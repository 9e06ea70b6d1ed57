// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Counted loops over a dup array: sum of squares, a weighted sum of sin, and a
// loop-carried product whose adjoint needs every intermediate value.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff_v(void *, ...); // no out arguments: declared void

double sumsq(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

double sumsin(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * sin(x[i]);
  return s;
}

double carried(const double *x, int n, double a) {
  double p = 1.0;
  for (int i = 0; i < n; i++)
    p = p * (1.0 + 0.1 * x[i]) + a * sin(p);
  return p;
}

enum { N = 12 };
static double sumsq_at(const double *x, void *c) { (void)c; return sumsq(x, N); }
static double sumsin_at(const double *x, void *c) { (void)c; return sumsin(x, N); }
// packed [x (N), a]
static double carried_at(const double *x, void *c) { (void)c; return carried(x, N, x[N]); }

int main(void) {
  double x[N + 1], dx[N + 1], fd[N + 1];
  for (int i = 0; i <= N; i++) x[i] = 0.9 - 0.23 * i + 0.05 * (i % 3);
  x[N] = 0.3;

  memset(dx, 0, sizeof dx);
  __enzyme_autodiff_v((void *)sumsq, enzyme_dup, x, dx, enzyme_const, N);
  fd_grad(sumsq_at, NULL, x, N, fd);
  fd_check_array("sumsq dx", dx, fd, N);
  for (int i = 0; i < N; i++) fd[i] = 2 * x[i];
  fd_check_array("sumsq dx analytic", dx, fd, N);

  memset(dx, 0, sizeof dx);
  __enzyme_autodiff_v((void *)sumsin, x, dx, N); // defaults: pointer dup, int const
  fd_grad(sumsin_at, NULL, x, N, fd);
  fd_check_array("sumsin dx", dx, fd, N);

  memset(dx, 0, sizeof dx);
  double da = __enzyme_autodiff((void *)carried, enzyme_dup, x, dx, enzyme_const, N, x[N]);
  fd_grad(carried_at, NULL, x, N + 1, fd);
  fd_check_array("carried dx", dx, fd, N);
  fd_check("carried da", da, fd[N]);
  return fd_finish();
}
