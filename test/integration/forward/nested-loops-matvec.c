// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Nested loops: y = A x, output through a dup pointer.  The tangent of y
// (dA x + A dx) lands in the shadow output array dy.
#include "fdcheck.h"
#include "umbra.h"

void matvec(const double *A, const double *x, double *y, int m, int n) {
  for (int i = 0; i < m; i++) {
    double s = 0;
    for (int j = 0; j < n; j++)
      s += A[i * n + j] * x[j];
    y[i] = s;
  }
}

enum { M = 4, N = 5 };
// packed input [A (M*N), x (N)] -> y (M)
static void matvec_packed(const double *p, double *y, void *ctx) {
  (void)ctx;
  matvec(p, p + M * N, y, M, N);
}

int main(void) {
  double A[M * N], dA[M * N], x[N], dx[N], y[M], dy[M];
  for (int i = 0; i < M * N; i++) {
    A[i] = 0.1 * (i % 7) - 0.3 + 0.01 * i;
    dA[i] = (i % 3) - 1.0;
  }
  for (int j = 0; j < N; j++) {
    x[j] = 1.0 - 0.4 * j;
    dx[j] = 0.5 + 0.1 * j;
  }
  for (int i = 0; i < M; i++) y[i] = dy[i] = 0;

  __umbra_fwddiff((void *)matvec, umbra_dup, A, dA, umbra_dup, x, dx,
                  umbra_dup, y, dy, umbra_const, M, umbra_const, N);

  double p[M * N + N], v[M * N + N], fd[M];
  for (int i = 0; i < M * N; i++) { p[i] = A[i]; v[i] = dA[i]; }
  for (int j = 0; j < N; j++) { p[M * N + j] = x[j]; v[M * N + j] = dx[j]; }
  fd_dir_vec(matvec_packed, NULL, p, v, N + M * N, fd, M);
  fd_check_array("dy", dy, fd, M);

  // the primal output is still computed
  double yref[M];
  matvec(A, x, yref, M, N);
  fd_check_array("y primal", y, yref, M);

  // only x active (A const): dy = A dx
  for (int i = 0; i < M; i++) dy[i] = 0;
  __umbra_fwddiff((void *)matvec, umbra_const, A, umbra_dup, x, dx,
                  umbra_dup, y, dy, umbra_const, M, umbra_const, N);
  for (int i = 0; i < M * N; i++) v[i] = 0;
  fd_dir_vec(matvec_packed, NULL, p, v, N + M * N, fd, M);
  fd_check_array("dy (A const)", dy, fd, M);
  return fd_finish();
}
