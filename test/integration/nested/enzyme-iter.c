// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Enzyme's __enzyme_iter(n, step): n in the primal, n + step in code derived from it, n + 2 step
// in a derivative of that derivative (Enzyme's ReverseMode/mycos.c). The values are known in
// closed form; finite differences of the primal would not see the growing count, by design.
// Before: "'__enzyme_iter' is Enzyme's __enzyme_iter, which umbra does not support yet".
#include "fdcheck.h"

unsigned long long __enzyme_iter(unsigned long long, unsigned long long);
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

// g(x) = N x^2 with N = 3 in the primal, 5 in its derivatives, 7 in second derivatives.
double g(double x) {
  double n = (double)__enzyme_iter(3, 2);
  return n * x * x;
}
double dg(double x) { return __enzyme_autodiff((void *)g, x); }
double tg(double x) { return __enzyme_fwddiff((void *)g, x, 1.0); }
double ddg_rr(double x) { return __enzyme_autodiff((void *)dg, x); }
double ddg_fr(double x) { return __enzyme_fwddiff((void *)dg, x, 1.0); }
double ddg_ff(double x) { return __enzyme_fwddiff((void *)tg, x, 1.0); }

// A truncated exponential series sum_{i<=N} x^i / i!, N from __enzyme_iter(4, 1): each
// derivative order adds a term, so every derivative is the same 4-term series as the primal.
double series(double x) {
  unsigned long long n = __enzyme_iter(4, 1);
  double term = 1, sum = 1;
  for (unsigned long long i = 1; i <= n; i++) {
    term *= x / (double)i;
    sum += term;
  }
  return sum;
}
double dseries(double x) { return __enzyme_autodiff((void *)series, x); }
double ddseries(double x) { return __enzyme_autodiff((void *)dseries, x); }

static double exp4(double x) { return 1 + x + x * x / 2 + x * x * x / 6 + x * x * x * x / 24; }

int main(void) {
  double x = 0.8;
  fd_check("g primal (N = 3)", g(x), 3 * x * x);
  fd_check("dg/dx reverse (N = 5)", dg(x), 10 * x);
  fd_check("dg/dx forward (N = 5)", tg(x), 10 * x);
  fd_check("d2g/dx2 reverse over reverse (N = 7)", ddg_rr(x), 14);
  fd_check("d2g/dx2 forward over reverse (N = 7)", ddg_fr(x), 14);
  fd_check("d2g/dx2 forward over forward (N = 7)", ddg_ff(x), 14);
  fd_check("series primal", series(x), exp4(x));
  fd_check("series first derivative", dseries(x), exp4(x));
  fd_check("series second derivative", ddseries(x), exp4(x));
  // The primal is unchanged after the derivatives ran.
  fd_check("g primal again", g(x), 3 * x * x);
  return fd_finish();
}
