// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Globals in f: a constant coefficient table (inactive, read in a loop and by
// a data-dependent index) and a mutable inactive call counter, which the
// derivative code must increment exactly once per request, like f itself.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);

static const double coeff[8] = {0.5, -1.25, 0.75, 2.0, -0.3, 1.1, 0.05, -0.6};
static int calls;

double f(const double *x, int n, double t) {
  calls++;
  double h = 0; // Horner in t
  for (int k = 7; k >= 0; k--)
    h = h * t + coeff[k];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += coeff[i % 8] * x[i] * x[i] + coeff[(i * 3) & 7] * sin(t * x[i]);
  return s * h;
}

enum { N = 11 };
// packed [x (N), t]
static double f_at(const double *p, void *ctx) { (void)ctx; return f(p, N, p[N]); }

int main(void) {
  double p[N + 1], dx[N] = {0}, fd[N + 1];
  for (int i = 0; i < N; i++) p[i] = 0.4 + 0.13 * i - 0.7 * (i % 2);
  p[N] = 0.85;
  double dt = __enzyme_autodiff((void *)f, enzyme_dup, p, dx, enzyme_const, N,
                                enzyme_out, p[N]);
  fd_check_exact("calls after one request", calls, 1);
  fd_grad(f_at, NULL, p, N + 1, fd); // calls f 4 times per coordinate
  fd_check_array("dx", dx, fd, N);
  fd_check("dt", dt, fd[N]);
  calls = 10;
  double dx2[N] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, p, dx2, enzyme_const, N, enzyme_const, p[N]);
  fd_check_exact("calls after a second request", calls, 11);
  fd_check_array("dx (t const)", dx2, fd, N);
  return fd_finish();
}
