// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CFLAGS: -mavx2 -mfma
// Reverse mode through the masked vector memory operations the AVX2 loop vectoriser emits:
// llvm.masked.store for an if-converted conditional store, llvm.masked.load for a conditional
// load, and llvm.masked.gather for indexed loads whose indices repeat (idx = 7i mod 203 hits
// every multiple of 7 several times), so the gather's adjoint must accumulate lane by lane.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void cond_square(double *restrict y, const double *restrict x, int n) {
  for (int i = 0; i < n; i++)
    if (x[i] > 0.5)
      y[i] = x[i] * x[i];
}

__attribute__((noinline)) double cond_sum(const double *restrict x, const double *restrict w,
                                          int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    if (x[i] < 0.3)
      s += w[i] * x[i];
  return s;
}

double gather_sum(const double *x, const int *idx, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[idx[i]] * x[idx[i]];
  return s;
}

enum { N = 203 };
static int IDX[N];
static double Y[N], DY[N], W[N];

double f(double *x, double *y, const int *idx, int n) {
  cond_square(y, x, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += y[i] * (i % 3);
  return s + gather_sum(x, idx, n) + cond_sum(x, W, n);
}

static double f_at(const double *x, void *c) {
  (void)c;
  for (int i = 0; i < N; i++) Y[i] = 0;
  return f((double *)x, Y, IDX, N);
}

int main(void) {
  double x[N], dx[N] = {0}, fd[N];
  for (int i = 0; i < N; i++) {
    x[i] = (i * 37 % 100) / 100.0 + 0.005;
    IDX[i] = (i * 7) % N;
    W[i] = 1.0 + (i % 4);
  }
  fd_grad(f_at, NULL, x, N, fd);
  for (int i = 0; i < N; i++) Y[i] = 0;
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, Y, DY, enzyme_const, IDX,
                    enzyme_const, N);
  fd_check_array("grad", dx, fd, N);
  return fd_finish();
}
