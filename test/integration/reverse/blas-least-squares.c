// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-LDFLAGS: -lopenblas
// Least squares ||A x - b||^2 through BLAS: r = b (copy), r = A x - r (gemv with
// beta = -1), loss = r . r (dot). Gradients w.r.t. A, x and b (all dup), through the
// CBLAS interface (A row-major) and the Fortran one (the same storage read as A^T
// column-major, trans 'T'); the scratch r lives on the stack.
#include <cblas.h>
#include <f77blas.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff_v(void *, ...);

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

// packed [A, x, b]
static double lsq_at(const double *p, void *c) {
  (void)c;
  return lsq(p, p + M * N, p + M * N + N);
}

// Runs the request for F (a function name: requests need the function itself).
#define CHECK(NAME, F)                                                                  \
  do {                                                                                  \
    double A[M * N], x[N], b[M], g[NP] = {0};                                           \
    memcpy(A, p, sizeof A);                                                             \
    memcpy(x, p + M * N, sizeof x);                                                     \
    memcpy(b, p + M * N + N, sizeof b);                                                 \
    __enzyme_autodiff_v((void *)F, enzyme_dup, A, g, enzyme_dup, x, g + M * N,          \
                        enzyme_dup, b, g + M * N + N);                                  \
    fd_check_array(NAME " dA", g, fd, M * N);                                           \
    fd_check_array(NAME " dx", g + M * N, fd + M * N, N);                               \
    fd_check_array(NAME " db", g + M * N + N, fd + M * N + N, M);                       \
  } while (0)

int main(void) {
  double p[NP], fd[NP];
  for (int k = 0; k < NP; k++) p[k] = 0.7 * sin(1.1 * k + 0.2) + 0.1;
  fd_grad(lsq_at, NULL, p, NP, fd);
  CHECK("cblas", lsq);
  CHECK("f77", lsq_f77);
  return fd_finish();
}
