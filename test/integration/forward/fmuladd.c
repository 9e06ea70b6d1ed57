// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-CFLAGS: -ffp-contract=on
// Contractible expressions a*b+c (clang emits llvm.fmuladd, which the backend
// may turn into FMA) plus explicit fma() calls.
#include "fdcheck.h"
#include "umbra.h"

double contract(const double *x, int n, double t) {
  double s = 0, p = 1.0;
  for (int i = 0; i < n; i++) {
    s = x[i] * t + s;               // fmuladd(x, t, s)
    p = p * x[i] - t * 0.25;        // fmuladd(p, x, -t*0.25)
  }
  double q = fma(s, p, t * t);      // explicit fma
  return q * q + s * p - x[0] * x[n - 1];
}

double horner_fma(double x) { // nested fmuladd chain
  return ((((0.1 * x - 0.3) * x + 1.2) * x - 0.7) * x + 2.0) * x - 1.0;
}

enum { N = 8 };
static double contract_at(const double *p, void *c) { (void)c; return contract(p, N, p[N]); }
static double horner_at(double x, void *c) { (void)c; return horner_fma(x); }

int main(void) {
  double p[N + 1], v[N + 1];
  for (int i = 0; i <= N; i++) {
    p[i] = 0.9 + 0.05 * i - 0.01 * i * i;
    v[i] = (i % 2 ? 0.5 : -1.0) + 0.1 * i;
  }
  double ad = __umbra_fwddiff((void *)contract, umbra_dup, p, v, umbra_const, N, p[N], v[N]);
  fd_check("contract", ad, fd_dir(contract_at, NULL, p, v, N + 1));
  double xs[] = {-1.7, 0.3, 2.2};
  for (int i = 0; i < 3; i++) {
    char name[64];
    snprintf(name, sizeof name, "horner_fma(%g)", xs[i]);
    fd_check(name, __umbra_fwddiff((void *)horner_fma, xs[i], 1.0),
             fd_deriv1(horner_at, NULL, xs[i]));
  }
  return fd_finish();
}
