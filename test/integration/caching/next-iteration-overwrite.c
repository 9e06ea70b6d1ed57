// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// A value read in iteration i and overwritten in iteration i + 1 (a recurrence in a scratch
// buffer): each iteration's product needs the value as it was, not as the adjoint would find
// it after the loop.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

double f(const double *x, int n) {
  double *w = malloc((n + 1) * sizeof *w);
  w[0] = 1;
  for (int i = 0; i < n; i++)
    w[i + 1] = w[i] * x[i] + cos(w[i]);
  // Overwrite every entry once more: the loop above read the old values.
  for (int i = 1; i <= n; i++)
    w[i - 1] = w[i] * w[i - 1];
  double s = 0;
  for (int i = 0; i <= n; i++)
    s += w[i];
  free(w);
  return s;
}

enum { N = 9 };
static double f_at(const double *p, void *ctx) { (void)ctx; return f(p, N); }

int main(void) {
  double x[N], dx[N] = {0}, fd[N];
  for (int i = 0; i < N; i++) x[i] = 0.5 + 0.09 * i - 0.3 * (i % 2);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
  fd_grad(f_at, NULL, x, N, fd);
  fd_check_array("dx", dx, fd, N);
  return fd_finish();
}
