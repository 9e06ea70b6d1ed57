// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Forward mode of reverse/float-bits-call.c (issue 11, case 1): a double that travels as a
// uint64_t through non-inlined calls. The derived signatures carry a double tangent where the
// type analysis proves an integer parameter or return carries a double; at width 2 too. Two
// floats packed into one uint64_t (zext, shl, or at -O2) carry a <2 x float> tangent.
#include <stdint.h>
#include <string.h>
#include "fdcheck.h"

double __enzyme_fwddiff(void *, ...);
typedef struct {
  double d0, d1;
} Two;
Two __enzyme_fwddiff_two(void *, ...);
float __enzyme_fwddiff_f(void *, ...);
extern int enzyme_width;
#ifdef FD_SELFTEST
Two __enzyme_fwddiff_two(void *f, ...) { (void)f; Two r = {0, 0}; return r; }
int enzyme_width;
#endif

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

__attribute__((noinline)) static float pair_sum(uint64_t u) {
  float p[2];
  memcpy(p, &u, sizeof p);
  return p[0] * p[1] + p[1];
}

float h(float a, float b) {
  float p[2] = {a, b};
  uint64_t u;
  memcpy(&u, p, sizeof u);
  return pair_sum(u) * a;
}

static double f_at(const double *p, void *ctx) {
  (void)ctx;
  return f(p[0]);
}

static double g_at(const double *p, void *ctx) {
  (void)ctx;
  return g(p[0], p[1]);
}

/* h's formula in double (finite differences of float code are too coarse). */
static double h_at(const double *p, void *ctx) {
  (void)ctx;
  return (p[0] * p[1] + p[1]) * p[0];
}

int main(void) {
  for (int k = 0; k < 2; k++) {
    double x = k ? 1.5 : -0.75;
    double ad = __enzyme_fwddiff((void *)f, x, 1.0);
    fd_check("df/dx", ad, fd_dir(f_at, NULL, (double[]){x}, (double[]){1.0}, 1));
  }
  double xy[2] = {1.25, -0.5};
  double dgx = __enzyme_fwddiff((void *)g, xy[0], 1.0, xy[1], 0.0);
  double dgy = __enzyme_fwddiff((void *)g, xy[0], 0.0, xy[1], 1.0);
  fd_check("dg/dx", dgx, fd_dir(g_at, NULL, xy, (double[]){1.0, 0.0}, 2));
  fd_check("dg/dy", dgy, fd_dir(g_at, NULL, xy, (double[]){0.0, 1.0}, 2));
  Two w = __enzyme_fwddiff_two((void *)g, enzyme_width, 2, xy[0], 1.0, 0.0, xy[1], 0.0, 1.0);
  fd_check("dg/dx (width 2)", w.d0, dgx);
  fd_check("dg/dy (width 2)", w.d1, dgy);
  double ab[2] = {0.75, 1.5};
  float dha = __enzyme_fwddiff_f((void *)h, (float)ab[0], 1.0f, (float)ab[1], 0.0f);
  float dhb = __enzyme_fwddiff_f((void *)h, (float)ab[0], 0.0f, (float)ab[1], 1.0f);
  fd_check_f("dh/da", dha, fd_dir(h_at, NULL, ab, (double[]){1.0, 0.0}, 2));
  fd_check_f("dh/db", dhb, fd_dir(h_at, NULL, ab, (double[]){0.0, 1.0}, 2));
  return fd_finish();
}
