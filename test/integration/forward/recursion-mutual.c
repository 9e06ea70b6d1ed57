// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Mutual recursion (even/odd style): ev and od call each other.
#include "fdcheck.h"
#include "umbra.h"

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

static double ev_at(double x, void *ctx) { return ev(x, *(int *)ctx); }
static double od_at(double x, void *ctx) { return od(x, *(int *)ctx); }

int main(void) {
  for (int n = 0; n <= 7; n++) {
    double x = 0.3;
    char name[64];
    double ad = __umbra_fwddiff((void *)ev, x, 1.0, n);
    snprintf(name, sizeof name, "ev n=%d", n);
    fd_check(name, ad, fd_deriv1(ev_at, &n, x));
    ad = __umbra_fwddiff((void *)od, umbra_dup, x, 1.0, umbra_const, n);
    snprintf(name, sizeof name, "od n=%d", n);
    fd_check(name, ad, fd_deriv1(od_at, &n, x));
  }
  return fd_finish();
}
