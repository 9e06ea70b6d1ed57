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
// The adjoint that scales (issue 28): variables of the caller a region only reads (a scalar,
// elements of a small array at constant indices) get per-thread partial sums added once per
// thread; loads whose address the same iteration overwrites (`u[i] = u[i] * k + ...`, a
// disjoint slice per thread) add without atomics; the rest (an element at a varying index,
// arrays only read, a variable the region writes, a variable whose address escapes) stays
// atomic. Gradients with 1, 2 and 3 threads against finite differences, the same function
// without OpenMP, and each other; tangents against the serial gradient.
// (test/reverse/openmp-partial-sums.c pins which adds are atomic.)
#include "fdcheck.h"
#include <omp.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

// Its address goes to a function: not provably read-only in the region, so its adjoint
// stays atomic.
__attribute__((noinline)) static double twice(double *p) {
  *p *= 1.5;
  return 2 * *p;
}

#define OMP(s) _Pragma(#s)
#define NO(s)

// x[0..n) the data, x[n], x[n+1] two coefficients; u scratch of n.
#define SCALE(NAME, P)                                                                         \
  double NAME(const double *x, double *u, int n) {                                             \
    double k = x[n] * x[n + 1];                                                                \
    double w[3] = {sin(x[n]), cos(x[n + 1]), x[n] + 1};                                        \
    double e = x[n + 1] * 0.5;                                                                 \
    double e2 = twice(&e);                                                                     \
    for (int i = 0; i < n; i++)                                                                \
      u[i] = x[i];                                                                             \
    P(omp parallel for)                                                                        \
    for (int i = 0; i < n; i++) {                                                              \
      u[i] = u[i] * k + w[i % 3] * sin(x[i]) + w[1] * w[2] * u[i] + e * x[i];                  \
      u[i] += k * u[i] * u[i];                                                                 \
    }                                                                                          \
    double s = 0;                                                                              \
    for (int i = 0; i < n; i++)                                                                \
      s += u[i] * (1 + 0.1 * i);                                                               \
    return s + e2;                                                                             \
  }
SCALE(scale, OMP)
SCALE(scale_serial, NO)

// Two loops and a barrier in one region: k read by both (one private sum per thread, added
// once at the end of the thread's adjoint, after the mirrored barrier), v written by the
// first loop and read at other indices by the second, u updated in place, a reduction.
#define PHASES(NAME, P)                                                                        \
  double NAME(const double *x, double *u, double *v, int n) {                                  \
    double k = exp(0.3 * x[n]), s = 0;                                                         \
    for (int i = 0; i < n; i++)                                                                \
      u[i] = x[i] * x[n + 1];                                                                  \
    P(omp parallel) {                                                                          \
      P(omp for)                                                                               \
      for (int i = 0; i < n; i++)                                                              \
        v[i] = k * sin(x[i]);                                                                  \
      P(omp for reduction(+ : s))                                                              \
      for (int i = 0; i < n; i++) {                                                            \
        u[i] = u[i] * k + v[(i + 1) % n];                                                      \
        s += u[i] * k;                                                                         \
      }                                                                                        \
    }                                                                                          \
    return s;                                                                                  \
  }
PHASES(phases, OMP)
PHASES(phases_serial, NO)

// Memory the region never writes (it writes only its own locals and the reduction): every
// thread sums the adjoints of the coefficient table c (read by every iteration) and of x in a
// table of its own, keyed by address, added into the shadows when its adjoint ends; big[i]
// and big[i + 4096] share an entry of that table, so each iteration moves the other's sum to
// its shadow first.
#define TABLE(NAME, P)                                                                         \
  double NAME(const double *x, const double *big, int n) {                                     \
    const double *c = x + n;                                                                   \
    double s = 0;                                                                              \
    P(omp parallel for reduction(+ : s))                                                       \
    for (int i = 0; i < n; i++) {                                                              \
      double acc = 0;                                                                          \
      for (int j = 0; j < 2; j++)                                                              \
        acc += c[j] * sin(x[i] + j);                                                           \
      s += acc * acc + x[i] * (big[i] + 2 * big[i + 4096]);                                    \
    }                                                                                          \
    return s;                                                                                  \
  }
TABLE(table, OMP)
TABLE(table_serial, NO)

enum { N = 31, M = N + 2, BIG = 4096 + N };
static double big[BIG];
static double us[N], vs[N];
static double f0(const double *x, void *c) { (void)c; return scale(x, us, N); }
static double f1(const double *x, void *c) { (void)c; return phases(x, us, vs, N); }
static double f2(const double *x, void *c) { (void)c; return table(x, big, N); }
static double dbig[BIG], dbig_serial[BIG];

static void gradient(int k, int serial, const double *x, double *dx) {
  double u[N], du[N], v[N], dv[N];
  memset(dx, 0, M * sizeof *dx);
  memset(du, 0, sizeof du);
  memset(dv, 0, sizeof dv);
  double *db = serial ? dbig_serial : dbig;
  memset(db, 0, sizeof dbig);
  if (k == 0 && !serial)
    __enzyme_autodiff((void *)scale, enzyme_dup, x, dx, enzyme_dup, u, du, enzyme_const, N);
  else if (k == 0)
    __enzyme_autodiff((void *)scale_serial, enzyme_dup, x, dx, enzyme_dup, u, du, enzyme_const,
                      N);
  else if (k == 1 && !serial)
    __enzyme_autodiff((void *)phases, enzyme_dup, x, dx, enzyme_dup, u, du, enzyme_dup, v, dv,
                      enzyme_const, N);
  else if (k == 1)
    __enzyme_autodiff((void *)phases_serial, enzyme_dup, x, dx, enzyme_dup, u, du, enzyme_dup,
                      v, dv, enzyme_const, N);
  else if (!serial)
    __enzyme_autodiff((void *)table, enzyme_dup, x, dx, enzyme_dup, big, db, enzyme_const, N);
  else
    __enzyme_autodiff((void *)table_serial, enzyme_dup, x, dx, enzyme_dup, big, db,
                      enzyme_const, N);
}

static double tangent(int k, const double *x, const double *t) {
  double u[N], du[N], v[N], dv[N];
  static double tbig[BIG];
  if (k == 0)
    return __enzyme_fwddiff((void *)scale, enzyme_dup, x, t, enzyme_dup, u, du, enzyme_const,
                            N);
  if (k == 1)
    return __enzyme_fwddiff((void *)phases, enzyme_dup, x, t, enzyme_dup, u, du, enzyme_dup, v,
                            dv, enzyme_const, N);
  return __enzyme_fwddiff((void *)table, enzyme_dup, x, t, enzyme_dup, big, tbig, enzyme_const,
                          N);
}

int main(void) {
  double x[M], t[M], dx[M], fd[M], serial[M], first[3][M];
  for (int i = 0; i < M; i++) {
    x[i] = 0.4 + 0.03 * i - 0.05 * (i % 4);
    t[i] = 0.2 - 0.01 * i;
  }
  for (int i = 0; i < BIG; i++)
    big[i] = cos(0.01 * i);
  fd_fnv at[3] = {f0, f1, f2};
  const char *name[3] = {"scale", "phases", "table"};
  char buf[96];
  for (int th = 1; th <= 3; th++) {
    omp_set_num_threads(th);
    for (int k = 0; k < 3; k++) {
      fd_grad(at[k], NULL, x, M, fd);
      gradient(k, 0, x, dx);
      snprintf(buf, sizeof buf, "%s dx, %d threads", name[k], th);
      fd_check_array(buf, dx, fd, M);
      gradient(k, 1, x, serial);
      snprintf(buf, sizeof buf, "%s dx as serial, %d threads", name[k], th);
      fd_check_array(buf, dx, serial, M);
      if (k == 2) {
        snprintf(buf, sizeof buf, "%s dbig as serial, %d threads", name[k], th);
        fd_check_array(buf, dbig, dbig_serial, BIG);
      }
      if (th == 1)
        memcpy(first[k], dx, sizeof dx);
      snprintf(buf, sizeof buf, "%s dx as with 1 thread, %d threads", name[k], th);
      fd_check_array(buf, dx, first[k], M);
      double want = 0;
      for (int i = 0; i < M; i++)
        want += serial[i] * t[i];
      snprintf(buf, sizeof buf, "%s tangent, %d threads", name[k], th);
      fd_check(buf, tangent(k, x, t), want);
    }
  }
  return fd_finish();
}
