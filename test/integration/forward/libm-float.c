// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// libm float versions (sinf, expf, ...) and a float loop.  Float arguments go
// through `...` as double; the request returning float is __enzyme_fwddiff_f.
// FD is computed on the same formula in double; tolerance is FD_RTOL_F.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
float __enzyme_fwddiff_f(void *, ...);

#define UNARY(fnf, fn)                                                   \
  float u_##fnf(float x) { return fnf(x); }                             \
  static double w_##fnf(double x, void *c) { (void)c; return fn(x); }
UNARY(sinf, sin) UNARY(cosf, cos) UNARY(tanf, tan) UNARY(expf, exp)
UNARY(logf, log) UNARY(sqrtf, sqrt) UNARY(tanhf, tanh) UNARY(atanf, atan)
UNARY(log1pf, log1p) UNARY(cbrtf, cbrt) UNARY(fabsf, fabs)

float powf_xy(float x, float y) { return powf(x, y) + atan2f(y, x); }
static double powf_at(const double *p, void *c) { (void)c; return pow(p[0], p[1]) + atan2(p[1], p[0]); }

#define LOOP_BODY(T, SIN)                                                \
  T s = 0;                                                              \
  for (int i = 0; i < n; i++)                                           \
    s += x[i] * x[i] * (T)0.5 + SIN(x[i]) * s * (T)0.01;                \
  return s;
float floop(const float *x, int n) { LOOP_BODY(float, sinf) }
static double dloop(const double *x, int n) { LOOP_BODY(double, sin) }
enum { N = 24 };
static double floop_at(const double *x, void *c) { (void)c; return dloop(x, N); }

#define CHECK1(fnf, x0)                                                        \
  fd_check_f(#fnf "(" #x0 ")", __enzyme_fwddiff_f((void *)u_##fnf, (float)(x0), 1.0f), \
             fd_deriv1(w_##fnf, NULL, (double)(float)(x0)))

int main(void) {
  CHECK1(sinf, 0.7); CHECK1(cosf, 0.7); CHECK1(tanf, 0.7); CHECK1(expf, 0.9);
  CHECK1(logf, 1.7); CHECK1(sqrtf, 2.5); CHECK1(tanhf, 0.8); CHECK1(atanf, -1.4);
  CHECK1(log1pf, 0.25); CHECK1(cbrtf, 3.1); CHECK1(fabsf, -1.3);

  float x = 1.25f, y = 0.75f, dx = 0.6f, dy = -0.8f;
  double p[2] = {x, y}, v[2] = {dx, dy};
  fd_check_f("powf+atan2f", __enzyme_fwddiff_f((void *)powf_xy, x, dx, y, dy),
             fd_dir(powf_at, NULL, p, v, 2));

  float xf[N], vf[N];
  double xd[N], vd[N];
  for (int i = 0; i < N; i++) {
    xf[i] = 0.5f + 0.05f * i;
    vf[i] = (i % 2) ? 1.0f : -0.5f;
    xd[i] = xf[i];
    vd[i] = vf[i];
  }
  fd_check_f("float loop", __enzyme_fwddiff_f((void *)floop, enzyme_dup, xf, vf, enzyme_const, N),
             fd_dir(floop_at, NULL, xd, vd, N));
  return fd_finish();
}
