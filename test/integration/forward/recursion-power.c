// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Self-recursion: non-tail recursive fast power, and divide-and-conquer sum
// over an array (dup pointer passed down with offsets).
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

double rpow(double x, int n) {
  if (n == 0)
    return 1.0;
  double h = rpow(x, n / 2);
  return (n % 2) ? h * h * x : h * h;
}

double rsum(const double *a, int n) {
  if (n == 1)
    return a[0] * sin(a[0]);
  int m = n / 2;
  return rsum(a, m) * 0.9 + rsum(a + m, n - m);
}

static double rpow_at(double x, void *ctx) { return rpow(x, *(int *)ctx); }
enum { N = 13 };
static double rsum_at(const double *a, void *ctx) { (void)ctx; return rsum(a, N); }

int main(void) {
  int ns[] = {0, 1, 2, 5, 11, 16};
  for (int i = 0; i < 6; i++) {
    double x = 1.07;
    double ad = __enzyme_fwddiff((void *)rpow, x, 1.0, ns[i]);
    char name[64];
    snprintf(name, sizeof name, "rpow n=%d", ns[i]);
    fd_check(name, ad, fd_deriv1(rpow_at, &ns[i], x));
  }
  double a[N], v[N];
  for (int i = 0; i < N; i++) {
    a[i] = 0.2 + 0.15 * i;
    v[i] = (i % 2 ? 1.0 : -0.5) + 0.01 * i;
  }
  double ad = __enzyme_fwddiff((void *)rsum, enzyme_dup, a, v, enzyme_const, N);
  fd_check("rsum", ad, fd_dir(rsum_at, NULL, a, v, N));
  return fd_finish();
}
