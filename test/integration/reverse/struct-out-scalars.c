// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Straight-line code with several `out` scalars: their adjoints come back as a
// struct of two doubles (an LLVM {double, double} return), alongside a const
// scalar and a dup pointer whose shadow is incremented, not overwritten.
#include "fdcheck.h"

extern int enzyme_out, enzyme_const, enzyme_dup;
typedef struct {
  double a, b;
} two;
two __enzyme_autodiff_two(void *, ...);
double __enzyme_autodiff(void *, ...);
#ifdef FD_SELFTEST
two __enzyme_autodiff_two(void *f, ...) { (void)f; two r = {0, 0}; return r; }
#endif

double f(double x, double y) {
  double u = x * y + sin(x);
  double v = exp(0.3 * y) / (1.0 + x * x);
  return u * v - sqrt(u * u + 1.0) + log(2.0 + cos(y));
}

double g(double x, const double *p, double c, double y) {
  double t = p[0] * x - p[1] / y;
  return t * t * c + atan(p[0] * p[1] * y) + pow(x, 3.0) * p[1];
}

static double f_at(const double *q, void *ctx) { (void)ctx; return f(q[0], q[1]); }
static const double C = 0.75;
// packed [x, p0, p1, y]
static double g_at(const double *q, void *ctx) { (void)ctx; return g(q[0], q + 1, C, q[3]); }

int main(void) {
  double pts[][2] = {{0.7, 1.3}, {-1.2, 0.4}, {2.1, -0.9}};
  for (int i = 0; i < 3; i++) {
    char name[64];
    double fd[2];
    fd_grad(f_at, NULL, pts[i], 2, fd);
    two r = __enzyme_autodiff_two((void *)f, pts[i][0], pts[i][1]); // default: out
    snprintf(name, sizeof name, "f(%g,%g) d/dx", pts[i][0], pts[i][1]);
    fd_check(name, r.a, fd[0]);
    snprintf(name, sizeof name, "f(%g,%g) d/dy", pts[i][0], pts[i][1]);
    fd_check(name, r.b, fd[1]);
  }

  double q[4] = {1.1, 0.6, -1.4, 1.7}, fd[4];
  fd_grad(g_at, NULL, q, 4, fd);
  double dp[2] = {0.5, -0.25}; // accumulated into
  two r = __enzyme_autodiff_two((void *)g, enzyme_out, q[0], enzyme_dup, q + 1, dp,
                                enzyme_const, C, enzyme_out, q[3]);
  fd_check("g d/dx", r.a, fd[0]);
  fd_check("g d/dp0 (+0.5)", dp[0], fd[1] + 0.5);
  fd_check("g d/dp1 (-0.25)", dp[1], fd[2] - 0.25);
  fd_check("g d/dy", r.b, fd[3]);

  // one out argument: the adjoint is returned as a double
  double dp2[2] = {0, 0};
  double dx = __enzyme_autodiff((void *)g, q[0], enzyme_dup, q + 1, dp2,
                                enzyme_const, C, enzyme_const, q[3]);
  fd_check("g single out d/dx", dx, fd[0]);
  fd_check("g single out d/dp0", dp2[0], fd[1]);
  fd_check("g single out d/dp1", dp2[1], fd[2]);
  return fd_finish();
}
