// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Nesting deeper than two with reverse over reverse (issue 12): third derivatives of f as
// u . D(H w) where H w comes from reverse over reverse (hw), differentiated again in reverse
// mode (reverse over reverse over reverse) and in forward mode (forward over reverse over
// reverse). Each gradient's tape is differentiated by the gradient outside it. Checked against
// finite differences of hw.
#include "fdcheck.h"
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

enum { N = 3 };
double f(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i] * x[i] * x[(i + 1) % n] + exp(0.3 * x[i]);
  return s;
}
void grad(const double *x, double *dx, int n) {
  for (int i = 0; i < n; i++) dx[i] = 0;
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
}
static const double W[N] = {0.5, -1.0, 2.0};
double wg(const double *x, int n) {
  double g[N];
  grad(x, g, n);
  double s = 0;
  for (int i = 0; i < n; i++) s += W[i] * g[i];
  return s;
}
void hw(const double *x, double *h, int n) {
  for (int i = 0; i < n; i++) h[i] = 0;
  __enzyme_autodiff((void *)wg, enzyme_dup, x, h, enzyme_const, n);
}
static const double U[N] = {1.0, 0.25, -0.75};
double uhw(const double *x, int n) {
  double h[N];
  hw(x, h, n);
  double s = 0;
  for (int i = 0; i < n; i++) s += U[i] * h[i];
  return s;
}
void third(const double *x, double *t, int n) {
  for (int i = 0; i < n; i++) t[i] = 0;
  __enzyme_autodiff((void *)uhw, enzyme_dup, x, t, enzyme_const, n);
}
void third_fwd(const double *x, const double *v, double *h, double *dh, int n) {
  __enzyme_fwddiff((void *)hw, enzyme_dup, x, v, enzyme_dup, h, dh, enzyme_const, n);
}
static double uhw_at(const double *x, void *c) { (void)c; return uhw(x, N); }
static void hw_at(const double *x, double *y, void *c) { (void)c; hw(x, y, N); }
int main(void) {
  double x[N] = {0.7, -0.4, 1.2}, v[N] = {0.3, 1.0, -0.5};
  double t[N], fd[N], h[N], dh[N];
  third(x, t, N);
  fd_grad(uhw_at, NULL, x, N, fd);
  fd_check_array("reverse over reverse over reverse", t, fd, N);
  for (int i = 0; i < N; i++) h[i] = dh[i] = 0;
  third_fwd(x, v, h, dh, N);
  fd_dir_vec(hw_at, NULL, x, v, N, fd, N);
  fd_check_array("forward over reverse over reverse", dh, fd, N);
  return fd_finish();
}
