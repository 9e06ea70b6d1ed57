// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Enzyme's __enzyme_call_inactive(fn, args...): fn(args...) runs, in the primal only. Its result
// and what it writes carry no derivative (refused before as an unsupported entry point). So the
// derivatives are those of f with each inactive call's effect frozen at the point: checked
// against central finite differences of that frozen function, in reverse and forward mode, for a
// call returning a value, a call writing through a pointer, and a call through a pointer chosen
// at run time. Outside differentiated code it is a plain call.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
double __enzyme_call_inactive(void *, ...);
void __enzyme_call_inactive_v(void *, ...);

static int calls;
__attribute__((noinline)) double scale(double x, double s) {
  calls++;
  return x * s;
}
__attribute__((noinline)) void triple(double *p) { *p *= 3; }
__attribute__((noinline)) double half_cos(double x) { return 0.5 * cos(x); }
__attribute__((noinline)) double twice_exp(double x) { return 2 * exp(x); }
static double (*volatile pick)(double) = half_cos;

double f(double x) {
  double y = x * x * sin(x) + __enzyme_call_inactive((void *)scale, x, 5.0);
  double z = y;
  __enzyme_call_inactive_v((void *)triple, &z); // z = 3y: the derivative stays y's
  return z + __enzyme_call_inactive((void *)pick, x) * x;
}

// f with every inactive call's effect frozen at x0.
static double x0;
static double frozen(double x, void *c) {
  (void)c;
  double y = x * x * sin(x) + scale(x0, 5.0);
  double y0 = x0 * x0 * sin(x0) + scale(x0, 5.0);
  return y + 2 * y0 + pick(x0) * x;
}

int main(void) {
  x0 = 0.7;
  double v = f(x0); // a plain call outside differentiated code
  double y0 = x0 * x0 * sin(x0) + 5 * x0;
  fd_check("f (primal)", v, 3 * y0 + 0.5 * cos(x0) * x0);
  calls = 0;
  double g = __enzyme_autodiff((void *)f, x0);
  fd_check("df/dx (reverse)", g, fd_deriv1(frozen, NULL, x0));
  double t = __enzyme_fwddiff((void *)f, x0, 1.0);
  fd_check("df/dx (forward)", t, fd_deriv1(frozen, NULL, x0));
  // The inactive call ran once per derivative (and fd_deriv1's calls of scale add theirs).
  if (calls < 2) {
    printf("FAIL scale ran %d times in the derivatives\n", calls);
    return 1;
  }
  pick = twice_exp;
  x0 = 0.4;
  g = __enzyme_autodiff((void *)f, x0);
  fd_check("df/dx through the other target (reverse)", g, fd_deriv1(frozen, NULL, x0));
  return fd_finish();
}
