// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Without re-optimisation (umbra -O0) the augmented sweep's stack frame is gone when the
// adjoint runs:
// RUN: %clangxx -O0 -g -I %testinc -c -emit-llvm %s -o %t.O0.bc
// RUN: %umbra -O0 %t.O0.bc -o %t.O0.o
// RUN: %clangxx %t.O0.o -lm -o %t.O0.exe
// RUN: %t.O0.exe
// The standard library as numerical C++ uses it (issue 13, item 3), default exception
// settings: std::nth_element on a copy (a median), std::array arithmetic, and a
// std::unique_ptr<double[]> scratch buffer; both modes against finite differences.
// Regression: at -O0 std::array's operator[] is a call returning a pointer into the caller's
// array; the overwrite analysis let the adjoint re-read through it after the augmented sweep
// had returned (plugin -O0, umbra -O0: wrong gradient of the rotation).
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <vector>
#include "fdcheck.h"

extern "C" {
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;
}

enum { N = 7 };

// The median of x (by nth_element on a copy) times the sum of squares.
static double median_scaled(const double *x, int n) {
  std::vector<double> v(x, x + n);
  std::nth_element(v.begin(), v.begin() + n / 2, v.end());
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return v[n / 2] * s;
}
static double median_scaled_at(const double *x, void *) { return median_scaled(x, N); }

// Fixed-size vectors in std::array: a small rotation applied three times.
static double rotate3(const double *x, int n) {
  std::array<double, 3> p{x[0], x[1], x[2]};
  for (int k = 0; k < n; k++) {
    double c = cos(x[3]), s = sin(x[3]);
    std::array<double, 3> q{c * p[0] - s * p[1], s * p[0] + c * p[1], p[2] * x[4]};
    p = q;
  }
  return p[0] * p[0] + 2 * p[1] + p[2] * x[5] + x[6];
}
static double rotate3_at(const double *x, void *) { return rotate3(x, 3); }

// A scratch buffer owned by a std::unique_ptr<double[]>: prefix sums of exp(x), then a
// weighted sum of them.
static double prefix_exp(const double *x, int n) {
  std::unique_ptr<double[]> t(new double[n]);
  double run = 0;
  for (int i = 0; i < n; i++) {
    run += exp(0.3 * x[i]);
    t[i] = run;
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[i] * (i + 1);
  return s;
}
static double prefix_exp_at(const double *x, void *) { return prefix_exp(x, N); }

#define CHECK(name, f, f_at, arg)                                                          \
  do {                                                                                     \
    double x[N] = {0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 0.9}, dx[N] = {0}, g[N];              \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, (int)(arg));             \
    fd_grad(f_at, nullptr, x, N, g);                                                       \
    fd_check_array(name " reverse", dx, g, N);                                             \
    for (int k = 0; k < N; k++) {                                                          \
      double t[N] = {0};                                                                   \
      t[k] = 1;                                                                            \
      fd_check(name " forward",                                                            \
               __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, (int)(arg)),     \
               g[k]);                                                                      \
    }                                                                                      \
  } while (0)

int main() {
  CHECK("nth_element median", median_scaled, median_scaled_at, N);
  CHECK("std::array rotation", rotate3, rotate3_at, 3);
  CHECK("unique_ptr scratch", prefix_exp, prefix_exp_at, N);
  return fd_finish();
}
