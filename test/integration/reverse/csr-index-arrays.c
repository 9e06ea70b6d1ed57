// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// A sparse matrix in CSR form (a struct holding the values and the integer index arrays)
// inside Jacobi sweeps that update x in place. The index arrays are passed as dup with zeroed
// shadows, as the error for passing them as constant advises (errors/constant-pointer-in-struct.c):
// integer data gets no derivative, so the shadows only have to exist.
#include "fdcheck.h"
#include "umbra.h"
#include <stdlib.h>
typedef struct { int n; const int *rowptr, *col; const double *val; } csr;
__attribute__((noinline)) static void spmv(const csr *A, const double *x, double *y) {
  for (int i = 0; i < A->n; i++) {
    double s = 0;
    for (int p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) s += A->val[p] * x[A->col[p]];
    y[i] = s;
  }
}
__attribute__((noinline)) double solve(const double *val, const double *b, const int *rowptr, const int *col, int n, int sweeps) {
  csr A = {n, rowptr, col, val};
  double *x = calloc(n, sizeof *x), *r = malloc(n * sizeof *r);
  for (int s = 0; s < sweeps; s++) {
    spmv(&A, x, r);
    for (int i = 0; i < n; i++) {
      double d = 0;
      for (int p = rowptr[i]; p < rowptr[i + 1]; p++) if (col[p] == i) d = val[p];
      x[i] += (b[i] - r[i]) / d;
    }
  }
  double e = 0;
  for (int i = 0; i < n; i++) e += x[i] * x[i] + x[i];
  free(x); free(r);
  return e;
}
enum { N = 5, NNZ = 13 };
static const int rp[N + 1] = {0, 2, 5, 8, 11, 13};
static const int cl[NNZ] = {0, 1, 0, 1, 2, 1, 2, 3, 2, 3, 4, 3, 4};
static double at(const double *p, void *c) { (void)c; return solve(p, p + NNZ, rp, cl, N, 6); }
int main(void) {
  int srp[N + 1] = {0}, scl[NNZ] = {0};
  double x[NNZ + N], dx[NNZ + N] = {0}, fd[NNZ + N];
  for (int k = 0; k < NNZ; k++) x[k] = (cl[k] == 0 || k == 3 || k == 6 || k == 9 || k == 12) ? 4 + 0.1 * k : -0.5 - 0.05 * k;
  for (int i = 0; i < N; i++) x[NNZ + i] = 1 + 0.2 * i;
  __enzyme_autodiff((void *)solve, enzyme_dup, x, dx, enzyme_dup, x + NNZ, dx + NNZ, enzyme_dup, rp, srp, enzyme_dup, cl, scl, enzyme_const, N, enzyme_const, 6);
  fd_grad(at, NULL, x, NNZ + N, fd);
  fd_check_array("d", dx, fd, NNZ + N);
  return fd_finish();
}
