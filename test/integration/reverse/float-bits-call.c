// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// A double that travels as a uint64_t through non-inlined calls (issue 11, case 1): memcpy'd
// into an integer, passed by value to a function, memcpy'd back, and returned as an integer.
// The type analysis proves the integer parameters and returns carry doubles, so the derived
// signatures carry a double adjoint there. Before, the gradient was half the right value, and
// then a clear error. (Two floats packed into one uint64_t: test/errors/float-bits-packed.c.)
#include <stdint.h>
#include <string.h>
#include "fdcheck.h"

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) static uint64_t bits(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

__attribute__((noinline)) static double bits_scaled(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return 2 * d;
}

/* Integer in, integer out: the double is scaled and goes back as bits. */
__attribute__((noinline)) static uint64_t bits_times(uint64_t u, double s) {
  double d;
  memcpy(&d, &u, sizeof d);
  d *= s;
  memcpy(&u, &d, sizeof u);
  return u;
}

double f(double x) { return bits_scaled(bits(x)) * x; }

double g(double x, double y) {
  uint64_t u = bits_times(bits(x), y);
  double d;
  memcpy(&d, &u, sizeof d);
  return d * x;
}

typedef struct {
  double dx, dy;
} Grad2;
Grad2 __enzyme_autodiff_g(void *, ...);
#ifdef FD_SELFTEST
Grad2 __enzyme_autodiff_g(void *f, ...) { (void)f; Grad2 r = {0, 0}; return r; }
#endif

static double f_at(const double *p, void *ctx) {
  (void)ctx;
  return f(p[0]);
}

static double g_at(const double *p, void *ctx) {
  (void)ctx;
  return g(p[0], p[1]);
}

int main(void) {
  for (int k = 0; k < 2; k++) {
    double x = k ? 1.5 : -0.75;
    double ad = __enzyme_autodiff((void *)f, x);
    double fd = fd_dir(f_at, NULL, (double[]){x}, (double[]){1.0}, 1);
    fd_check("df/dx", ad, fd);
  }
  double xy[2] = {1.25, -0.5};
  Grad2 dg = __enzyme_autodiff_g((void *)g, xy[0], xy[1]);
  fd_check("dg/dx", dg.dx, fd_dir(g_at, NULL, xy, (double[]){1.0, 0.0}, 2));
  fd_check("dg/dy", dg.dy, fd_dir(g_at, NULL, xy, (double[]){0.0, 1.0}, 2));
  return fd_finish();
}
