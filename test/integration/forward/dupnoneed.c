// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// enzyme_dupnoneed: the primal contents of the marked output need not be
// computed, only its shadow (tangent).  The primal output is not checked.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
double __enzyme_fwddiff(void *, ...);

void softplus(double *out, const double *x, int n) {
  for (int i = 0; i < n; i++)
    out[i] = log1p(exp(x[i])) * x[i];
}

// a function with both a return value and a dupnoneed output
double accum(double *out, const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    out[i] = x[i] * x[i] + 1.0;
    s += sin(x[i]);
  }
  return s;
}

enum { N = 7 };
static void softplus_at(const double *x, double *y, void *c) { (void)c; softplus(y, x, N); }
static double accum_at(const double *x, void *c) { (void)c; double o[N]; return accum(o, x, N); }
static void accum_out_at(const double *x, double *y, void *c) { (void)c; accum(y, x, N); }

int main(void) {
  double x[N], v[N], out[N], dout[N], fd[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.4 * i - 1.3;
    v[i] = 1.0 - 0.2 * i;
    out[i] = dout[i] = 0;
  }
  __enzyme_fwddiff((void *)softplus, enzyme_dupnoneed, out, dout, enzyme_dup, x, v,
                   enzyme_const, N);
  fd_dir_vec(softplus_at, NULL, x, v, N, fd, N);
  fd_check_array("softplus dout", dout, fd, N);

  for (int i = 0; i < N; i++) dout[i] = 0;
  double ad = __enzyme_fwddiff((void *)accum, enzyme_dupnoneed, out, dout, x, v, N);
  fd_check("accum return tangent", ad, fd_dir(accum_at, NULL, x, v, N));
  fd_dir_vec(accum_out_at, NULL, x, v, N, fd, N);
  fd_check_array("accum dout", dout, fd, N);
  return fd_finish();
}
