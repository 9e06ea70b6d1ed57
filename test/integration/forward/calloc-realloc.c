// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// calloc'd buffer (zero-initialised, so its shadow must be too), grown with
// realloc (contents, and their tangents, must survive the move).
#include "fdcheck.h"
#include "umbra.h"

double grow(const double *x, int n) {
  double *p = (double *)calloc(n, sizeof(double));
  for (int i = 0; i < n; i += 2) // odd entries stay zero from calloc
    p[i] = x[i] * x[i];
  for (int i = 1; i < n; i += 2)
    p[i] += x[i];
  p = (double *)realloc(p, sizeof(double) * 4 * n);
  for (int i = n; i < 4 * n; i++)
    p[i] = p[i - n] * cos(x[i % n]);
  double s = 0;
  for (int i = 0; i < 4 * n; i++)
    s += p[i] * (1.0 + 0.01 * i);
  free(p);
  return s;
}

enum { N = 11 };
static double grow_at(const double *x, void *ctx) { (void)ctx; return grow(x, N); }

int main(void) {
  double x[N], v[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.9 - 0.13 * i;
    v[i] = 0.3 + (i % 4) * 0.2;
  }
  double ad = __umbra_fwddiff((void *)grow, umbra_dup, x, v, umbra_const, N);
  fd_check("grow", ad, fd_dir(grow_at, NULL, x, v, N));
  return fd_finish();
}
