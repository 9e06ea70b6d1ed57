// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Second order through a gradient that frees a block its adjoint still reads: the gradient
// defers the free to the end of its adjoint, through a list of (pointer, deallocator) pairs
// whose release calls each deallocator indirectly. Differentiating that gradient again
// (forward over reverse) must dispatch those calls like the user's own indirect calls; before,
// it was an "indirect call ... not known at compile time" error in 'umbra.tape.release'.
#include "fdcheck.h"
#include <stdlib.h>
#include <string.h>
#include "umbra.h"

__attribute__((noinline)) double f(const double *x, int n) {
  double *s = malloc(n * sizeof(double));
  memcpy(s, x, n * sizeof(double));
  double r = 0;
  for (int i = 0; i < n; i++) r += (i + 1) * s[i] * s[i] * sin(s[(i + 1) % n]);
  free(s);
  return r;
}

enum { N = 5 };

/* A weighted sum of the gradient's entries: its derivative is a Hessian-vector product. */
__attribute__((noinline)) double slope(const double *x, int n) {
  double dx[N] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
  double r = 0;
  for (int i = 0; i < n; i++) r += (0.5 + i) * dx[i];
  return r;
}

static double slope_at(const double *p, void *c) { (void)c; return slope(p, N); }

int main(void) {
  double x[N], v[N], fd[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.4 + 0.3 * sin(1.1 * i);
    v[i] = 0.2 - 0.15 * i;
  }
  fd_grad(slope_at, NULL, x, N, fd);
  double t = __enzyme_fwddiff((void *)slope, enzyme_dup, x, v, enzyme_const, N);
  double jv = 0;
  for (int i = 0; i < N; i++) jv += fd[i] * v[i];
  fd_check("forward over reverse", t, jv);
  return fd_finish();
}
