// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Second order through a buffer grown with realloc: a Hessian-vector product as the forward
// derivative of a gradient whose function reallocates. The gradient's realloc adjoint (the
// moved shadow bytes copied back, the old block's usable size) must itself be differentiable.
#include "fdcheck.h"
#include <stdlib.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

double f(const double *x, int n) {
  int cap = 1;
  double *a = malloc(sizeof *a);
  for (int i = 0; i < n; i++) {
    if (i >= cap) {
      cap *= 2;
      a = realloc(a, cap * sizeof *a);
    }
    a[i] = x[i] * x[i] * x[(i + 1) % n];
  }
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * sin(a[(i + 2) % n]);
  free(a);
  return s;
}
void grad(const double *x, double *dx, int n);
void hvp(const double *x, const double *v, double *g, double *hv, int n) {
  __enzyme_fwddiff((void *)grad, enzyme_dup, x, v, enzyme_dup, g, hv, enzyme_const, n);
}
void grad(const double *x, double *dx, int n) {
  for (int i = 0; i < n; i++) dx[i] = 0;
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
}
enum { N = 6 };
static void grad_at(const double *x, double *y, void *c) { (void)c; grad(x, y, N); }
int main(void) {
  double x[N], v[N], g[N], hv[N], fd[N];
  for (int i = 0; i < N; i++) { x[i] = 0.2 * i - 0.5; v[i] = 1.0 - 0.3 * i; g[i] = hv[i] = 0; }
  hvp(x, v, g, hv, N);
  fd_dir_vec(grad_at, NULL, x, v, N, fd, N);
  fd_check_array("H v", hv, fd, N);
  return fd_finish();
}
