// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// While loops with a data-dependent trip count: Newton iterations for sqrt(a)
// and for the real root of x^3 + p x - q; the reverse sweep must replay as many
// iterations as the forward sweep took.
#include "fdcheck.h"

typedef struct {
  double a, b;
} two;
double __enzyme_autodiff(void *, ...);
two __enzyme_autodiff_two(void *, ...);
#ifdef FD_SELFTEST
two __enzyme_autodiff_two(void *f, ...) { (void)f; two r = {0, 0}; return r; }
#endif

double nsqrt(double a) {
  double x = a > 1.0 ? a : 1.0, step;
  int k = 0;
  do {
    double nx = 0.5 * (x + a / x);
    step = nx - x;
    x = nx;
  } while (fabs(step) > 1e-13 * x && ++k < 100);
  return x;
}

double cubic_root(double p, double q) { // p > 0: one real root
  double x = q / (p + 1.0);
  while (1) {
    double fx = x * x * x + p * x - q;
    double nx = x - fx / (3.0 * x * x + p);
    if (fabs(nx - x) <= 1e-14 * (1.0 + fabs(x)))
      return nx;
    x = nx;
  }
}

double g(double p, double q) { return cubic_root(p, q) * nsqrt(p * q + 1.0); }

static double nsqrt_at(double a, void *c) { (void)c; return nsqrt(a); }
static double g_at(const double *v, void *c) { (void)c; return g(v[0], v[1]); }

int main(void) {
  double as[] = {0.3, 2.0, 10.0, 57.5};
  for (int i = 0; i < 4; i++) {
    char name[64];
    double ad = __enzyme_autodiff((void *)nsqrt, as[i]);
    snprintf(name, sizeof name, "nsqrt(%g)", as[i]);
    fd_check(name, ad, fd_deriv1(nsqrt_at, NULL, as[i]));
    snprintf(name, sizeof name, "nsqrt(%g) analytic", as[i]);
    fd_check(name, ad, 0.5 / sqrt(as[i]));
  }
  double pq[][2] = {{1.5, 2.0}, {0.4, -1.5}, {3.0, 10.0}};
  for (int i = 0; i < 3; i++) {
    char name[64];
    double fd[2];
    fd_grad(g_at, NULL, pq[i], 2, fd);
    two r = __enzyme_autodiff_two((void *)g, pq[i][0], pq[i][1]);
    snprintf(name, sizeof name, "g(%g,%g) d/dp", pq[i][0], pq[i][1]);
    fd_check(name, r.a, fd[0]);
    snprintf(name, sizeof name, "g(%g,%g) d/dq", pq[i][0], pq[i][1]);
    fd_check(name, r.b, fd[1]);
  }
  return fd_finish();
}
