// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// A struct of a pointer and a double returned by value: the x86-64 ABI returns it as the
// value { ptr, double } (and { double, ptr } with the fields the other way round), which
// clang keeps at -O0 where the helpers are not inlined. Reverse mode gives a value either a
// shadow or an adjoint, and refused such a value ("holds both pointers and floating-point
// data") before; Umbra now has the call return it through a slot of the caller's frame.
// Both modes against finite differences.
#include "fdcheck.h"
#include "umbra.h"
#include <math.h>

typedef struct {
  const double *row;
  double scale;
} scaled_row;

typedef struct {
  double weight;
  const double *at;
} weighted_ref;

enum { N = 4 };

// Not inlined: at -O1 and above the copy of it must not keep its `memory(argmem: read)`
// (the optimiser then dropped the copy's stores, and the primal computed NaN).
__attribute__((noinline)) static scaled_row pick(const double *x, int i) {
  scaled_row r = {x + i, 0.5 + x[(i + 1) % N] * x[i]};
  return r;
}

static weighted_ref heaviest(const double *x) {
  weighted_ref w = {x[0] * x[0], x};
  for (int i = 1; i < N; i++)
    if (x[i] * x[i] > w.weight) {
      w.weight = x[i] * x[i];
      w.at = x + i;
    }
  return w;
}

__attribute__((noinline)) double energy(const double *x) {
  double s = 0;
  for (int i = 0; i < N; i++) {
    scaled_row r = pick(x, i);
    s += r.scale * sin(r.row[0]);
  }
  weighted_ref w = heaviest(x);
  return s + w.weight * w.at[0];
}

static double at(const double *p, void *c) {
  (void)c;
  return energy(p);
}

int main(void) {
  double x[N] = {0.3, -1.1, 0.8, 0.4}, dx[N] = {0}, g[N];
  fd_grad(at, 0, x, N, g);
  __enzyme_autodiff((void *)energy, enzyme_dup, x, dx);
  fd_check_array("reverse", dx, g, N);
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1;
    fd_check("forward", __enzyme_fwddiff((void *)energy, enzyme_dup, x, t), g[k]);
  }
  return fd_finish();
}
