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
// A left-looking Cholesky factorisation in place (gp_lml's): each entry of the factor is
// written twice (the kernel, then the factor), and once column k is final the later columns
// only read it. Index reasoning re-reads those final entries; the entries the factorisation
// overwrites stay taped. A wrong "re-read" shows up as a wrong gradient.
// CHECK: overwrites of @f (memory stable):
// CHECK-DAG: re-read (later stores miss it by index)
// CHECK-DAG: cached: may be overwritten by store
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

#define N 7

double f(const double *x, const double *y) {
  double *L = malloc(sizeof(double) * N * N), *z = malloc(sizeof(double) * N);
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < i; j++) {
      double d = x[i] - x[j];
      L[i * N + j] = exp(-0.5 * d * d);
    }
    L[i * N + i] = 1.5 + x[i] * x[i];
  }
  for (int j = 0; j < N; j++) {
    double djj = L[j * N + j];
    djj *= 1 + 0.01 * djj; /* the adjoint needs the value the factor overwrites */
    for (int k = 0; k < j; k++)
      djj -= L[j * N + k] * L[j * N + k];
    L[j * N + j] = sqrt(djj);
    for (int i = j + 1; i < N; i++) {
      double lij = L[i * N + j];
      lij *= 1 + 0.01 * lij;
      for (int k = 0; k < j; k++)
        lij -= L[i * N + k] * L[j * N + k];
      L[i * N + j] = lij / L[j * N + j];
    }
  }
  double quad = 0, logdet = 0;
  for (int i = 0; i < N; i++) {
    double zi = y[i];
    for (int k = 0; k < i; k++)
      zi -= L[i * N + k] * z[k];
    z[i] = zi / L[i * N + i];
    quad += z[i] * z[i];
    logdet += log(L[i * N + i]);
  }
  free(L);
  free(z);
  return -0.5 * quad - logdet;
}

static double f_at(const double *p, void *ctx) { (void)ctx; return f(p, p + N); }

int main(void) {
  double p[2 * N], dp[2 * N] = {0}, fd[2 * N];
  for (int i = 0; i < N; i++) {
    p[i] = 0.3 * i - 0.1 * (i % 3);
    p[N + i] = 0.7 - 0.2 * i + 0.05 * i * i;
  }
  __enzyme_autodiff((void *)f, enzyme_dup, p, dp, enzyme_dup, p + N, dp + N);
  fd_grad(f_at, NULL, p, 2 * N, fd);
  fd_check_array("dp", dp, fd, 2 * N);
  return fd_finish();
}
