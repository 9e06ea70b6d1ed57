// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// std::function (libstdc++) holding lambdas: its invoker and manager are loaded from the
// object, so their origin is unknown and Umbra dispatches among the module's address-taken
// functions of their types. A lambda capturing a differentiable value by reference (kept in
// the std::function's storage, at -O2 as an integer), one capturing several by value (too big
// for the storage: the manager allocates a copy), a copy of a std::function (the manager
// clones the functor), and calls inside std::accumulate through a function taking the
// std::function by reference. Both modes against finite differences.
#include "fdcheck.h"
#include <cmath>
#include <functional>
#include <numeric>

extern int enzyme_dup, enzyme_const, enzyme_out;
template <typename R, typename... T> R __enzyme_autodiff(void *, T...);
template <typename R, typename... T> R __enzyme_fwddiff(void *, T...);

enum { N = 4 };

__attribute__((noinline)) double sum_with(const std::function<double(double)> &g, const double *x,
                                          int n) {
  return std::accumulate(x, x + n, 0.0, [&](double a, double b) { return a + g(b); });
}

__attribute__((noinline)) double f(const double *x, int n) {
  double scale = x[0] * x[1];
  std::function<double(double)> g = [&](double t) { return std::exp(-t) * scale; };
  double a = x[1], b = x[2], c = x[3];
  std::function<double(double)> h = [a, b, c](double t) { return std::sin(t * a) + b * t * c; };
  std::function<double(double)> h2 = h;
  return sum_with(g, x, n) * sum_with(h2, x + 1, n - 1) + h(x[0]);
}
static double f_at(const double *x, void *) { return f(x, N); }

int main() {
  double x[N] = {0.4, -0.7, 1.1, 0.3}, dx[N] = {0}, g[N];
  __enzyme_autodiff<void>((void *)f, enzyme_dup, x, dx, enzyme_const, (int)N);
  fd_grad(f_at, nullptr, x, N, g);
  fd_check_array("reverse", dx, g, N);
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1;
    fd_check("forward",
             __enzyme_fwddiff<double>((void *)f, enzyme_dup, x, t, enzyme_const, (int)N), g[k]);
  }
  return fd_finish();
}
