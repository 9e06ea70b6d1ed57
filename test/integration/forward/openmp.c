// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CFLAGS: -fopenmp
// EXEC-LDFLAGS: -fopenmp
// Forward mode through OpenMP `parallel for` regions (clang -fopenmp, libomp): a `+`
// reduction (sum of squares, a dot product with one constant side) and per-thread writes to
// disjoint slices followed by a serial sum. Each runs with 1, 2 and 3 threads: the tangents
// agree with finite differences and with each other.
#include "fdcheck.h"
#include <omp.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

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
static double slices_at(const double *x, void *c) { (void)c; return slices(x, scratch, N); }

int main(void) {
  double x[N], v[N], y[N], dy[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.9 - 0.05 * i + 0.1 * (i % 3);
    v[i] = 1.0 - 0.03 * i;
    w[i] = 0.5 + 0.01 * i;
  }
  double first[3] = {0};
  const int threads[3] = {1, 2, 3};
  for (int k = 0; k < 3; k++) {
    omp_set_num_threads(threads[k]);
    double a = __enzyme_fwddiff((void *)sum_sq, enzyme_dup, x, v, enzyme_const, N);
    fd_check("sum_sq", a, fd_dir(sum_sq_at, NULL, x, v, N));
    double b = __enzyme_fwddiff((void *)dot_sin, enzyme_dup, x, v, enzyme_const, w,
                                enzyme_const, N);
    fd_check("dot_sin", b, fd_dir(dot_sin_at, NULL, x, v, N));
    memset(dy, 0, sizeof dy);
    double c = __enzyme_fwddiff((void *)slices, enzyme_dup, x, v, enzyme_dup, y, dy,
                                enzyme_const, N);
    fd_check("slices", c, fd_dir(slices_at, NULL, x, v, N));
    fd_check("dy[5]", dy[5], (cos(x[5]) * x[5] + sin(x[5])) * v[5]);
    double sum = a + b + c;
    if (k == 0)
      first[0] = sum;
    else
      fd_check("same tangent with more threads", sum, first[0]);
  }
  return fd_finish();
}
