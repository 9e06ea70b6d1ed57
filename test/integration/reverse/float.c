// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Float functions in reverse mode: float `out` arguments reach the request
// promoted to double through `...`; the adjoint comes back as float (or as a
// double, if so declared); float dup arrays get float shadows; a function
// mixing float and double outs returns a {float, double} struct.
// FD is computed on the same formula in double; tolerance is FD_RTOL_F.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
float __enzyme_autodiff_f(void *, ...);
double __enzyme_autodiff(void *, ...);
typedef struct {
  float a;
  double b;
} fd_pair;
fd_pair __enzyme_autodiff_fd(void *, ...);
#ifdef FD_SELFTEST
float __enzyme_autodiff_f(void *f, ...) { (void)f; return 0; }
fd_pair __enzyme_autodiff_fd(void *f, ...) { (void)f; fd_pair r = {0, 0}; return r; }
#endif

#define BODY1(SIN, EXP, SQRT) return SIN(x) * EXP(0.5f * x) + SQRT(x * x + 1.0f) * x;
float u(float x) { BODY1(sinf, expf, sqrtf) }
static double u_at(double x, void *c) { (void)c; BODY1(sin, exp, sqrt) }

#define LOOP_BODY(T, TANH)                                               \
  T s = 0;                                                              \
  for (int i = 0; i < n; i++)                                           \
    s += x[i] * x[i] * (T)0.5 + TANH(x[i] * s * (T)0.1);                \
  return s;
float floop(const float *x, int n) { LOOP_BODY(float, tanhf) }
static double dloop(const double *x, int n) { LOOP_BODY(double, tanh) }
enum { N = 16 };
static double floop_at(const double *x, void *c) { (void)c; return dloop(x, N); }

double mixed(float x, double y) { return (double)(x * x * sinf(x)) * y + exp(y * x); }
static double mixed_at(const double *p, void *c) { (void)c; return p[0] * p[0] * sin(p[0]) * p[1] + exp(p[1] * p[0]); }

int main(void) {
  float xs[] = {0.7f, -1.25f, 2.0f};
  for (int i = 0; i < 3; i++) {
    double fd = fd_deriv1(u_at, NULL, (double)xs[i]);
    fd_check_f("u float-returning request", __enzyme_autodiff_f((void *)u, xs[i]), fd);
    fd_check_f("u double-returning request", __enzyme_autodiff((void *)u, enzyme_out, xs[i]), fd);
  }

  float xf[N], dxf[N] = {0};
  double xd[N], fd[N];
  for (int i = 0; i < N; i++) {
    xf[i] = 0.5f + 0.125f * (float)(i % 5) - 0.25f * (float)(i % 2);
    xd[i] = xf[i];
  }
  __enzyme_autodiff_f((void *)floop, enzyme_dup, xf, dxf, enzyme_const, N);
  fd_grad(floop_at, NULL, xd, N, fd);
  for (int i = 0; i < N; i++) {
    char name[32];
    snprintf(name, sizeof name, "floop dx[%d]", i);
    fd_check_f(name, dxf[i], fd[i]);
  }

  double p[2] = {0.75, -0.6}, g[2];
  fd_grad(mixed_at, NULL, p, 2, g);
  fd_pair r = __enzyme_autodiff_fd((void *)mixed, (float)p[0], p[1]);
  fd_check_f("mixed d/dx (float)", r.a, g[0]);
  fd_check_f("mixed d/dy (double)", r.b, g[1]);
  return fd_finish();
}
