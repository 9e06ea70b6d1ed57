// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// A continued fraction through a recursive std::function: the lambda captures the
// std::function by reference and calls it, so inside its invoker the next invoker is loaded
// through the loaded reference, which Umbra takes for a vtable slot. No vtable function has
// the invoker's type, and from -O1 on that was an error ("none of the functions it may be ...
// has the call's type"); the address-taken functions of the call's type stand in, as for any
// pointer of unknown origin. Both modes against finite differences.
#include "fdcheck.h"
#include "umbra.h"
#include <functional>

enum { N = 4 };

extern "C" __attribute__((noinline)) double cfrac(const double *x, int depth) {
  std::function<double(int)> rec = [&](int k) -> double {
    if (k == depth)
      return x[k % N];
    double r = rec(k + 1);
    return x[k % N] + 1.0 / (1.0 + r * r);
  };
  std::function<double(double)> sq = [](double a) { return a * a; };
  std::function<double(double, double)> comb = [&](double a, double b) { return sq(a) + sin(b); };
  return comb(rec(0), x[1]);
}

static double at(const double *p, void *c) { return cfrac(p, *(int *)c); }

int main() {
  double x[N] = {0.5, -1.2, 2.0, 0.3}, dx[N] = {0}, g[N];
  int depth = 6;
  fd_grad(at, &depth, x, N, g);
  __enzyme_autodiff((void *)cfrac, enzyme_dup, x, dx, enzyme_const, depth);
  fd_check_array("reverse", dx, g, N);
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1;
    fd_check("forward", __enzyme_fwddiff((void *)cfrac, enzyme_dup, x, t, enzyme_const, depth), g[k]);
  }
  return fd_finish();
}
