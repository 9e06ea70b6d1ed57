// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Mutual recursion (even/odd style): ev and od call each other, on an `out`
// scalar and on a dup array walked from both ends.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff_v(void *, ...);

double od(double x, int n);

double ev(double x, int n) {
  if (n == 0)
    return x;
  return od(sin(x) + 0.5 * x, n - 1) * 1.1;
}

double od(double x, int n) {
  if (n == 0)
    return x * x;
  return ev(0.25 * x * x + x, n - 1) - 0.1 * x;
}

double tail(const double *a, int lo, int hi);
double head(const double *a, int lo, int hi) {
  if (lo >= hi)
    return 0.0;
  return a[lo] * a[hi - 1] + 0.5 * tail(a, lo + 1, hi);
}
double tail(const double *a, int lo, int hi) {
  if (lo >= hi)
    return 1.0;
  return cos(a[hi - 1]) * head(a, lo, hi - 1) + a[lo];
}

static double ev_at(double x, void *ctx) { return ev(x, *(int *)ctx); }
static double od_at(double x, void *ctx) { return od(x, *(int *)ctx); }
enum { N = 8 };
static double head_at(const double *a, void *c) { (void)c; return head(a, 0, N); }

int main(void) {
  for (int n = 0; n <= 7; n++) {
    double x = 0.3;
    char name[64];
    snprintf(name, sizeof name, "ev n=%d", n);
    fd_check(name, __enzyme_autodiff((void *)ev, x, n), fd_deriv1(ev_at, &n, x));
    snprintf(name, sizeof name, "od n=%d", n);
    fd_check(name, __enzyme_autodiff((void *)od, x, n), fd_deriv1(od_at, &n, x));
  }
  double a[N], da[N] = {0}, fd[N];
  for (int i = 0; i < N; i++) a[i] = 1.2 - 0.27 * i + 0.1 * (i % 2);
  __enzyme_autodiff_v((void *)head, enzyme_dup, a, da, enzyme_const, 0, enzyme_const, N);
  fd_grad(head_at, NULL, a, N, fd);
  fd_check_array("head da", da, fd, N);
  return fd_finish();
}
