// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-LDFLAGS: -lopenblas
// BLAS level 1 with strides: z = y (copy), z += a x (axpy, x read with stride 2),
// z *= a (scal), f = nrm2(z) + z . w (dot, w walked with stride -1), then the inputs
// are overwritten (the adjoint must use its saved copies). Gradient w.r.t. x, y, w
// (dup) and a (out); plus the same in single precision through the Fortran interface.
#include <cblas.h>
#include <f77blas.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
float __enzyme_autodiff_f(void *, ...);

enum { N = 4, NP = 2 * N + N + N + 1 };

double f(double *x, double *y, double *w, double a) {
  double z[N];
  cblas_dcopy(N, y, 1, z, 1);
  cblas_daxpy(N, a, x, 2, z, 1);
  cblas_dscal(N, a, z, 1);
  double r = cblas_dnrm2(N, z, 1) + cblas_ddot(N, z, 1, w, -1);
  for (int k = 0; k < N; k++) x[2 * k] = y[k] = w[k] = 0;
  return r;
}

float f_single(float *x, float *y, float *w, float a) {
  float z[N];
  int n = N, one = 1, two = 2, minus = -1;
  scopy_(&n, y, &one, z, &one);
  saxpy_(&n, &a, x, &two, z, &one);
  sscal_(&n, &a, z, &one);
  float r = snrm2_(&n, z, &one) + sdot_(&n, z, &one, w, &minus);
  for (int k = 0; k < N; k++) x[2 * k] = y[k] = w[k] = 0;
  return r;
}

// packed [x (2N, odd entries unused), y, w, a]
static double f_at(const double *p, void *c) {
  (void)c;
  double q[NP];
  memcpy(q, p, sizeof q);
  return f(q, q + 2 * N, q + 3 * N, q[NP - 1]);
}
// The single-precision function's formula, in double.
static double f_single_at(const double *p, void *c) {
  (void)c;
  double z[N], s = 0, d = 0;
  const double *x = p, *y = p + 2 * N, *w = p + 3 * N, a = p[NP - 1];
  for (int k = 0; k < N; k++) z[k] = a * (y[k] + a * x[2 * k]);
  for (int k = 0; k < N; k++) s += z[k] * z[k], d += z[k] * w[N - 1 - k];
  return sqrt(s) + d;
}

int main(void) {
  double p[NP], fd[NP], g[NP] = {0};
  for (int k = 0; k < NP; k++) p[k] = 0.6 * sin(1.3 * k + 0.4) + 0.2;
  for (int k = 1; k < 2 * N; k += 2) p[k] = 0;
  double q[NP];
  memcpy(q, p, sizeof q);
  double da = __enzyme_autodiff((void *)f, enzyme_dup, q, g, enzyme_dup, q + 2 * N, g + 2 * N,
                                enzyme_dup, q + 3 * N, g + 3 * N, p[NP - 1]);
  fd_grad(f_at, NULL, p, NP, fd);
  for (int k = 1; k < 2 * N; k += 2) g[k] = fd[k]; // unused entries
  fd_check_array("dx", g, fd, 2 * N);
  fd_check_array("dy", g + 2 * N, fd + 2 * N, N);
  fd_check_array("dw", g + 3 * N, fd + 3 * N, N);
  fd_check("da", da, fd[NP - 1]);

  float qf[NP], gf[NP] = {0};
  for (int k = 0; k < NP; k++) qf[k] = (float)p[k], p[k] = qf[k];
  float daf = __enzyme_autodiff_f((void *)f_single, enzyme_dup, qf, gf, enzyme_dup, qf + 2 * N,
                                  gf + 2 * N, enzyme_dup, qf + 3 * N, gf + 3 * N, qf[NP - 1]);
  fd_grad(f_single_at, NULL, p, NP, fd);
  for (int k = 0; k < 3 * N; k++)
    if (k >= 2 * N || k % 2 == 0) fd_check_f("single dxyw", gf[k], fd[k]);
  fd_check_f("single da", daf, fd[NP - 1]);
  return fd_finish();
}
