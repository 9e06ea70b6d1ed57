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
// A parallel region re-reads in its adjoint what its caller stored before the fork and nobody
// writes after it (issue 27: the region's shared variables are slots of the caller, and every
// read through them used to be taped per access): test/reverse/openmp-region-stable.c pins which
// loads are re-read. Here the gradients that must come out right:
// - `energy`: the docking shape (a reduction over pairs of read-only arrays): re-read;
// - `energy_then_reset`: the caller overwrites the data after the region, so the region's
//   adjoint must not re-read it;
// - `handoff`: thread 1 writes `acc[0]` after thread 0 read it, although the write comes first
//   in the code (thread 1 waits for thread 0's flag): the region's threads run at once, so
//   every write of the region counts as coming after every read; re-reading would give
//   sin(7) instead of sin(1) for dx[0];
// against finite differences (the first two) and the value thread 0 saw (the third), with 1, 2
// and 3 threads.
#include "fdcheck.h"
#include <omp.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { N = 24 };

__attribute__((noinline)) double energy(const double *x, const double *w, int n) {
  double e = 0;
#pragma omp parallel for reduction(+ : e)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double d = x[i] - w[j];
      e += sin(d) * d + cos(x[i] * w[j]);
    }
  return e;
}

__attribute__((noinline)) double energy_then_reset(double *x, const double *w, int n) {
  double e = 0;
#pragma omp parallel for reduction(+ : e)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) e += sin(x[i] * w[j]) * x[i];
  for (int i = 0; i < n; i++) x[i] = 0.5; // after the region: its reads must be taped
  return e;
}

__attribute__((noinline)) double handoff(const double *x, double *acc, double *seen) {
  double y = 0;
  int flag = 0;
#pragma omp parallel reduction(+ : y)
  {
    int t = omp_get_thread_num();
    if (t == 1) {
      int ready = 0;
      while (!ready) {
#pragma omp atomic read
        ready = flag;
      }
      acc[0] = 7.0; // after thread 0's read below
    }
    if (t == 0 || omp_get_num_threads() == 1) {
      seen[0] = acc[0];
      y += sin(acc[0]) * x[0];
#pragma omp atomic write
      flag = 1;
    }
  }
  return y;
}

static double xs[N], ws[N], dx[N];

static double energy_at(double v, void *ctx) {
  int k = *(int *)ctx;
  double keep = xs[k];
  xs[k] = v;
  double r = energy(xs, ws, N);
  xs[k] = keep;
  return r;
}

static double reset_at(double v, void *ctx) {
  int k = *(int *)ctx;
  double copy[N];
  for (int i = 0; i < N; i++) copy[i] = xs[i];
  copy[k] = v;
  return energy_then_reset(copy, ws, N);
}

int main(void) {
  for (int i = 0; i < N; i++) {
    xs[i] = 0.3 + 0.05 * i;
    ws[i] = 1.1 - 0.03 * i;
  }
  for (int threads = 1; threads <= 3; threads++) {
    omp_set_num_threads(threads);
    for (int i = 0; i < N; i++) dx[i] = 0;
    __enzyme_autodiff((void *)energy, enzyme_dup, xs, dx, enzyme_const, ws, enzyme_const, N);
    for (int k = 0; k < N; k += 5)
      fd_check("energy", dx[k], fd_deriv1(energy_at, &k, xs[k]));

    double copy[N], dcopy[N];
    for (int i = 0; i < N; i++) copy[i] = xs[i], dcopy[i] = 0;
    __enzyme_autodiff((void *)energy_then_reset, enzyme_dup, copy, dcopy, enzyme_const, ws,
                      enzyme_const, N);
    for (int k = 0; k < N; k += 5)
      fd_check("energy_then_reset", dcopy[k], fd_deriv1(reset_at, &k, xs[k]));

    double x[1] = {0.7}, dx0[1] = {0}, acc[1] = {1.0}, seen[1] = {0};
    __enzyme_autodiff((void *)handoff, enzyme_dup, x, dx0, enzyme_const, acc, enzyme_const,
                      seen);
    fd_check("handoff: thread 0 saw acc[0] = 1", seen[0], 1.0);
    fd_check("handoff", dx0[0], sin(seen[0]));
  }
  return fd_finish();
}
