// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Nested loops: y = A x (matrix-vector product into a local array), then a
// nonlinear reduction over y; gradient with respect to every entry of A and x.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff_v(void *, ...);

enum { M = 4, N = 5 };

double mv_reduce(const double *A, const double *x, int m, int n) {
  double y[16];
  for (int i = 0; i < m; i++) {
    y[i] = 0;
    for (int j = 0; j < n; j++)
      y[i] += A[i * n + j] * x[j];
  }
  double s = 0;
  for (int i = 0; i < m; i++)
    s += (i + 1) * tanh(y[i]) + y[i] * y[i] * 0.5;
  return s;
}

// packed [A (M*N), x (N)]
static double mv_at(const double *p, void *c) { (void)c; return mv_reduce(p, p + M * N, M, N); }

int main(void) {
  double p[M * N + N], dp[M * N + N], fd[M * N + N];
  for (int k = 0; k < M * N + N; k++) p[k] = 0.6 * sin(1.3 * k + 0.4) - 0.1;
  memset(dp, 0, sizeof dp);
  __enzyme_autodiff_v((void *)mv_reduce, enzyme_dup, p, dp, enzyme_dup, p + M * N,
                      dp + M * N, enzyme_const, M, enzyme_const, N);
  fd_grad(mv_at, NULL, p, M * N + N, fd);
  fd_check_array("dA", dp, fd, M * N);
  fd_check_array("dx", dp + M * N, fd + M * N, N);

  // the same, with A constant: only dx is written, the A shadow is untouched
  double dx[N] = {0};
  __enzyme_autodiff_v((void *)mv_reduce, enzyme_const, p, enzyme_dup, p + M * N, dx,
                      enzyme_const, M, enzyme_const, N);
  fd_check_array("dx (A const)", dx, fd + M * N, N);
  return fd_finish();
}
