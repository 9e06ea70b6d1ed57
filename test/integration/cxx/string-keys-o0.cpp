// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CFLAGS: -std=c++11
// std::unordered_map<std::string, double> in differentiated code at every level, -O0 included
// (issue 29, Enzyme's ReverseMode/map.cpp): at -O0 libstdc++ keeps std::string's move
// constructor (the key moved into its node), size() and compare() (keys compared with ==)
// out of line. They run in the primal only, like the string's other -O0 members: the node's
// shadow key stays zero, and nothing is done to it. C++11, as map.cpp (C++17, where the
// constructor from a pointer is a template defined in the module: long-string-keys.cpp).
// Both modes against finite differences.
#include "fdcheck.h"
#include "umbra.h"
#include <string>
#include <unordered_map>

enum { N = 4 };

extern "C" __attribute__((noinline)) double keyed(const double *x) {
  std::unordered_map<std::string, double> m;
  std::string a("alpha"), b("b");
  m[std::move(a)] = x[0] * x[1];
  m[std::move(b)] = sin(x[2]);
  m["gamma"] = x[3] * x[3];
  m["alpha"] = m["alpha"] * m["gamma"] + m["b"];
  std::string key("b");
  return m["alpha"] + m["b"] * x[0] + (key.size() == 1 && key.compare("b") == 0 ? x[3] : 0);
}

static double at(const double *p, void *c) {
  (void)c;
  return keyed(p);
}

int main() {
  double x[N] = {0.7, -0.4, 1.3, 0.25}, dx[N] = {0}, g[N];
  fd_grad(at, 0, x, N, g);
  __enzyme_autodiff((void *)keyed, enzyme_dup, x, dx);
  fd_check_array("reverse", dx, g, N);
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1;
    fd_check("forward", __enzyme_fwddiff((void *)keyed, enzyme_dup, x, t), g[k]);
  }
  return fd_finish();
}
