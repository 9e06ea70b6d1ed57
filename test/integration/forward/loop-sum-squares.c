// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Forward mode through a simple counted loop: sum of squares, dup array input.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

double sumsq(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

enum { N = 7 };
static double sumsq_at(const double *x, void *ctx) { (void)ctx; return sumsq(x, N); }

int main(void) {
  double x[N], v[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.5 + 0.3 * i - 0.1 * i * i;
    v[i] = 1.0 - 0.25 * i;
  }
  // explicit markers
  double ad = __enzyme_fwddiff((void *)sumsq, enzyme_dup, x, v, enzyme_const, N);
  fd_check("sumsq explicit", ad, fd_dir(sumsq_at, NULL, x, v, N));
  // default activities: pointer -> dup, int -> const
  double ad2 = __enzyme_fwddiff((void *)sumsq, x, v, N);
  fd_check("sumsq default", ad2, fd_dir(sumsq_at, NULL, x, v, N));
  // unit direction: d/dx3 = 2 x3
  double e3[N] = {0, 0, 0, 1, 0, 0, 0};
  double ad3 = __enzyme_fwddiff((void *)sumsq, enzyme_dup, x, e3, enzyme_const, N);
  fd_check("sumsq e3", ad3, fd_dir(sumsq_at, NULL, x, e3, N));
  fd_check("sumsq e3 analytic", ad3, 2 * x[3]);
  return fd_finish();
}
