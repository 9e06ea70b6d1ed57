// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-CFLAGS: -fopenmp
// EXEC-LDFLAGS: -fopenmp -lopenblas
// BLAS calls inside OpenMP loops, in reverse mode: every thread's adjoint of a BLAS call adds
// into the shadows of the arrays it read, which other threads' adjoints may add into at the
// same time (a weight matrix every iteration multiplies by, a vector every row is dotted
// with). Those additions go through a zeroed scratch array and then atomic adds; the output's
// shadow, which only this thread's iteration wrote, is updated directly. Before, reverse mode
// refused the calls ("cannot differentiate the call to 'cblas_ddot' inside an OpenMP parallel
// region yet"). Each kernel with 1, 2 and 3 threads, against finite differences and forward
// mode (<J v, 1> = <v, J^T 1>):
// - rows(): y_i = tanh(A_i . x) (ddot, x shared by all rows), then nrm2 of each row;
// - batch(): per sample b, h_b = tanh(W x_b + c_b) (gemv with beta = 1 on the thread's own
//   h_b, W shared), then h_b += s w (axpy, w shared), a weighted sum;
// - blocks(): per block b, C_b = A_b B (gemm, B shared), then a weighted sum; and the same
//   through the Fortran interface (dgemm_, scalars by pointer, alpha shared).
#include <cblas.h>
#include <f77blas.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { R = 7, N = 5, B = 6, K = 3 };

double rows(const double *A, const double *x) {
  double y[R], r[R];
#pragma omp parallel for schedule(static, 1)
  for (int i = 0; i < R; i++) {
    y[i] = tanh(cblas_ddot(N, A + i * N, 1, x, 1));
    r[i] = cblas_dnrm2(N, A + i * N, 1);
  }
  double s = 0;
  for (int i = 0; i < R; i++) s += y[i] * (1 + 0.1 * i) + 0.3 * r[i];
  return s;
}

// W is N x N (row-major), X is B x N, c and w have N elements.
double batch(const double *W, const double *X, const double *c, const double *w) {
  double H[B * N];
#pragma omp parallel for
  for (int b = 0; b < B; b++) {
    double *h = H + b * N;
    for (int j = 0; j < N; j++) h[j] = c[j] + 0.01 * b;
    cblas_dgemv(CblasRowMajor, CblasNoTrans, N, N, 0.8, W, N, X + b * N, 1, 1.0, h, 1);
    for (int j = 0; j < N; j++) h[j] = tanh(h[j]);
    cblas_daxpy(N, 0.5, w, 1, h, 1);
  }
  double s = 0;
  for (int k = 0; k < B * N; k++) s += H[k] * (0.5 + 0.01 * k);
  return s;
}

// Blocks A_b are K x N (row-major, one after the other), B is N x K; C_b = A_b B is K x K.
double blocks(const double *A, const double *Bm) {
  double C[B * K * K];
#pragma omp parallel for
  for (int b = 0; b < B; b++)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, K, K, N, 1.0, A + b * K * N, N, Bm,
                K, 0.0, C + b * K * K, K);
  double s = 0;
  for (int k = 0; k < B * K * K; k++) s += sin(C[k]) * (1 + 0.02 * k);
  return s;
}

// The same through dgemm_, column-major: C_b (K x K) = alpha A_b (K x N, ld K) B (N x K, ld N),
// alpha shared by all blocks (its pointer is a parameter).
double blocks_fortran(const double *A, const double *Bm, const double *alpha) {
  double C[B * K * K];
#pragma omp parallel for
  for (int b = 0; b < B; b++) {
    int k = K, n = N;
    double zero = 0;
    char t = 'N';
    dgemm_(&t, &t, &k, &k, &n, (double *)alpha, (double *)A + b * K * N, &k, (double *)Bm, &n,
           &zero, C + b * K * K, &k);
  }
  double s = 0;
  for (int k = 0; k < B * K * K; k++) s += sin(C[k]) * (1 + 0.02 * k);
  return s;
}

enum { NR = R * N + N, NB = N * N + B * N + 2 * N, NK = B * K * N + N * K + 1, NMAX = NK };

static double rows_at(const double *p, void *c) {
  (void)c;
  return rows(p, p + R * N);
}
static double batch_at(const double *p, void *c) {
  (void)c;
  return batch(p, p + N * N, p + N * N + B * N, p + N * N + B * N + N);
}
static double blocks_at(const double *p, void *c) {
  (void)c;
  return blocks(p, p + B * K * N);
}
static double blocks_fortran_at(const double *p, void *c) {
  (void)c;
  return blocks_fortran(p, p + B * K * N, p + B * K * N + N * K);
}

// The gradient g against finite differences, and <g, v> against the forward derivative t.
static void check(const char *name, double (*at)(const double *, void *), const double *p,
                  const double *g, const double *v, double t, int n) {
  double fd[NMAX], gv = 0;
  fd_grad(at, NULL, p, n, fd);
  fd_check_array(name, g, fd, n);
  for (int k = 0; k < n; k++) gv += g[k] * v[k];
  fd_check(name, gv, t);
}

int main(void) {
  static const int threads[] = {1, 2, 3};
  double p[NMAX], v[NMAX];
  for (int k = 0; k < NMAX; k++) {
    p[k] = 0.6 * sin(0.7 * k + 0.3);
    v[k] = 0.5 - 0.03 * k;
  }
  for (int t = 0; t < 3; t++) {
    omp_set_num_threads(threads[t]);
    printf("%d threads\n", threads[t]);
    double g[NMAX], tan;

    memset(g, 0, sizeof g);
    __enzyme_autodiff((void *)rows, enzyme_dup, p, g, enzyme_dup, p + R * N, g + R * N);
    tan = __enzyme_fwddiff((void *)rows, enzyme_dup, p, v, enzyme_dup, p + R * N, v + R * N);
    check("rows", rows_at, p, g, v, tan, NR);

    memset(g, 0, sizeof g);
    const double *X = p + N * N, *c = X + B * N, *w = c + N;
    __enzyme_autodiff((void *)batch, enzyme_dup, p, g, enzyme_dup, X, g + N * N, enzyme_dup, c,
                      g + N * N + B * N, enzyme_dup, w, g + N * N + B * N + N);
    tan = __enzyme_fwddiff((void *)batch, enzyme_dup, p, v, enzyme_dup, X, v + N * N,
                           enzyme_dup, c, v + N * N + B * N, enzyme_dup, w,
                           v + N * N + B * N + N);
    check("batch", batch_at, p, g, v, tan, NB);

    memset(g, 0, sizeof g);
    __enzyme_autodiff((void *)blocks, enzyme_dup, p, g, enzyme_dup, p + B * K * N,
                      g + B * K * N);
    tan = __enzyme_fwddiff((void *)blocks, enzyme_dup, p, v, enzyme_dup, p + B * K * N,
                           v + B * K * N);
    check("blocks", blocks_at, p, g, v, tan, NK - 1);

    memset(g, 0, sizeof g);
    __enzyme_autodiff((void *)blocks_fortran, enzyme_dup, p, g, enzyme_dup, p + B * K * N,
                      g + B * K * N, enzyme_dup, p + B * K * N + N * K, g + B * K * N + N * K);
    tan = __enzyme_fwddiff((void *)blocks_fortran, enzyme_dup, p, v, enzyme_dup,
                           p + B * K * N, v + B * K * N, enzyme_dup, p + B * K * N + N * K,
                           v + B * K * N + N * K);
    check("blocks_fortran", blocks_fortran_at, p, g, v, tan, NK);
  }
  return fd_finish();
}
