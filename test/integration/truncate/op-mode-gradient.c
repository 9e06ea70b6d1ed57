// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// A gradient and a tangent of an op-mode truncated function (__enzyme_truncate_op_func(f, 64,
// 32) passed to __enzyme_autodiff / __enzyme_fwddiff): the truncation is lowered first, so
// the request differentiates float arithmetic between conversions, which is a derivative in
// float precision of f. Checked against central finite differences of f itself (the
// truncated function is a staircase at finite-difference steps) with float tolerance.
#include "fdcheck.h"

typedef double (*fn)(const double *, int);
fn __enzyme_truncate_op_func(fn, int, int);
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double f(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += sin(x[i]) * x[i] + x[i] * x[i] / (1.0 + i);
  return s;
}

static double f_at(const double *p, void *ctx) { return f(p, *(int *)ctx); }

int main(void) {
  int n = 4;
  double x[4] = {0.5, -1.25, 2.0, 0.75}, dx[4] = {0}, g[4];
  fn t = __enzyme_truncate_op_func(f, 64, 32);
  __enzyme_autodiff((void *)t, enzyme_dup, x, dx, enzyme_const, n);
  fd_grad(f_at, &n, x, n, g);
  for (int i = 0; i < n; i++)
    fd_check_f("gradient", dx[i], g[i]);
  double v[4] = {1, 0.5, -0.25, 2};
  double tan = __enzyme_fwddiff((void *)t, enzyme_dup, x, v, enzyme_const, n);
  fd_check_f("tangent", tan, fd_dir(f_at, &n, x, v, n));
  return fd_finish();
}
