// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-LDFLAGS: -lopenblas
// BLAS level 1 with strides, forward mode: z = y (copy), z += a x (axpy, x read with
// stride 2), z *= a (scal), f = nrm2(z) + z . w (dot, w walked with stride -1);
// tangent along a direction in (x, y, w, a); the same in single precision through the
// Fortran interface.
#include <cblas.h>
#include <f77blas.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);
float __enzyme_fwddiff_f(void *, ...);

enum { N = 4, NP = 2 * N + N + N + 1 };

double f(const double *x, const double *y, const double *w, double a) {
  double z[N];
  cblas_dcopy(N, y, 1, z, 1);
  cblas_daxpy(N, a, x, 2, z, 1);
  cblas_dscal(N, a, z, 1);
  return cblas_dnrm2(N, z, 1) + cblas_ddot(N, z, 1, w, -1);
}

float f_single(float *x, float *y, float *w, float a) {
  float z[N];
  int n = N, one = 1, two = 2, minus = -1;
  scopy_(&n, y, &one, z, &one);
  saxpy_(&n, &a, x, &two, z, &one);
  sscal_(&n, &a, z, &one);
  return snrm2_(&n, z, &one) + sdot_(&n, z, &one, w, &minus);
}

// packed [x (2N), y, w, a]
static double f_at(const double *p, void *c) {
  (void)c;
  return f(p, p + 2 * N, p + 3 * N, p[NP - 1]);
}

int main(void) {
  double p[NP], v[NP];
  for (int k = 0; k < NP; k++) {
    p[k] = 0.6 * sin(1.3 * k + 0.4) + 0.2;
    v[k] = cos(0.8 * k + 0.1);
  }
  double fd = fd_dir(f_at, NULL, p, v, NP);
  fd_check("double", __enzyme_fwddiff((void *)f, enzyme_dup, p, v, enzyme_dup, p + 2 * N,
                                      v + 2 * N, enzyme_dup, p + 3 * N, v + 3 * N, p[NP - 1],
                                      v[NP - 1]), fd);
  float pf[NP], vf[NP];
  for (int k = 0; k < NP; k++) pf[k] = (float)p[k], vf[k] = (float)v[k];
  for (int k = 0; k < NP; k++) p[k] = pf[k], v[k] = vf[k];
  fd = fd_dir(f_at, NULL, p, v, NP);
  fd_check_f("single", __enzyme_fwddiff_f((void *)f_single, enzyme_dup, pf, vf, enzyme_dup,
                                          pf + 2 * N, vf + 2 * N, enzyme_dup, pf + 3 * N,
                                          vf + 3 * N, pf[NP - 1], vf[NP - 1]), fd);
  return fd_finish();
}
