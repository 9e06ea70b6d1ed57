// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Newton iteration with a data-dependent trip count: iterate until
// |x_{k+1} - x_k| < 1e-14.  The tangent iteration converges with it.
#include "fdcheck.h"
#include "umbra.h"

double nsqrt(double a) {
  double x = a > 1.0 ? a : 1.0;
  for (int k = 0; k < 200; k++) {
    double nx = 0.5 * (x + a / x);
    if (fabs(nx - x) < 1e-14)
      return nx;
    x = nx;
  }
  return x;
}

double g(double a, double b) { return nsqrt(a * a + b) * b; }

static double nsqrt_at(double a, void *c) { (void)c; return nsqrt(a); }
static double g_at(const double *p, void *c) { (void)c; return g(p[0], p[1]); }

int main(void) {
  double as[] = {0.3, 2.0, 10.0, 57.5};
  for (int i = 0; i < 4; i++) {
    char name[64];
    double ad = __umbra_fwddiff((void *)nsqrt, as[i], 1.0);
    snprintf(name, sizeof name, "nsqrt(%g)", as[i]);
    fd_check(name, ad, fd_deriv1(nsqrt_at, NULL, as[i]));
    snprintf(name, sizeof name, "nsqrt(%g) analytic", as[i]);
    fd_check(name, ad, 0.5 / sqrt(as[i]));
  }
  double p[2] = {1.2, 0.7}, v[2] = {0.4, -1.0};
  fd_check("g", __umbra_fwddiff((void *)g, p[0], v[0], p[1], v[1]),
           fd_dir(g_at, NULL, p, v, 2));
  return fd_finish();
}
