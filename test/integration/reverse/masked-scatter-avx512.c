// REQUIRES: avx512f
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CFLAGS: -mavx512f
// With AVX-512 an indexed store vectorises into llvm.masked.scatter. The indices repeat
// (idx = 5 floor(i/2) mod 64), so two lanes of each scatter write one address and the highest
// lane wins: only that lane's value may receive the adjoint of what was stored.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void scat(double *restrict y, const double *restrict x,
                                    const int *restrict idx, int n) {
  for (int i = 0; i < n; i++)
    y[idx[i]] = x[i] * x[i];
}

enum { N = 96, M = 64 };
static int IDX[N];
static double Y[M], DY[M];

double f(double *x, double *y, const int *idx, int n) {
  for (int i = 0; i < M; i++) y[i] = 0;
  scat(y, x, idx, n);
  double s = 0;
  for (int i = 0; i < M; i++)
    s += y[i] * (1 + i % 3);
  return s;
}

static double f_at(const double *x, void *c) {
  (void)c;
  return f((double *)x, Y, IDX, N);
}

int main(void) {
  double x[N], dx[N] = {0}, fd[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.25 + (i * 37 % 100) / 100.0;
    IDX[i] = (i / 2 * 5) % M; /* lanes 2k and 2k+1 of each vector share an address */
  }
  fd_grad(f_at, NULL, x, N, fd);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, Y, DY, enzyme_const, IDX,
                    enzyme_const, N);
  fd_check_array("grad", dx, fd, N);
  return fd_finish();
}
