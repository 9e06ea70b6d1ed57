// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// switch on an int parameter (const by default), each case a different formula.
#include "fdcheck.h"

extern int enzyme_const;
double __enzyme_fwddiff(void *, ...);

double sw(double x, int k) {
  double r;
  switch (k) {
  case 0: r = sin(x); break;
  case 1: r = x * x * x; break;
  case 2: r = exp(-x) * x; break;
  case 3: r = log(x) / x; break;
  case 7: return 1.0 / (1.0 + x * x);
  case 8: /* fallthrough */
  case 9: r = x; r *= r + 1.0; break;
  default: r = 2.0 * x - 1.0; break;
  }
  return r * (k + 1);
}

static double sw_at(double x, void *ctx) { return sw(x, *(int *)ctx); }

int main(void) {
  double xs[] = {0.7, 1.9};
  for (int k = -1; k <= 10; k++)
    for (int i = 0; i < 2; i++) {
      double ad = k % 2 ? __enzyme_fwddiff((void *)sw, xs[i], 1.0, k)
                        : __enzyme_fwddiff((void *)sw, xs[i], 1.0, enzyme_const, k);
      char name[64];
      snprintf(name, sizeof name, "sw case %d at %g", k, xs[i]);
      fd_check(name, ad, fd_deriv1(sw_at, &k, xs[i]));
    }
  // a non-unit tangent scales linearly
  int k = 3;
  double ad = __enzyme_fwddiff((void *)sw, 1.3, -2.5, k);
  fd_check("sw case 3 scaled", ad, -2.5 * fd_deriv1(sw_at, &k, 1.3));
  return fd_finish();
}
