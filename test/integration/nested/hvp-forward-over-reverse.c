// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// Second order: a Hessian-vector product as the forward derivative of a gradient function
// (issue 12). At -O0 the request inside grad() passes loads of allocas, which canonicalisation
// replaces: the requests are decoded again afterwards (this used to be a segmentation fault).
// hvp() is defined before grad(), so module order alone would lower the outer request first:
// the inner one must go first, the outer pass differentiating its derived function.
#include "fdcheck.h"
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

double f(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i] * x[i] + sin(x[i]) * x[(i + 1) % n];
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
enum { N = 5 };
static void grad_at(const double *x, double *y, void *c) { (void)c; grad(x, y, N); }
int main(void) {
  double x[N], v[N], g[N], hv[N], fd[N];
  for (int i = 0; i < N; i++) { x[i] = 0.3 * i - 0.7; v[i] = 1.0 - 0.25 * i; g[i] = hv[i] = 0; }
  hvp(x, v, g, hv, N);
  fd_dir_vec(grad_at, NULL, x, v, N, fd, N);
  fd_check_array("H v", hv, fd, N);
  double g2[N];
  grad(x, g2, N);
  fd_check_array("gradient beside the HVP", g, g2, N);
  return fd_finish();
}
