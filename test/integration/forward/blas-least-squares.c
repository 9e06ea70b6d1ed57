// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-LDFLAGS: -lopenblas
// Least squares ||A x - b||^2 through BLAS (copy, gemv with beta = -1, dot), forward
// mode along a direction in (A, x, b), through CBLAS (A row-major) and Fortran (the
// same storage as A^T column-major, trans 'T'); plus the residual r = A x - b written
// to a dup output, whose tangent is checked as a vector.
#include <cblas.h>
#include <f77blas.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);
void __enzyme_fwddiff_v(void *, ...);

enum { M = 5, N = 3, NP = M * N + N + M };

double lsq(const double *A, const double *x, const double *b) {
  double r[M];
  cblas_dcopy(M, b, 1, r, 1);
  cblas_dgemv(CblasRowMajor, CblasNoTrans, M, N, 1.0, A, N, x, 1, -1.0, r, 1);
  return cblas_ddot(M, r, 1, r, 1);
}

double lsq_f77(double *A, double *x, double *b) {
  int m = N, n = M, lda = N, one = 1, len = M;
  double alpha = 1.0, beta = -1.0, r[M];
  dcopy_(&len, b, &one, r, &one);
  dgemv_("T", &m, &n, &alpha, A, &lda, x, &one, &beta, r, &one);
  return ddot_(&len, r, &one, r, &one);
}

void residual(const double *A, const double *x, const double *b, double *r) {
  cblas_dcopy(M, b, 1, r, 1);
  cblas_dgemv(CblasColMajor, CblasTrans, N, M, 1.0, A, N, x, 1, -1.0, r, 1);
}

// packed [A, x, b]
static double lsq_at(const double *p, void *c) {
  (void)c;
  return lsq(p, p + M * N, p + M * N + N);
}
static void residual_at(const double *p, double *r, void *c) {
  (void)c;
  residual(p, p + M * N, p + M * N + N, r);
}

int main(void) {
  double p[NP], v[NP];
  for (int k = 0; k < NP; k++) {
    p[k] = 0.7 * sin(1.1 * k + 0.2) + 0.1;
    v[k] = cos(0.7 * k);
  }
  double *A = p, *x = p + M * N, *b = p + M * N + N;
  double *dA = v, *dx = v + M * N, *db = v + M * N + N;
  double fd = fd_dir(lsq_at, NULL, p, v, NP);
  fd_check("cblas", __enzyme_fwddiff((void *)lsq, enzyme_dup, A, dA, enzyme_dup, x, dx,
                                     enzyme_dup, b, db), fd);
  fd_check("f77", __enzyme_fwddiff((void *)lsq_f77, enzyme_dup, A, dA, enzyme_dup, x, dx,
                                   enzyme_dup, b, db), fd);
  double r[M], dr[M], fdr[M];
  __enzyme_fwddiff_v((void *)residual, enzyme_dup, A, dA, enzyme_dup, x, dx, enzyme_dup, b, db,
                     enzyme_dup, r, dr);
  fd_dir_vec(residual_at, NULL, p, v, NP, fdr, M);
  fd_check_array("residual", dr, fdr, M);
  return fd_finish();
}
