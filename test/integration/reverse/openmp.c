// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CFLAGS: -fopenmp
// EXEC-LDFLAGS: -fopenmp
// Reverse mode through OpenMP `parallel for` regions (clang -fopenmp, libomp): `+`
// reductions (sum of squares, a dot product, a stencil whose threads read overlapping
// elements of x, so their adjoints meet in dx) and per-thread writes to disjoint slices
// followed by a serial sum. Each runs with 1, 2 and 3 threads: the gradients agree with
// finite differences and with each other.
#include "fdcheck.h"
#include <omp.h>

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
void __enzyme_autodiff(void *, ...);

double sum_sq(const double *x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

double dot_sin(const double *x, const double *w, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += w[i] * sin(x[i]);
  return s;
}

// Neighbouring iterations read the same x[i]: adjoints from different threads meet.
double stencil(const double *x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 1; i < n - 1; i++)
    s += x[i - 1] * x[i + 1] - x[i] * x[i];
  return s;
}

// Each thread writes its own slice of y; the sum after the region is serial.
double slices(const double *x, double *y, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i] = sin(x[i]) * x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += y[i] * (i + 1);
  return s;
}

enum { N = 37 };
static double w[N], scratch[N];
static double sum_sq_at(const double *x, void *c) { (void)c; return sum_sq(x, N); }
static double dot_sin_at(const double *x, void *c) { (void)c; return dot_sin(x, w, N); }
static double stencil_at(const double *x, void *c) { (void)c; return stencil(x, N); }
static double slices_at(const double *x, void *c) { (void)c; return slices(x, scratch, N); }

int main(void) {
  double x[N], dx[N], fd[N], y[N], dy[N], first[4][N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.9 - 0.05 * i + 0.1 * (i % 3);
    w[i] = 0.5 + 0.01 * i;
  }
  const int threads[3] = {1, 2, 3};
  for (int k = 0; k < 3; k++) {
    omp_set_num_threads(threads[k]);
    double (*at[4])(const double *, void *) = {sum_sq_at, dot_sin_at, stencil_at, slices_at};
    const char *name[4] = {"sum_sq dx", "dot_sin dx", "stencil dx", "slices dx"};
    for (int f = 0; f < 4; f++) {
      memset(dx, 0, sizeof dx);
      if (f == 0)
        __enzyme_autodiff((void *)sum_sq, enzyme_dup, x, dx, enzyme_const, N);
      else if (f == 1)
        __enzyme_autodiff((void *)dot_sin, enzyme_dup, x, dx, enzyme_const, w, enzyme_const,
                          N);
      else if (f == 2)
        __enzyme_autodiff((void *)stencil, enzyme_dup, x, dx, enzyme_const, N);
      else {
        memset(dy, 0, sizeof dy);
        __enzyme_autodiff((void *)slices, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const,
                          N);
      }
      fd_grad(at[f], NULL, x, N, fd);
      fd_check_array(name[f], dx, fd, N);
      if (k == 0)
        memcpy(first[f], dx, sizeof dx);
      else
        fd_check_array("same gradient with more threads", dx, first[f], N);
    }
  }
  return fd_finish();
}
