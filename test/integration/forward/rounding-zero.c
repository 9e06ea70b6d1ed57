// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// floor / ceil / round / trunc (and lround, casts to int) are piecewise
// constant: their derivative is zero away from the jumps; products with them
// still carry the other factor's tangent.
#include "fdcheck.h"

double __enzyme_fwddiff(void *, ...);

double steps(double x) {
  return floor(x) + ceil(3.0 * x) - round(x * x) + trunc(-2.0 * x) +
         (double)lround(x * 0.5) + (double)(int)(x * 7.0);
}

double times_floor(double x) { return x * floor(x) + ceil(x) * sin(x) + nearbyint(x) * x * x; }

static double steps_at(double x, void *c) { (void)c; return steps(x); }
static double tf_at(double x, void *c) { (void)c; return times_floor(x); }

int main(void) {
  double xs[] = {2.3, -1.62, 0.41, 5.55};
  for (int i = 0; i < 4; i++) {
    char name[64];
    double ad = __enzyme_fwddiff((void *)steps, xs[i], 1.0);
    snprintf(name, sizeof name, "steps(%g) == 0", xs[i]);
    fd_check_exact(name, ad, 0.0);
    snprintf(name, sizeof name, "steps(%g) fd", xs[i]);
    fd_check(name, ad, fd_deriv1(steps_at, NULL, xs[i]));
    ad = __enzyme_fwddiff((void *)times_floor, xs[i], 1.0);
    snprintf(name, sizeof name, "times_floor(%g)", xs[i]);
    fd_check(name, ad, fd_deriv1(tf_at, NULL, xs[i]));
  }
  return fd_finish();
}
