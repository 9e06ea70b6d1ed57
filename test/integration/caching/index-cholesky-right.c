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
// RUN: %clang -O2 -fno-unroll-loops -fno-vectorize -I %testinc -I %runtime-include -c -emit-llvm %s -o %t.1.bc
// RUN: %umbra %t.1.bc --emit=llvm-ir -o /dev/null --print-types 2>&1 | FileCheck %s
// A right-looking (outer-product) Cholesky factorisation in place: step k finishes column k,
// then updates the trailing submatrix, whose entries are read and rewritten by every later
// step. Column k is never written after step k (re-read by index); the trailing entries are
// overwritten by the next step (taped).
// CHECK: overwrites of @f (memory stable):
// CHECK-DAG: re-read (later stores miss it by index)
// CHECK-DAG: cached: may be overwritten by store
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

#define N 6

double f(const double *a) {
  double *L = malloc(sizeof(double) * N * N);
  for (int i = 0; i < N; i++)
    for (int j = 0; j <= i; j++)
      L[i * N + j] = a[i * N + j] + a[j * N + i] + (i == j ? 2.0 * N : 0.0);
  for (int k = 0; k < N; k++) {
    L[k * N + k] = sqrt(L[k * N + k]);
    for (int i = k + 1; i < N; i++)
      L[i * N + k] = L[i * N + k] / L[k * N + k];
    for (int j = k + 1; j < N; j++)
      for (int i = j; i < N; i++)
        L[i * N + j] -= L[i * N + k] * L[j * N + k];
  }
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j <= i; j++)
      s += L[i * N + j] * L[i * N + j] * (1 + 0.1 * j) + log(L[i * N + i]);
  free(L);
  return s;
}

static double f_at(const double *p, void *ctx) { (void)ctx; return f(p); }

int main(void) {
  double a[N * N], da[N * N] = {0}, fd[N * N];
  for (int i = 0; i < N * N; i++)
    a[i] = 0.4 * sin(1.3 * i) + 0.1;
  __enzyme_autodiff((void *)f, enzyme_dup, a, da);
  fd_grad(f_at, NULL, a, N * N, fd);
  fd_check_array("da", da, fd, N * N);
  return fd_finish();
}
