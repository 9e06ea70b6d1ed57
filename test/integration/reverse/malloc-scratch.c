// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Heap scratch buffers inside f: malloc and calloc, memcpy in, an overlapping
// memmove, memset clearing part of a buffer (its adjoint must be dropped), and
// free before returning.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);

double f(const double *x, int n, double c) {
  double *a = malloc(n * sizeof *a);
  double *b = calloc(n + 2, sizeof *b);
  memcpy(a, x, n * sizeof *a);
  for (int i = 0; i < n; i++)
    a[i] = a[i] * a[i] + c * x[(i + 1) % n];
  memmove(b + 1, a, n * sizeof *a);           // b = [0, a..., 0]
  memmove(a + 1, a, (n - 1) * sizeof *a);     // overlapping shift right
  memset(a, 0, 2 * sizeof *a);                // a[0] = a[1] = 0
  memset(b + n - 1, 0, 2 * sizeof *b);        // clears b[n-1], b[n]
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i + 1] + sin(b[i]) * x[i] + c * b[i + 2];
  free(a);
  free(b);
  return s;
}

enum { N = 9 };
// packed [x (N), c]
static double f_at(const double *p, void *ctx) { (void)ctx; return f(p, N, p[N]); }

int main(void) {
  double p[N + 1], dx[N] = {0}, fd[N + 1];
  for (int i = 0; i < N; i++) p[i] = 0.3 + 0.17 * i - 0.5 * (i % 2);
  p[N] = 0.65;
  double dc = __enzyme_autodiff((void *)f, enzyme_dup, p, dx, enzyme_const, N,
                                enzyme_out, p[N]);
  fd_grad(f_at, NULL, p, N + 1, fd);
  fd_check_array("dx", dx, fd, N);
  fd_check("dc", dc, fd[N]);
  return fd_finish();
}
