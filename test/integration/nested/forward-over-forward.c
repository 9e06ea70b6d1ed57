// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// Forward over forward, four deep (issue 12): each level differentiates the derived function
// of the level below. At -O0 this used to be a segmentation fault.
#include "fdcheck.h"
double __enzyme_fwddiff(void *, ...);
double f(double x) { return x * x * x + sin(x) * x; }
double df(double x, double dx) { return __enzyme_fwddiff((void *)f, x, dx); }
double d2f(double x) { return __enzyme_fwddiff((void *)df, x, 1.0, 1.0, 0.0); }
double d3f(double x) { return __enzyme_fwddiff((void *)d2f, x, 1.0); }
double d4f(double x) { return __enzyme_fwddiff((void *)d3f, x, 1.0); }
static double df1(double x, void *c) { (void)c; return df(x, 1.0); }
static double d2f1(double x, void *c) { (void)c; return d2f(x); }
static double d3f1(double x, void *c) { (void)c; return d3f(x); }
int main(void) {
  double x = 0.7;
  fd_check("f''", d2f(x), fd_deriv1(df1, NULL, x));
  fd_check("f'' closed form", d2f(x), 6 * x + 2 * cos(x) - x * sin(x));
  fd_check("f'''", d3f(x), fd_deriv1(d2f1, NULL, x));
  fd_check("f''''", d4f(x), fd_deriv1(d3f1, NULL, x));
  fd_check("f'''' closed form", d4f(x), x * sin(x) - 4 * cos(x));
  return fd_finish();
}
