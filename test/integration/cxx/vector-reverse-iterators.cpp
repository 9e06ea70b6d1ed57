// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// std::vector built from reverse iterators (`std::vector<double> r(v.rbegin(), v.rend())`),
// alone and next to a std::function, both modes against finite differences.
#include "fdcheck.h"
#include <cmath>
#include <functional>
#include <vector>

extern int enzyme_dup, enzyme_const, enzyme_out;
template <typename R, typename... T> R __enzyme_autodiff(void *, T...);
template <typename R, typename... T> R __enzyme_fwddiff(void *, T...);

enum { N = 5 };

// A weighted sum of x reversed: x[n-1] * 1 + x[n-2] * 2 + ..., times x[0].
__attribute__((noinline)) double reversed(const double *x, int n) {
  std::vector<double> v(x, x + n);
  std::vector<double> r(v.rbegin(), v.rend());
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * r[i] * r[i];
  return s * x[0];
}

// The same reversal, then a std::function applied to each element.
__attribute__((noinline)) double reversed_function(const double *x, int n) {
  std::vector<double> v(x, x + n);
  std::vector<double> r(v.rbegin(), v.rend());
  double scale = x[1];
  std::function<double(double)> g = [&](double t) { return std::sin(t) * scale; };
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * g(r[i]);
  return s;
}

static double reversed_at(const double *x, void *) { return reversed(x, N); }
static double reversed_function_at(const double *x, void *) { return reversed_function(x, N); }

// A macro, not a function: a request names the differentiated function itself.
#define CHECK(f, f_at)                                                                           \
  do {                                                                                           \
    double x[N] = {0.4, -0.7, 1.1, 0.3, -1.3}, dx[N] = {0}, g[N];                                \
    __enzyme_autodiff<void>((void *)f, enzyme_dup, x, dx, enzyme_const, (int)N);                 \
    fd_grad(f_at, nullptr, x, N, g);                                                             \
    fd_check_array(#f, dx, g, N);                                                                \
    for (int k = 0; k < N; k++) {                                                                \
      double t[N] = {0};                                                                         \
      t[k] = 1;                                                                                  \
      fd_check(#f, __enzyme_fwddiff<double>((void *)f, enzyme_dup, x, t, enzyme_const, (int)N), \
               g[k]);                                                                            \
    }                                                                                            \
  } while (0)

int main() {
  CHECK(reversed, reversed_at);
  CHECK(reversed_function, reversed_function_at);
  return fd_finish();
}
