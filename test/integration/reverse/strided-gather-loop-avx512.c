// REQUIRES: avx512f
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CFLAGS: -mavx512f
// Column reads and writes of a row-major matrix in a loop (gmm's shape): with AVX-512 the
// vectoriser gathers and scatters through a vector induction variable (phi <0, 1, ..., 7>
// stepping by 8, times the row length), whose lanes are provably apart, so each adjoint is one
// gather and one scatter. The scatter writes a column of a scratch block read back later.
#include "fdcheck.h"
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { R = 64, C = 10 };

double columns(const double *x, int col, int rows) {
  double *t = malloc(sizeof *t * rows * C);
  for (int i = 0; i < rows * C; i++)
    t[i] = x[i];
  for (int i = 0; i < rows; i++)
    t[i * C + col] = x[i * C + col] * x[i * C + (col + 3) % C];
  double s = 0;
  for (int i = 0; i < rows; i++)
    s += t[i * C + col] * x[i * C + 1] + t[i * C + 2];
  free(t);
  return s;
}

static double f_at(const double *x, void *c) {
  (void)c;
  return columns(x, 5, R);
}

int main(void) {
  static double x[R * C], dx[R * C], fd[R * C];
  for (int i = 0; i < R * C; i++)
    x[i] = -0.8 + (i * 37 % 100) / 60.0;
  fd_grad(f_at, NULL, x, R * C, fd);
  __enzyme_autodiff((void *)columns, enzyme_dup, x, dx, enzyme_const, 5, enzyme_const, R);
  fd_check_array("grad", dx, fd, R * C);
  return fd_finish();
}
