// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// RUN: %clang -O0 -I %testinc -I %runtime-include -c -emit-llvm %s -o %t.0.bc
// RUN: %umbra %t.0.bc --emit=llvm-ir -o /dev/null --print-types 2>&1 | FileCheck %s
// RUN: %clang -O2 -fno-unroll-loops -I %testinc -I %runtime-include -c -emit-llvm %s -o %t.1.bc
// RUN: %umbra %t.1.bc --emit=llvm-ir -o /dev/null --print-types 2>&1 | FileCheck %s
// An LU factorisation (Doolittle, no pivoting) in place in a scratch copy, then forward and
// backward substitution in place in the right-hand side: b[i] -= L[i][k] b[k] reads b[k],
// final since step k, and rewrites b[i]. The multipliers and final rows are re-read by
// index; the entries each step rewrites stay taped.
// CHECK: overwrites of @f (memory stable):
// CHECK-DAG: re-read (later stores miss it by index)
// CHECK-DAG: cached: may be overwritten by store
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

#define N 6

double f(const double *a, const double *rhs) {
  double *A = malloc(sizeof(double) * N * N), *b = malloc(sizeof(double) * N);
  for (int i = 0; i < N * N; i++)
    A[i] = a[i] + (i % (N + 1) == 0 ? 4.0 : 0.0);
  for (int i = 0; i < N; i++)
    b[i] = rhs[i];
  for (int k = 0; k < N; k++)
    for (int i = k + 1; i < N; i++) {
      A[i * N + k] /= A[k * N + k];
      for (int j = k + 1; j < N; j++)
        A[i * N + j] -= A[i * N + k] * A[k * N + j];
    }
  for (int i = 0; i < N; i++) /* L y = b, in place */
    for (int k = 0; k < i; k++)
      b[i] -= A[i * N + k] * b[k];
  for (int i = N - 1; i >= 0; i--) { /* U x = y, in place */
    for (int k = i + 1; k < N; k++)
      b[i] -= A[i * N + k] * b[k];
    b[i] /= A[i * N + i];
  }
  double s = 0;
  for (int i = 0; i < N; i++)
    s += b[i] * b[i] * (1 + 0.2 * i);
  free(A);
  free(b);
  return s;
}

static double f_at(const double *p, void *ctx) { (void)ctx; return f(p, p + N * N); }

int main(void) {
  double p[N * N + N], dp[N * N + N] = {0}, fd[N * N + N];
  for (int i = 0; i < N * N + N; i++)
    p[i] = 0.5 * cos(0.7 * i) - 0.1;
  __enzyme_autodiff((void *)f, enzyme_dup, p, dp, enzyme_dup, p + N * N, dp + N * N);
  fd_grad(f_at, NULL, p, N * N + N, fd);
  fd_check_array("dp", dp, fd, N * N + N);
  return fd_finish();
}
