// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Strong zeros: f(x) = x0 / fmax(sqrt(x0^2 + x1^2), 1e-6) at the origin. fmax selects the
// constant, so no derivative flows into the sqrt, whose partial there is infinite: a zero
// adjoint (or tangent) times that infinite partial must contribute zero, not NaN. The answer
// is d/dx0 = 1e6, d/dx1 = 0 (Enzyme gives the same). Checked in both modes against the
// closed form (finite differences are useless at the kink), and away from the origin against
// finite differences.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double f(const double *x) {
  return x[0] / fmax(sqrt(x[0] * x[0] + x[1] * x[1]), 1e-6);
}

static double f_at(const double *p, void *ctx) { (void)ctx; return f(p); }

int main(void) {
  double x[2] = {0, 0}, dx[2] = {0, 0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  fd_check("reverse d/dx0 at 0", dx[0], 1e6);
  fd_check("reverse d/dx1 at 0", dx[1], 0);
  double e0[2] = {1, 0}, e1[2] = {0, 1};
  fd_check("forward d/dx0 at 0", __enzyme_fwddiff((void *)f, enzyme_dup, x, e0), 1e6);
  fd_check("forward d/dx1 at 0", __enzyme_fwddiff((void *)f, enzyme_dup, x, e1), 0);
  double y[2] = {0.3, -0.4}, dy[2] = {0, 0}, fd[2];
  __enzyme_autodiff((void *)f, enzyme_dup, y, dy);
  fd_grad(f_at, NULL, y, 2, fd);
  fd_check_array("reverse away from 0", dy, fd, 2);
  return fd_finish();
}
