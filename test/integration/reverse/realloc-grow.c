// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// A buffer grown with realloc inside f, starting from NULL: values written before a move are
// read after it, so their adjoints must travel back from the new block's shadow to the old
// one's (which stays alive until the adjoint sweep passes the realloc).
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);

double f(const double *x, int n, double c) {
  int cap = 0;
  double *a = NULL;
  for (int i = 0; i < n; i++) {
    if (i >= cap) {
      cap = cap ? 2 * cap : 1;
      a = realloc(a, cap * sizeof *a);
    }
    a[i] = x[i] * x[i] + c * sin(x[i]);
  }
  a = realloc(a, n * sizeof *a); // shrink to fit
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * a[n - 1 - i] + c * a[i];
  free(a);
  return s;
}

enum { N = 11 };
// packed [x (N), c]
static double f_at(const double *p, void *ctx) { (void)ctx; return f(p, N, p[N]); }

int main(void) {
  double p[N + 1], dx[N] = {0}, fd[N + 1];
  for (int i = 0; i < N; i++) p[i] = 0.2 + 0.15 * i - 0.6 * (i % 2);
  p[N] = 0.45;
  double dc = __enzyme_autodiff((void *)f, enzyme_dup, p, dx, enzyme_const, N,
                                enzyme_out, p[N]);
  fd_grad(f_at, NULL, p, N + 1, fd);
  fd_check_array("dx", dx, fd, N);
  fd_check("dc", dc, fd[N]);
  return fd_finish();
}
