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
// Reductions other than `+` (issue 28: refused by name, their atomic method being a
// compare-and-swap loop): `max`, `min` and `*` on a parallel for, and a blocking `max` on an
// `omp for` inside a region. Umbra makes the runtime take their critical method (the loop
// goes) and reverses the threads' critical sections in the reverse of the order they ran.
// Reverse and forward mode with 1, 2 and 3 threads, against finite differences, the same
// functions without OpenMP, and each other.
#include "fdcheck.h"
#include <omp.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#define OMP(s) _Pragma(#s)
#define NO(s)

// The largest and smallest values of a smooth function of x (distinct everywhere, so the
// derivative exists), and the product of factors near one.
#define REDUCTIONS(NAME, P)                                                                    \
  double NAME(const double *x, int n) {                                                        \
    double hi = -1e300, lo = 1e300, prod = 1;                                                  \
    P(omp parallel for reduction(max : hi) reduction(min : lo) reduction(* : prod))            \
    for (int i = 0; i < n; i++) {                                                              \
      double v = sin(3 * x[i]) + 0.01 * i;                                                     \
      hi = v > hi ? v : hi;                                                                    \
      lo = fmin(lo, v * x[i]);                                                                 \
      prod *= 1 + 0.1 * cos(x[i]);                                                             \
    }                                                                                          \
    return 2 * hi + lo * hi + prod;                                                            \
  }
REDUCTIONS(reductions, OMP)
REDUCTIONS(reductions_serial, NO)

// A blocking max on a worksharing loop inside a region, then a loop using it.
#define BLOCKING(NAME, P)                                                                      \
  double NAME(const double *x, double *y, int n) {                                             \
    double top = -1e300;                                                                       \
    P(omp parallel) {                                                                          \
      P(omp for reduction(max : top))                                                          \
      for (int i = 0; i < n; i++)                                                              \
        top = fmax(top, x[i] * x[i] - 0.02 * i);                                               \
      P(omp for)                                                                               \
      for (int i = 0; i < n; i++)                                                              \
        y[i] = x[i] * top;                                                                     \
    }                                                                                          \
    double s = 0;                                                                              \
    for (int i = 0; i < n; i++)                                                                \
      s += y[i] * (1 + 0.1 * i);                                                               \
    return s;                                                                                  \
  }
BLOCKING(blocking, OMP)
BLOCKING(blocking_serial, NO)

enum { N = 27 };
static double ys[N];
static double f0(const double *x, void *c) { (void)c; return reductions(x, N); }
static double f1(const double *x, void *c) { (void)c; return blocking(x, ys, N); }

static void gradient(int k, int serial, const double *x, double *dx) {
  double y[N], dy[N];
  memset(dx, 0, N * sizeof *dx);
  memset(dy, 0, sizeof dy);
  if (k == 0 && !serial)
    __enzyme_autodiff((void *)reductions, enzyme_dup, x, dx, enzyme_const, N);
  else if (k == 0)
    __enzyme_autodiff((void *)reductions_serial, enzyme_dup, x, dx, enzyme_const, N);
  else if (!serial)
    __enzyme_autodiff((void *)blocking, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, N);
  else
    __enzyme_autodiff((void *)blocking_serial, enzyme_dup, x, dx, enzyme_dup, y, dy,
                      enzyme_const, N);
}

static double tangent(int k, const double *x, const double *t) {
  double y[N], dy[N];
  if (k == 0)
    return __enzyme_fwddiff((void *)reductions, enzyme_dup, x, t, enzyme_const, N);
  return __enzyme_fwddiff((void *)blocking, enzyme_dup, x, t, enzyme_dup, y, dy, enzyme_const,
                          N);
}

int main(void) {
  double x[N], t[N], dx[N], fd[N], serial[N], first[2][N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.2 + 0.11 * i - 0.07 * (i % 3);
    t[i] = 0.3 - 0.02 * i;
  }
  fd_fnv at[2] = {f0, f1};
  const char *name[2] = {"max/min/*", "blocking max"};
  char buf[96];
  for (int th = 1; th <= 3; th++) {
    omp_set_num_threads(th);
    for (int k = 0; k < 2; k++) {
      fd_grad(at[k], NULL, x, N, fd);
      gradient(k, 0, x, dx);
      snprintf(buf, sizeof buf, "%s dx, %d threads", name[k], th);
      fd_check_array(buf, dx, fd, N);
      gradient(k, 1, x, serial);
      snprintf(buf, sizeof buf, "%s dx as serial, %d threads", name[k], th);
      fd_check_array(buf, dx, serial, N);
      if (th == 1)
        memcpy(first[k], dx, sizeof dx);
      snprintf(buf, sizeof buf, "%s dx as with 1 thread, %d threads", name[k], th);
      fd_check_array(buf, dx, first[k], N);
      double want = 0;
      for (int i = 0; i < N; i++)
        want += serial[i] * t[i];
      snprintf(buf, sizeof buf, "%s tangent, %d threads", name[k], th);
      fd_check(buf, tangent(k, x, t), want);
    }
  }
  return fd_finish();
}
