// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CFLAGS: -fopenmp
// EXEC-LDFLAGS: -fopenmp
// A `float` captured by value (`firstprivate(c)`; issue 28: refused by name, as it travels in
// the low half of a pointer-sized integer): Umbra widens it to a double for the region, so its
// derivative travels too. Reverse mode (the adjoint of c summed over the threads) and forward
// mode (c's tangent reaching every thread), with 1, 2 and 3 threads, against finite
// differences and the same function without OpenMP.
#include "fdcheck.h"
#include <omp.h>

extern int enzyme_dup, enzyme_const;
float __enzyme_autodiff(void *, ...);
float __enzyme_fwddiff(void *, ...);

#define OMP(s) _Pragma(#s)
#define NO(s)
#define SCALE(NAME, P)                                                                         \
  float NAME(const float *x, float *y, float c, int n) {                                       \
    float s = 0;                                                                               \
    P(omp parallel for firstprivate(c) reduction(+ : s))                                       \
    for (int i = 0; i < n; i++) {                                                              \
      y[i] = c * sinf(x[i]);                                                                   \
      s += y[i] * c + x[i] * x[i];                                                             \
    }                                                                                          \
    return s + y[n - 1];                                                                       \
  }
SCALE(scale, OMP)
SCALE(scale_serial, NO)

enum { N = 19 };
static float ybuf[N];
// x, then c, for finite differences (in double, of the float function).
static double at(const double *v, void *ctx) {
  (void)ctx;
  float x[N];
  for (int i = 0; i < N; i++)
    x[i] = (float)v[i];
  return scale(x, ybuf, (float)v[N], N);
}

int main(void) {
  double v[N + 1], fd[N + 1], got[N + 1], want[N + 1];
  float x[N], dx[N], y[N], dy[N], sx[N], t[N];
  for (int i = 0; i < N; i++) {
    v[i] = 0.3 + 0.07 * i - 0.02 * (i % 4);
    x[i] = (float)v[i];
    t[i] = 0.1f * (i % 5) - 0.2f;
  }
  v[N] = 1.3;
  const float c = (float)v[N];
  fd_grad_f(at, NULL, v, N + 1, fd);
  memset(sx, 0, sizeof sx);
  memset(dy, 0, sizeof dy);
  float sc = __enzyme_autodiff((void *)scale_serial, enzyme_dup, x, sx, enzyme_dup, y, dy, c,
                               enzyme_const, N);
  for (int i = 0; i < N; i++)
    want[i] = sx[i];
  want[N] = sc;
  double tangent_want = 0;
  for (int i = 0; i < N; i++)
    tangent_want += sx[i] * t[i];
  tangent_want += sc * 0.5;
  char buf[64];
  for (int th = 1; th <= 3; th++) {
    omp_set_num_threads(th);
    memset(dx, 0, sizeof dx);
    memset(dy, 0, sizeof dy);
    float dc = __enzyme_autodiff((void *)scale, enzyme_dup, x, dx, enzyme_dup, y, dy, c,
                                 enzyme_const, N);
    for (int i = 0; i < N; i++)
      got[i] = dx[i];
    got[N] = dc;
    for (int i = 0; i <= N; i++) {
      snprintf(buf, sizeof buf, "gradient[%d], %d threads", i, th);
      fd_check_f(buf, got[i], fd[i]);
      snprintf(buf, sizeof buf, "gradient[%d] as serial, %d threads", i, th);
      fd_check_f(buf, got[i], want[i]);
    }
    float tan = __enzyme_fwddiff((void *)scale, enzyme_dup, x, t, enzyme_dup, y, dy, c, 0.5f,
                                 enzyme_const, N);
    snprintf(buf, sizeof buf, "tangent, %d threads", th);
    fd_check_f(buf, tan, tangent_want);
  }
  return fd_finish();
}
