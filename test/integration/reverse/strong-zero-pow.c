// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// Strong zeros through pow at a zero base (issue 12). pow(x, y)'s partial with respect to x,
// y x^(y-1), is infinite at x = 0 for y < 1, and with respect to y, x^y log(x), is taken as
// its limit 0 there. A zero tangent or adjoint times the infinite partial must contribute
// zero, not NaN:
// - p(x, y) = pow(x, y) at (0, 0.5) along (0, 1): d/dy 0^y = 0 (forward gave NaN);
// - q(x, z) = pow(x*x, 0.25) * z at (0, 0): the power's adjoint z and the base's tangent 2x dx
//   are zero, so the gradient is (0, 0) (both modes gave NaN);
// - pow(x, 2.0) at x = 0 with y active and dy = 0: d/dx = 0, d/dy = 0.
// Closed forms at the kinks, finite differences away from them.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double p(const double *v) { return pow(v[0], v[1]); }
double q(const double *v) { return pow(v[0] * v[0], 0.25) * v[1]; }

static double p_at(const double *v, void *c) { (void)c; return p(v); }
static double q_at(const double *v, void *c) { (void)c; return q(v); }

int main(void) {
  double e0[2] = {1, 0}, e1[2] = {0, 1}, g[2], fd[2];

  double a[2] = {0, 0.5};
  fd_check("p forward d/dy at x=0, y=0.5", __enzyme_fwddiff((void *)p, enzyme_dup, a, e1), 0);
  g[0] = g[1] = 0;
  __enzyme_autodiff((void *)p, enzyme_dup, a, g);
  fd_check("p reverse d/dy at x=0, y=0.5", g[1], 0);

  double s[2] = {0, 2.0};
  fd_check("p forward d/dx at x=0, y=2", __enzyme_fwddiff((void *)p, enzyme_dup, s, e0), 0);
  fd_check("p forward d/dy at x=0, y=2", __enzyme_fwddiff((void *)p, enzyme_dup, s, e1), 0);
  g[0] = g[1] = 0;
  __enzyme_autodiff((void *)p, enzyme_dup, s, g);
  fd_check("p reverse d/dx at x=0, y=2", g[0], 0);
  fd_check("p reverse d/dy at x=0, y=2", g[1], 0);

  double z[2] = {0, 0};
  fd_check("q forward d/dx at 0", __enzyme_fwddiff((void *)q, enzyme_dup, z, e0), 0);
  fd_check("q forward d/dz at 0", __enzyme_fwddiff((void *)q, enzyme_dup, z, e1), 0);
  g[0] = g[1] = 0;
  __enzyme_autodiff((void *)q, enzyme_dup, z, g);
  fd_check("q reverse d/dx at 0", g[0], 0);
  fd_check("q reverse d/dz at 0", g[1], 0);

  double b[2] = {0.7, 1.3};
  g[0] = g[1] = 0;
  __enzyme_autodiff((void *)p, enzyme_dup, b, g);
  fd_grad(p_at, NULL, b, 2, fd);
  fd_check_array("p reverse away from 0", g, fd, 2);
  fd_check("p forward away from 0", __enzyme_fwddiff((void *)p, enzyme_dup, b, e1), fd[1]);
  g[0] = g[1] = 0;
  __enzyme_autodiff((void *)q, enzyme_dup, b, g);
  fd_grad(q_at, NULL, b, 2, fd);
  fd_check_array("q reverse away from 0", g, fd, 2);
  return fd_finish();
}
