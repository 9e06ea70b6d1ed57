// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 3 %t
// std::sort on a copy of the input, then a weighted sum of the sorted values: the derivative
// of element k is the weight of the position it sorts into. Both modes against finite
// differences (the inputs are distinct, so sorting is locally constant). Regression: at -O2 the
// end of the copy's range on the empty path, `nullptr + n`, had no shadow (a compile-time
// error). At -O3 the insertion sort moves one element with an untyped 8-byte load and store:
// the type analysis tells they are doubles, so reverse mode moves its adjoint as one.
#include "fdcheck.h"
#include <algorithm>
#include <vector>

extern "C" {
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const, enzyme_out;
}

enum { N = 20 };

static double sorted_sum(const double *x, int n) {
  std::vector<double> v(x, x + n);
  std::sort(v.begin(), v.end());
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] * (i + 1) * v[i];
  return s;
}
static double sorted_sum_at(const double *x, void *) { return sorted_sum(x, N); }

int main() {
  double x[N], dx[N] = {0}, g[N];
  for (int k = 0; k < N; k++)
    x[k] = ((k * 7919) % 23) * 0.37 - 3.1; // distinct, unsorted
  fd_grad(sorted_sum_at, nullptr, x, N, g);
#ifndef FORWARD_ONLY
  __enzyme_autodiff((void *)sorted_sum, enzyme_dup, x, dx, enzyme_const, (int)N);
  fd_check_array("sort reverse", dx, g, N);
#endif
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1;
    fd_check("sort forward",
             __enzyme_fwddiff((void *)sorted_sum, enzyme_dup, x, t, enzyme_const, (int)N), g[k]);
  }
  return fd_finish();
}
