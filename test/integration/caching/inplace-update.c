// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// The output array is the input array: x[i] is read, then overwritten by the same loop. The
// adjoint of x[i] * x[i] needs the old value, which re-reading x would not give: reverse mode
// must keep it. A second pass reads the updated values (their adjoint flows back through the
// first pass).
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void square_in_place(double *x, int n) {
  for (int i = 0; i < n; i++)
    x[i] = sin(x[i]) * x[i];
}

double f(double *x, int n) {
  square_in_place(x, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i] * (1 + i);
  return s;
}

void f_out(double *x, int n, double *out) { *out = f(x, n); }

enum { N = 11 };
static double f_at(const double *p, void *ctx) {
  (void)ctx;
  double x[N];
  memcpy(x, p, sizeof x);
  return f(x, N);
}

int main(void) {
  double x[N], x0[N], dx[N] = {0}, fd[N], out = 0, dout = 1;
  for (int i = 0; i < N; i++) x0[i] = x[i] = 0.4 + 0.13 * i - 0.6 * (i % 3 == 1);
  __enzyme_autodiff((void *)f_out, enzyme_dup, x, dx, enzyme_const, N, enzyme_dup, &out, &dout);
  fd_grad(f_at, NULL, x0, N, fd);
  fd_check_array("dx", dx, fd, N);
  return fd_finish();
}
