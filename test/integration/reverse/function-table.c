// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Calls through a constant table of functions, `double (*const ops[])(double)`, indexed by a
// run-time value: Umbra dispatches on the loaded pointer among the table's entries (functions
// with a body, and `sin` through its rule). Both modes against finite differences; also a
// mutable table whose entries are swapped at run time among its initial functions.
#include "fdcheck.h"
#include <math.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static double square(double v) { return v * v; }
static double softplus(double v) { return log1p(exp(v)); }
static double (*const ops[])(double) = {square, sin, softplus};
static double (*swappable[2])(double) = {square, softplus};

enum { N = 5 };
volatile int seed = 0;

static double apply_all(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += ops[(i + seed) % 3](x[i]) * (i + 1);
  return s;
}
static double apply_all_at(const double *x, void *ctx) {
  (void)ctx;
  return apply_all(x, N);
}

static double apply_swappable(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += swappable[i & 1](x[i]) * x[(i + 1) % n];
  return s;
}
static double apply_swappable_at(const double *x, void *ctx) {
  (void)ctx;
  return apply_swappable(x, N);
}

// The request needs the function itself, so the check is a macro.
#define CHECK(name, f, f_at)                                                               \
  do {                                                                                     \
    double x[N] = {0.5, -1.0, 2.0, 0.25, 1.5}, dx[N] = {0}, g[N];                          \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, (int)N);                 \
    fd_grad(f_at, 0, x, N, g);                                                             \
    fd_check_array(name " reverse", dx, g, N);                                             \
    for (int k = 0; k < N; k++) {                                                          \
      double t[N] = {0};                                                                   \
      t[k] = 1;                                                                            \
      fd_check(name " forward",                                                            \
               __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, (int)N), g[k]); \
    }                                                                                      \
  } while (0)

int main(void) {
  CHECK("constant table", apply_all, apply_all_at);
  CHECK("mutable table", apply_swappable, apply_swappable_at);
  swappable[0] = softplus;
  swappable[1] = square;
  CHECK("mutable table, swapped", apply_swappable, apply_swappable_at);
  return fd_finish();
}
