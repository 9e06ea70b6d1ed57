// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// Structs of a double and a pointer returned by value from one of two helpers, `c ? f(a) :
// g(b)`: at -O1 and above clang merges the two calls' { double, ptr } results in a phi (or a
// select) before taking the fields, and reverse mode refused the merged value ("holds both
// pointers and floating-point data"). The merge becomes one per field, and the calls return
// through memory (struct-return-mixed.c). Both modes against finite differences, for both
// branches and inside a loop where the struct is carried across iterations.
#include "fdcheck.h"
#include "umbra.h"
#include <math.h>

typedef struct {
  double v;
  const double *p;
} valued_ref;

enum { N = 4 };

__attribute__((noinline)) static valued_ref square_at(const double *a, int i) {
  valued_ref r = {a[i] * a[i], a + i};
  return r;
}

__attribute__((noinline)) static valued_ref sine_next(const double *a, int i) {
  valued_ref r = {sin(a[i]), a + i + 1};
  return r;
}

__attribute__((noinline)) double pick(const double *a, int n) {
  valued_ref r = n > 2 ? square_at(a, 1) : sine_next(a, 0);
  return r.v * *r.p;
}

// The struct lives across iterations: a phi of the loop carries it.
__attribute__((noinline)) double walk(const double *a, int n) {
  valued_ref r = square_at(a, 0);
  double s = 0;
  for (int i = 1; i < n; i++) {
    if (a[i] > r.v)
      r = sine_next(a, i - 1);
    s += r.v * *r.p;
  }
  return s + r.v;
}

static int n_arg;
static double at_pick(const double *p, void *c) {
  (void)c;
  return pick(p, n_arg);
}
static double at_walk(const double *p, void *c) {
  (void)c;
  return walk(p, N - 1);
}

int main(void) {
  double x[N] = {0.3, -1.1, 0.8, 0.4}, g[N];
  for (n_arg = 2; n_arg <= 3; n_arg++) {
    double dx[N] = {0};
    fd_grad(at_pick, 0, x, N, g);
    __enzyme_autodiff((void *)pick, enzyme_dup, x, dx, enzyme_const, n_arg);
    fd_check_array("reverse pick", dx, g, N);
    for (int k = 0; k < N; k++) {
      double t[N] = {0};
      t[k] = 1;
      fd_check("forward pick",
               __enzyme_fwddiff((void *)pick, enzyme_dup, x, t, enzyme_const, n_arg), g[k]);
    }
  }
  double dx[N] = {0};
  fd_grad(at_walk, 0, x, N, g);
  __enzyme_autodiff((void *)walk, enzyme_dup, x, dx, enzyme_const, N - 1);
  fd_check_array("reverse walk", dx, g, N);
  return fd_finish();
}
