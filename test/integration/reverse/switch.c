// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// switch statements: on a const int argument, on an integer computed from
// active data, and inside a loop on a const int array (the reverse sweep must
// revisit the cases in reverse order).
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);

double sw(double x, int mode) {
  double r;
  switch (mode) {
  case 0: r = x * x; break;
  case 1: r = sin(x) + 2.0 * x; break;
  case 2: r = exp(0.5 * x); break;
  default: r = x * x * x;
  }
  switch ((int)floor(x * 2.0) & 3) { // data-dependent
  case 0: r *= x; break;
  case 1: r += x * x * 0.25; break;
  case 2: r = r * r; break;
  default: r -= cos(x);
  }
  return r;
}

double mix(const double *x, const int *kind, int n) {
  double s = 1.0;
  for (int i = 0; i < n; i++) {
    switch (kind[i]) {
    case 0: s += x[i]; break;
    case 1: s *= x[i]; break;
    case 2: s = 0.1 * s * s + x[i]; break;
    default: s -= sin(x[i] * s);
    }
  }
  return s;
}

static double sw_at(double x, void *c) { return sw(x, *(int *)c); }
enum { N = 10 };
static const int kinds[N] = {1, 0, 2, 3, 1, 3, 2, 0, 1, 2};
static double mix_at(const double *x, void *c) { (void)c; return mix(x, kinds, N); }

int main(void) {
  double xs[] = {0.2, 0.7, 1.3, 1.8, -0.3, -1.2};
  for (int mode = 0; mode < 4; mode++)
    for (int i = 0; i < 6; i++) {
      char name[64];
      snprintf(name, sizeof name, "sw(%g, %d)", xs[i], mode);
      fd_check(name, __enzyme_autodiff((void *)sw, enzyme_out, xs[i], enzyme_const, mode),
               fd_deriv1(sw_at, &mode, xs[i]));
    }
  double x[N], dx[N] = {0}, fd[N];
  for (int i = 0; i < N; i++) x[i] = 0.8 + 0.07 * i - 0.3 * (i % 2);
  __enzyme_autodiff((void *)mix, enzyme_dup, x, dx, enzyme_const, kinds, enzyme_const, N);
  fd_grad(mix_at, NULL, x, N, fd);
  fd_check_array("mix dx", dx, fd, N);
  return fd_finish();
}
