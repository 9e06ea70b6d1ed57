// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// Expression templates at -O0: std::valarray's closures (`2.0 * v` is a node holding the
// scalar and a reference to v) and a hand-written one, small classes of a double and a
// pointer that the x86-64 ABI returns by value as { double, ptr }. Reverse mode refused them
// at -O0 ("holds both pointers and floating-point data"); each such call now returns through
// a slot of the caller's frame. Both modes against finite differences.
#include "fdcheck.h"
#include "umbra.h"
#include <cmath>
#include <valarray>

enum { N = 4 };

// A minimal expression template: a scaled view of an array, evaluated lazily.
struct Scaled {
  double k;
  const double *v;
  double operator[](int i) const { return k * v[i]; }
};
static Scaled scaled(double k, const double *v) { return Scaled{k, v}; }

struct Sum {
  Scaled a;
  const double *b;
  double operator[](int i) const { return a[i] + b[i]; }
};
// 24 bytes: returned through memory (sret) by the ABI.
static Sum plus(Scaled a, const double *b) { return Sum{a, b}; }

extern "C" __attribute__((noinline)) double closures(const double *x) {
  std::valarray<double> v(x, N);
  std::valarray<double> w = 2.0 * v + std::sin(v);
  double s = (w * v).sum();
  double y[N];
  for (int i = 0; i < N; i++)
    y[i] = x[(i + 1) % N] * x[i];
  Sum e = plus(scaled(0.5, x), y);
  for (int i = 0; i < N; i++)
    s += e[i] * e[i];
  return s;
}

static double at(const double *p, void *) { return closures(p); }

int main() {
  double x[N] = {0.5, -1.2, 2.0, 0.7}, dx[N] = {0}, g[N];
  fd_grad(at, 0, x, N, g);
  __enzyme_autodiff((void *)closures, enzyme_dup, x, dx);
  fd_check_array("reverse", dx, g, N);
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1;
    fd_check("forward", __enzyme_fwddiff((void *)closures, enzyme_dup, x, t), g[k]);
  }
  return fd_finish();
}
