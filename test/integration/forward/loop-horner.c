// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Forward mode through a loop evaluating a polynomial by Horner's rule;
// tangents with respect to the point x and to the coefficient array.
#include "fdcheck.h"
#include "umbra.h"

double horner(const double *c, int n, double x) {
  double p = c[n - 1];
  for (int i = n - 2; i >= 0; i--)
    p = p * x + c[i];
  return p;
}

enum { N = 6 };
static double c0[N] = {1.0, -2.0, 0.5, 3.0, -0.75, 0.2};
static double horner_x(double x, void *ctx) { (void)ctx; return horner(c0, N, x); }
// packed [c..., x]
static double horner_all(const double *p, void *ctx) { (void)ctx; return horner(p, N, p[N]); }

int main(void) {
  double dc0[N] = {0};
  double xs[] = {-1.3, 0.4, 2.1};
  for (int k = 0; k < 3; k++) {
    double x = xs[k];
    double ad = __umbra_fwddiff((void *)horner, umbra_dup, c0, dc0, umbra_const, N, x, 1.0);
    char name[64];
    snprintf(name, sizeof name, "horner d/dx at %g", x);
    fd_check(name, ad, fd_deriv1(horner_x, NULL, x));
  }
  // all inputs active at once
  double dc[N] = {0.3, -0.1, 1.0, 0.0, 0.5, -2.0};
  double x = 0.9, dx = -0.7;
  double ad = __umbra_fwddiff((void *)horner, umbra_dup, c0, dc, umbra_const, N, x, dx);
  double p[N + 1], v[N + 1];
  for (int i = 0; i < N; i++) { p[i] = c0[i]; v[i] = dc[i]; }
  p[N] = x; v[N] = dx;
  fd_check("horner all inputs", ad, fd_dir(horner_all, NULL, p, v, N + 1));
  return fd_finish();
}
