// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CFLAGS: -fopenmp
// EXEC-LDFLAGS: -fopenmp
// Worksharing inside `#pragma omp parallel` regions (issue 28): several `omp for` loops with
// their implicit barriers, `nowait`, explicit barriers, `single`, `master`, `masked`,
// `critical` sections (a sum, a product and a hand-written maximum across threads, whose
// adjoints must reverse the sections in the reverse of the order the threads ran them) and
// a blocking `omp for reduction`. Reverse and forward mode with 1, 2 and 3 threads, against
// finite differences, each other and the same code without OpenMP (each function is written
// once, with and without its pragmas).
#include "fdcheck.h"
#include <omp.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#define OMP(s) _Pragma(#s)
#define NO(s)

// Threads read y written by other threads: the barrier between the loops orders them, and
// the adjoint needs the same barrier the other way round.
#define TWO_LOOPS(NAME, P)                                                                     \
  double NAME(const double *x, double *y, double *z, int n) {                                  \
    P(omp parallel) {                                                                          \
      P(omp for)                                                                               \
      for (int i = 0; i < n; i++)                                                              \
        y[i] = x[i] * x[i];                                                                    \
      P(omp for)                                                                               \
      for (int i = 0; i < n; i++)                                                              \
        z[i] = y[(i + 1) % n] * y[i] + sin(y[(i + n - 1) % n]);                                \
    }                                                                                          \
    double s = 0;                                                                              \
    for (int i = 0; i < n; i++)                                                                \
      s += z[i] * (1 + 0.1 * i);                                                               \
    return s;                                                                                  \
  }
TWO_LOOPS(two_loops, OMP)
TWO_LOOPS(two_loops_serial, NO)

// Per-thread partial results combined in critical sections: a sum, a product and a maximum;
// and a product updated in a critical section in every iteration (threads interleave).
#define CRITICAL(NAME, P)                                                                      \
  double NAME(const double *x, int n) {                                                        \
    double sum = 0, prod = 1, max = -1e300, each = 1;                                          \
    P(omp parallel) {                                                                          \
      double part = 0, pmax = -1e300;                                                          \
      P(omp for)                                                                               \
      for (int i = 0; i < n; i++) {                                                            \
        part += x[i] * x[i];                                                                   \
        double v = sin(x[i]) * x[i];                                                           \
        if (v > pmax)                                                                          \
          pmax = v;                                                                            \
        P(omp critical(each)) { each *= exp(0.05 * v); }                                       \
      }                                                                                        \
      P(omp critical) { sum += part; }                                                         \
      P(omp critical(product) hint(omp_sync_hint_contended)) { prod *= exp(0.1 * part); }    \
      P(omp critical(maximum)) {                                                               \
        if (pmax > max)                                                                        \
          max = pmax;                                                                          \
      }                                                                                        \
    }                                                                                          \
    return sum + prod + 3 * max + each;                                                        \
  }
CRITICAL(critical_sections, OMP)
CRITICAL(critical_sections_serial, NO)

// A loop without its barrier, an explicit barrier, single, master and masked sections, and a
// blocking reduction reading what the single section computed.
#define SECTIONS(NAME, P)                                                                      \
  double NAME(const double *x, double *y, double *shared, int n) {                             \
    double s = 0;                                                                              \
    P(omp parallel) {                                                                          \
      P(omp for nowait)                                                                        \
      for (int i = 0; i < n; i++)                                                              \
        y[i] = sin(x[i]) + x[i];                                                               \
      P(omp barrier)                                                                           \
      P(omp single) { shared[0] = y[0] * y[n - 1]; }                                           \
      P(omp master) { shared[1] = shared[0] * y[1]; }                                          \
      P(omp masked) { shared[2] = cos(y[2]); }                                                 \
      P(omp barrier)                                                                           \
      P(omp for reduction(+ : s))                                                              \
      for (int i = 0; i < n; i++)                                                              \
        s += y[i] * shared[0] + shared[1] * shared[2] * x[i];                                  \
    }                                                                                          \
    return s;                                                                                  \
  }
SECTIONS(sections, OMP)
SECTIONS(sections_serial, NO)

// Time steps inside one region: each step's loops read what other threads wrote in the step
// before (two buffers, a barrier after every loop), and a single section counts the steps in
// memory without derivatives.
#define STEPS(NAME, P)                                                                         \
  double NAME(const double *x, double *a, double *b, int n) {                                  \
    int steps = 0;                                                                             \
    for (int i = 0; i < n; i++)                                                                \
      a[i] = x[i];                                                                             \
    P(omp parallel)                                                                            \
    for (int t = 0; t < 3; t++) {                                                              \
      P(omp for)                                                                               \
      for (int i = 1; i < n - 1; i++)                                                          \
        b[i] = 0.5 * a[i] + 0.25 * (a[i - 1] + a[i + 1]) * sin(a[i]);                          \
      P(omp for)                                                                               \
      for (int i = 1; i < n - 1; i++)                                                          \
        a[i] = b[i] * (1 + 0.01 * t);                                                          \
      P(omp single) { steps++; }                                                               \
    }                                                                                          \
    double s = 0;                                                                              \
    for (int i = 0; i < n; i++)                                                                \
      s += a[i] * (1 + 0.05 * i);                                                              \
    return s * steps / 3;                                                                      \
  }
STEPS(steps, OMP)
STEPS(steps_serial, NO)

enum { N = 29 };
static double ys[N], zs[N], sh[3];
static double f0(const double *x, void *c) { (void)c; return two_loops(x, ys, zs, N); }
static double f1(const double *x, void *c) { (void)c; return critical_sections(x, N); }
static double f2(const double *x, void *c) { (void)c; return sections(x, ys, sh, N); }
static double f3(const double *x, void *c) { (void)c; return steps(x, ys, zs, N); }

// The gradient of function k at x into dx (its scratch arrays' shadows zeroed), parallel
// or serial.
static void gradient(int k, int serial, const double *x, double *dx) {
  double y[N], dy[N], z[N], dz[N], s[3], ds[3];
  memset(dx, 0, N * sizeof *dx);
  memset(dy, 0, sizeof dy);
  memset(dz, 0, sizeof dz);
  memset(ds, 0, sizeof ds);
  if (k == 0 && !serial)
    __enzyme_autodiff((void *)two_loops, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_dup, z,
                      dz, enzyme_const, N);
  else if (k == 0)
    __enzyme_autodiff((void *)two_loops_serial, enzyme_dup, x, dx, enzyme_dup, y, dy,
                      enzyme_dup, z, dz, enzyme_const, N);
  else if (k == 1 && !serial)
    __enzyme_autodiff((void *)critical_sections, enzyme_dup, x, dx, enzyme_const, N);
  else if (k == 1)
    __enzyme_autodiff((void *)critical_sections_serial, enzyme_dup, x, dx, enzyme_const, N);
  else if (k == 3 && !serial)
    __enzyme_autodiff((void *)steps, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_dup, z, dz,
                      enzyme_const, N);
  else if (k == 3)
    __enzyme_autodiff((void *)steps_serial, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_dup,
                      z, dz, enzyme_const, N);
  else if (!serial)
    __enzyme_autodiff((void *)sections, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_dup, s,
                      ds, enzyme_const, N);
  else
    __enzyme_autodiff((void *)sections_serial, enzyme_dup, x, dx, enzyme_dup, y, dy,
                      enzyme_dup, s, ds, enzyme_const, N);
}

static double tangent(int k, const double *x, const double *v) {
  double y[N], dy[N], z[N], dz[N], s[3], ds[3];
  if (k == 0)
    return __enzyme_fwddiff((void *)two_loops, enzyme_dup, x, v, enzyme_dup, y, dy, enzyme_dup,
                            z, dz, enzyme_const, N);
  if (k == 1)
    return __enzyme_fwddiff((void *)critical_sections, enzyme_dup, x, v, enzyme_const, N);
  if (k == 3)
    return __enzyme_fwddiff((void *)steps, enzyme_dup, x, v, enzyme_dup, y, dy, enzyme_dup, z,
                            dz, enzyme_const, N);
  return __enzyme_fwddiff((void *)sections, enzyme_dup, x, v, enzyme_dup, y, dy, enzyme_dup,
                          s, ds, enzyme_const, N);
}

int main(void) {
  double x[N], v[N], dx[N], fd[N], serial[N], first[4][N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.5 + 0.04 * i - 0.03 * (i % 5);
    v[i] = 0.3 - 0.02 * i;
  }
  fd_fnv at[4] = {f0, f1, f2, f3};
  const char *name[4] = {"two_loops", "critical_sections", "sections", "steps"};
  char buf[96];
  for (int t = 1; t <= 3; t++) {
    omp_set_num_threads(t);
    for (int k = 0; k < 4; k++) {
      fd_grad(at[k], NULL, x, N, fd);
      gradient(k, 0, x, dx);
      snprintf(buf, sizeof buf, "%s dx, %d threads", name[k], t);
      fd_check_array(buf, dx, fd, N);
      gradient(k, 1, x, serial);
      snprintf(buf, sizeof buf, "%s dx as serial, %d threads", name[k], t);
      fd_check_array(buf, dx, serial, N);
      if (t == 1)
        memcpy(first[k], dx, sizeof dx);
      snprintf(buf, sizeof buf, "%s dx as with 1 thread, %d threads", name[k], t);
      fd_check_array(buf, dx, first[k], N);
      double want = 0;
      for (int i = 0; i < N; i++)
        want += serial[i] * v[i];
      snprintf(buf, sizeof buf, "%s tangent, %d threads", name[k], t);
      fd_check(buf, tangent(k, x, v), want);
    }
  }
  return fd_finish();
}
