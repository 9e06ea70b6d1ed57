// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// Reverse over forward (issue 12): the gradient of a directional derivative. At -O0 this used
// to produce invalid IR (the request's arguments were stale after canonicalisation).
#include "fdcheck.h"
extern int enzyme_const, enzyme_out;
double __enzyme_fwddiff(void *, ...);
double __enzyme_autodiff(void *, ...);
double f(double x, double y) { return x * x * y + sin(x * y); }
double dfx(double x, double y) { return __enzyme_fwddiff((void *)f, x, 1.0, y, 0.0); }
static double dfx_x(double x, void *c) { return dfx(x, *(double *)c); }
int main(void) {
  double x = 0.6, y = 1.3;
  double g = __enzyme_autodiff((void *)dfx, enzyme_out, x, enzyme_const, y);
  fd_check("d/dx df/dx", g, fd_deriv1(dfx_x, &y, x));
  fd_check("closed form", g, 2 * y - y * y * sin(x * y));
  return fd_finish();
}
