// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// A malloc'd scratch buffer inside the differentiated function: fill, reduce, free.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

double scratch(const double *x, int n, double a) {
  double *buf = (double *)malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++)
    buf[i] = sin(x[i]) * x[i] + a;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += buf[i] * buf[(i + 1) % n];
  free(buf);
  return s;
}

enum { N = 9 };
static double scratch_at(const double *p, void *ctx) { (void)ctx; return scratch(p, N, p[N]); }

int main(void) {
  double p[N + 1], v[N + 1];
  for (int i = 0; i <= N; i++) {
    p[i] = 0.1 + 0.37 * i - 0.02 * i * i;
    v[i] = (i % 3) - 0.8;
  }
  double ad = __enzyme_fwddiff((void *)scratch, enzyme_dup, p, v, enzyme_const,
                               N, p[N], v[N]);
  fd_check("scratch", ad, fd_dir(scratch_at, NULL, p, v, N + 1));
  // x const, only a active
  double zero[N + 1] = {0};
  zero[N] = 1.0;
  ad = __enzyme_fwddiff((void *)scratch, enzyme_const, p, enzyme_const, N, p[N], 1.0);
  fd_check("scratch d/da", ad, fd_dir(scratch_at, NULL, p, zero, N + 1));
  return fd_finish();
}
