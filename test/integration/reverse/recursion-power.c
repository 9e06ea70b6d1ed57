// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Self-recursion: power by repeated squaring (an `out` scalar through every
// level) and a recursive array sum that recurses on x + 1 (the shadow pointer
// must be offset the same way).
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff_v(void *, ...);

double rpow(double x, int n) {
  if (n == 0)
    return 1.0;
  if (n % 2 == 0) {
    double h = rpow(x, n / 2);
    return h * h;
  }
  return x * rpow(x, n - 1);
}

double rsum(const double *x, int n) {
  if (n == 0)
    return 0.0;
  return x[0] * x[0] * (n + 1) + sin(x[0]) * rsum(x + 1, n - 1);
}

static double rpow_at(double x, void *c) { return rpow(x, *(int *)c); }
enum { N = 9 };
static double rsum_at(const double *x, void *c) { (void)c; return rsum(x, N); }

int main(void) {
  for (int n = 0; n <= 13; n++) {
    double x = 1.15;
    char name[64];
    double ad = __enzyme_autodiff((void *)rpow, enzyme_out, x, enzyme_const, n);
    snprintf(name, sizeof name, "rpow(x, %d)", n);
    fd_check(name, ad, fd_deriv1(rpow_at, &n, x));
    snprintf(name, sizeof name, "rpow(x, %d) analytic", n);
    fd_check(name, ad, n ? n * pow(x, n - 1) : 0.0);
  }
  double x[N], dx[N] = {0}, fd[N];
  for (int i = 0; i < N; i++) x[i] = 0.5 + 0.21 * i - 0.4 * (i % 3);
  __enzyme_autodiff_v((void *)rsum, x, dx, N);
  fd_grad(rsum_at, NULL, x, N, fd);
  fd_check_array("rsum dx", dx, fd, N);
  return fd_finish();
}
