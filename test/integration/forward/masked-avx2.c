// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CFLAGS: -mavx2 -mfma
// With AVX2 the loop vectoriser if-converts conditional stores into
// llvm.masked.store and indexed loads into llvm.masked.gather: their tangents
// are the same masked operations on the shadows.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void cond_square(double *restrict y, const double *restrict x, int n) {
  for (int i = 0; i < n; i++)
    if (x[i] > 0.5)
      y[i] = x[i] * x[i];
}

double gather_sum(const double *x, const int *idx, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[idx[i]] * x[idx[i]];
  return s;
}

enum { N = 203 };
static int IDX[N];
static double Y[N], DY[N];

double f(double *x, double *y, const int *idx, int n) {
  cond_square(y, x, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += y[i] * (i % 3);
  return s + gather_sum(x, idx, n);
}

static double f_at(const double *x, void *c) {
  (void)c;
  for (int i = 0; i < N; i++) Y[i] = 0;
  return f((double *)x, Y, IDX, N);
}

int main(void) {
  double x[N], dx[N];
  for (int i = 0; i < N; i++) {
    x[i] = (i * 37 % 100) / 100.0 + 0.005;
    dx[i] = 1.0 + i % 5;
    IDX[i] = (i * 7) % N;
  }
  double ad = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_dup, Y, DY,
                               enzyme_const, IDX, enzyme_const, N);
  fd_check("masked store + gather", ad, fd_dir(f_at, NULL, x, dx, N));
  return fd_finish();
}
