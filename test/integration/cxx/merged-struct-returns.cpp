// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// `c ? f(a) : g(b)` where f and g may throw and return a struct of a double and a pointer by
// value ({ double, ptr } under the x86-64 ABI), with an object whose destructor must run: at
// -O1 and above clang merges the two invokes' results in a phi straight from their normal
// edges, and reverse mode refused the merged value ("holds both pointers and floating-point
// data"). The merge becomes one per field, taken on a block of its own on each invoke's edge.
// Both modes against finite differences, both branches.
#include "fdcheck.h"
#include "umbra.h"
#include <cmath>
#include <stdexcept>

struct valued_ref {
  double v;
  const double *p;
};

__attribute__((noinline)) valued_ref square_at(const double *a, int i) {
  if (i < 0)
    throw std::out_of_range("square_at");
  return {a[i] * a[i], a + i};
}

__attribute__((noinline)) valued_ref sine_next(const double *a, int i) {
  if (i < 0)
    throw std::out_of_range("sine_next");
  return {std::sin(a[i]), a + i + 1};
}

static int scopes_left;
struct scope_count {
  ~scope_count() { ++scopes_left; }
};

__attribute__((noinline)) double pick(const double *a, int n) {
  scope_count guard;
  valued_ref r = n > 2 ? square_at(a, 1) : sine_next(a, 0);
  return r.v * *r.p;
}

enum { N = 4 };
static int n_arg;
static double at(const double *p, void *) { return pick(p, n_arg); }

int main() {
  double x[N] = {0.3, -1.1, 0.8, 0.4}, g[N];
  for (n_arg = 2; n_arg <= 3; n_arg++) {
    double dx[N] = {0};
    fd_grad(at, 0, x, N, g);
    __enzyme_autodiff((void *)pick, enzyme_dup, x, dx, enzyme_const, n_arg);
    fd_check_array("reverse", dx, g, N);
    for (int k = 0; k < N; k++) {
      double t[N] = {0};
      t[k] = 1;
      fd_check("forward", __enzyme_fwddiff((void *)pick, enzyme_dup, x, t, enzyme_const, n_arg),
               g[k]);
    }
  }
  return fd_finish();
}
