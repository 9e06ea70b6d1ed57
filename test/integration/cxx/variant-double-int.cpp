// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-CFLAGS: -std=c++17
// std::variant<double, int> in a vector, read with holds_alternative/get and with std::visit.
// At -O0 Umbra refused it twice over:
// - the `int` the variant is built from (an `int &`) is stored into storage the `double`
//   shares; without TBAA, the type analysis took that `int` for half of a `double` and the
//   copy for one of part of a double. An integer narrower than the float the memory holds
//   now carries no float, and an integer read through a reference declared `int` (debug
//   information) is integer data;
// - std::visit names its variant with a variadic lambda, `[](_V0& v, ...) { return v; }`,
//   which never reads its variable arguments: it is now called as a fixed-arity copy.
// Both modes against finite differences.
#include "fdcheck.h"
#include "umbra.h"
#include <cmath>
#include <variant>
#include <vector>

enum { N = 5 };
using Num = std::variant<double, int>;

struct Scale {
  double k;
  double operator()(double d) const { return k * d * d; }
  double operator()(int i) const { return k * i; }
};

extern "C" __attribute__((noinline)) double mixed(const double *x) {
  std::vector<Num> vals;
  for (int i = 0; i < N; i++) {
    if (i % 3 == 2)
      vals.emplace_back(i); // an int: a constant
    else
      vals.emplace_back(x[i]);
  }
  double s = 0;
  for (const Num &v : vals)
    s += std::holds_alternative<double>(v) ? std::sin(std::get<double>(v)) * x[0] : 0.25;
  for (const Num &v : vals)
    s += std::visit(Scale{x[1]}, v);
  return s;
}

static double at(const double *p, void *) { return mixed(p); }

int main() {
  double x[N] = {0.5, -1.2, 2.0, 0.7, 1.3}, dx[N] = {0}, g[N];
  fd_grad(at, 0, x, N, g);
  __enzyme_autodiff((void *)mixed, enzyme_dup, x, dx);
  fd_check_array("reverse", dx, g, N);
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1;
    fd_check("forward", __enzyme_fwddiff((void *)mixed, enzyme_dup, x, t), g[k]);
  }
  return fd_finish();
}
