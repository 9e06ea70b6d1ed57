// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// A std::vector of (value, index) pairs built with push_back and sorted by value with a
// lambda, a small matrix class with operators, std::unique_ptr<double[]>: both modes against
// finite differences. Regression: at -O0 (no TBAA) the pair constructor's copy of the `int`
// index, read through an `int&` the analysis cannot type, into the pair's `int` field was
// refused as "copies differentiable memory through an integer".
#include "fdcheck.h"
#include "umbra.h"
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

struct Mat {
  int n;
  std::vector<double> a;
  explicit Mat(int n) : n(n), a(n * n, 0.0) {}
  double &operator()(int i, int j) { return a[i * n + j]; }
  double operator()(int i, int j) const { return a[i * n + j]; }
  Mat operator*(const Mat &o) const {
    Mat r(n);
    for (int i = 0; i < n; i++)
      for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++) r(i, j) += (*this)(i, k) * o(k, j);
    return r;
  }
};

extern "C" __attribute__((noinline)) double f(const double *x, int n) {
  std::vector<std::vector<double>> rows(n, std::vector<double>(n));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) rows[i][j] = x[(i + j) % n] * (1 + i) - x[j];
  Mat m(n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) m(i, j) = rows[i][j];
  Mat p = m * m;
  auto u = std::make_unique<double[]>(n);
  for (int i = 0; i < n; i++) u[i] = exp(0.1 * x[i]);
  std::vector<std::pair<double, int>> pr;
  for (int i = 0; i < n; i++) pr.push_back({u[i] * x[i], i});
  std::sort(pr.begin(), pr.end(), [](auto &a, auto &b) { return a.first < b.first; });
  double r = 0;
  for (int i = 0; i < n; i++) r += (i + 1) * pr[i].first + p(i, i) * x[pr[i].second];
  return r;
}

static double at(const double *p, void *c) { (void)c; return f(p, 4); }

int main() {
  double x[4] = {0.3, -0.5, 0.8, 0.15}, dx[4] = {0}, fd[4], v[4];
  fd_grad(at, nullptr, x, 4, fd);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 4);
  fd_check_array("gradient", dx, fd, 4);
  for (int i = 0; i < 4; i++) v[i] = 0.3 - 0.1 * i;
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, 4);
  double jv = 0;
  for (int i = 0; i < 4; i++) jv += fd[i] * v[i];
  fd_check("tangent", t, jv);
  return fd_finish();
}
