// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Reverse over reverse (issue 12): a Hessian-vector product as the gradient of w . grad f(x),
// where grad() itself calls __enzyme_autodiff. The outer gradient differentiates the inner
// gradient's code, its tape included: a loop whose trip count depends on x[0] keeps thousands
// of values, so the inner tape grows over several chunks, and the outer gradient needs the
// adjoints of every slot. Checked against finite differences of the gradient and against
// forward over reverse (__enzyme_fwddiff of grad).
#include "fdcheck.h"
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

double f(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i] * x[i] + sin(x[i]) * x[(i + 1) % n];
  // A data-dependent trip count: 3000 to 4000 iterations, each taping its t.
  int m = 3000 + (int)(fabs(x[0]) * 1000);
  double t = x[1];
  for (int k = 0; k < m; k++) t += 1e-4 * sin(t * x[2]);
  return s + t * t;
}
void grad(const double *x, double *dx, int n) {
  for (int i = 0; i < n; i++) dx[i] = 0;
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
}
enum { N = 4 };
double wg(const double *x, const double *w, int n) {
  double g[N];
  grad(x, g, n);
  double s = 0;
  for (int i = 0; i < n; i++) s += w[i] * g[i];
  return s;
}
void hw(const double *x, double *dx, const double *w, int n) {
  for (int i = 0; i < n; i++) dx[i] = 0;
  __enzyme_autodiff((void *)wg, enzyme_dup, x, dx, enzyme_const, w, enzyme_const, n);
}
void hvp(const double *x, const double *v, double *g, double *hv, int n) {
  __enzyme_fwddiff((void *)grad, enzyme_dup, x, v, enzyme_dup, g, hv, enzyme_const, n);
}
static void grad_at(const double *x, double *y, void *c) { (void)c; grad(x, y, N); }
static double f_at(const double *x, void *c) { (void)c; return f(x, N); }
int main(void) {
  double x[N] = {0.4537, -0.3, 0.8, 1.1}, w[N] = {1.0, -0.5, 0.25, 2.0};
  double g[N], fd[N], h[N], hv[N], g2[N];
  grad(x, g, N);
  fd_grad(f_at, NULL, x, N, fd);
  fd_check_array("gradient", g, fd, N);
  hw(x, h, w, N);
  fd_dir_vec(grad_at, NULL, x, w, N, fd, N);
  fd_check_array("H w (reverse over reverse) against finite differences", h, fd, N);
  for (int i = 0; i < N; i++) g2[i] = hv[i] = 0;
  hvp(x, w, g2, hv, N);
  fd_check_array("H w (reverse over reverse) against forward over reverse", h, hv, N);
  return fd_finish();
}
