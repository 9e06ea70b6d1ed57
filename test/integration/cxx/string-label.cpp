// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: env EXTRA_CFLAGS=-std=c++20 %exec-test %s driver 0 %t
// RUN: env EXTRA_CFLAGS=-std=c++20 %exec-test %s driver 2 %t
// RUN: env EXTRA_CFLAGS=-std=c++20 %exec-test %s plugin 2 %t
// A std::string label built inside the differentiated function (`+=`, `operator+`,
// `std::to_string`, `c_str()`), beside the numerics it names, in C++17 and C++20 (which makes
// the members constexpr, so more of them have bodies in the module). No derivative can reach
// the label, but members with bodies return `*this` or its buffer: Umbra took such calls'
// pointer results, and the label with them, to carry derivatives, and then refused `+=` at
// -O0 ("no derivative rule") or the label's character copies ("cannot tell what type of data
// this call moves", "copies memory holding pointers ..."). A call with inactive arguments
// returning one of them, or a pointer loaded from one, returns an inactive pointer; a function
// with a body that no derivative can enter leaves an object primal-only. Both modes against
// finite differences.
#include "fdcheck.h"
#include "umbra.h"
#include <cstdio>
#include <string>
#include <vector>

enum { N = 4 };

static int verbose = 0;

extern "C" __attribute__((noinline)) double relax(const double *x, int iters) {
  std::vector<double> v(x, x + N), w(N);
  std::string label = "relax";
  for (int it = 0; it < iters; it++) {
    for (int i = 0; i < N; i++)
      w[i] = 0.5 * v[i] + 0.25 * (v[(i + 1) % N] + v[(i + N - 1) % N]) + 0.1 * sin(v[i]);
    v.swap(w);
    if (it == iters - 1)
      label += "-done after " + std::to_string(it + 1) + " sweeps";
  }
  if (verbose || label.size() > 200)
    printf("%s\n", label.c_str());
  double s = 0;
  for (int i = 0; i < N; i++)
    s += v[i] * v[i] * (i + 1);
  return s + 0.01 * double(label.size()) * x[0];
}

static double at(const double *p, void *c) { return relax(p, *(int *)c); }

int main() {
  double x[N] = {0.7, -0.3, 1.1, 0.4}, dx[N] = {0}, g[N];
  int iters = 5;
  fd_grad(at, &iters, x, N, g);
  __enzyme_autodiff((void *)relax, enzyme_dup, x, dx, enzyme_const, iters);
  fd_check_array("reverse", dx, g, N);
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1;
    fd_check("forward", __enzyme_fwddiff((void *)relax, enzyme_dup, x, t, enzyme_const, iters), g[k]);
  }
  return fd_finish();
}
