// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-LDFLAGS: -lopenblas
// Batched forward mode through BLAS rules that emit code before the primal call (scal and
// gemv read their output before the call overwrites it): each lane's tangents must be taken
// before the call too. Width 2 gave invalid IR (a lane read after its use) before the fix.
#include <cblas.h>

#include "fdcheck.h"

extern int enzyme_width, enzyme_dup, enzyme_const;
typedef struct { double a, b; } Pair;
Pair __enzyme_fwddiff_pair(void *, ...);

enum { N = 3 };

double f(const double *x, double a) {
  double z[N], y[N] = {1.0, -0.5, 0.25};
  double A[N * N];
  for (int k = 0; k < N * N; k++) A[k] = x[k % N] * (k + 1) * 0.1;
  cblas_dcopy(N, x, 1, z, 1);
  cblas_dscal(N, a, z, 1);
  cblas_dgemv(CblasRowMajor, CblasNoTrans, N, N, a, A, N, z, 1, 0.5, y, 1);
  return cblas_ddot(N, y, 1, z, 1);
}

static double f_at(const double *p, void *c) {
  (void)c;
  return f(p, p[N]);
}

int main(void) {
  double p[N + 1] = {0.4, -0.7, 1.1, 0.8};
  double d1[N] = {1, 0, 0}, d2[N] = {0.3, -0.2, 0.5};
  double v1[N + 1] = {1, 0, 0, 0}, v2[N + 1] = {0.3, -0.2, 0.5, 1.0};
  Pair t = __enzyme_fwddiff_pair((void *)f, enzyme_width, 2, enzyme_dup, p, d1, d2, p[N], 0.0,
                                 1.0);
  fd_check("lane 0 (x along e0)", t.a, fd_dir(f_at, NULL, p, v1, N + 1));
  fd_check("lane 1 (x and a)", t.b, fd_dir(f_at, NULL, p, v2, N + 1));
  return fd_finish();
}
