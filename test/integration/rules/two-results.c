// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// Math functions with two results, in both modes against finite differences: `modf` (clang
// emits `llvm.modf` for it at every level), `frexp` through `__builtin_frexp` (`llvm.frexp`),
// and GNU `sincos` (a libm call writing through two pointers), with the second results landing
// in differentiable memory (an array the caller reads back) as well as in locals. Each used to
// be a missing-rule error.
#define _GNU_SOURCE
#include "fdcheck.h"
#include "umbra.h"
#include <math.h>

__attribute__((noinline)) double f(const double *x, double *out) {
  double ip;
  double fr = modf(x[0] * x[1], &ip); /* fraction: slope 1; integral part: 0 */
  int e;
  double m = __builtin_frexp(x[1] * 3.0, &e);
  double s, c;
  sincos(x[0] + x[2], &s, &c);
  sincos(x[2], &out[0], &out[1]); /* into memory the caller reads */
  double fr2 = modf(x[2] * 5.0, &out[2]);
  return fr * fr + ip * x[0] + m * e + s * c * x[1] + fr2 * x[0];
}

static double f_at(const double *p, void *ctx) {
  (void)ctx;
  double out[3];
  double r = f(p, out);
  return r + 2.0 * out[0] + 3.0 * out[1] - 0.5 * out[2] * out[0];
}

__attribute__((noinline)) double whole(const double *x) {
  double out[3];
  double r = f(x, out);
  return r + 2.0 * out[0] + 3.0 * out[1] - 0.5 * out[2] * out[0];
}

enum { N = 3 };

int main(void) {
  double x[N] = {1.3, 0.77, 0.9}, dx[N] = {0}, fd[N];
  fd_grad(f_at, NULL, x, N, fd);
  __enzyme_autodiff((void *)whole, enzyme_dup, x, dx);
  fd_check_array("grad", dx, fd, N);
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1;
    fd_check("tangent", __enzyme_fwddiff((void *)whole, enzyme_dup, x, t), fd[k]);
  }
  return fd_finish();
}
