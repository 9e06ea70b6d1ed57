// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CFLAGS: -fopenmp
// EXEC-LDFLAGS: -fopenmp
// Forward mode through OpenMP loops with dynamic and guided schedules: `__kmpc_dispatch_init`
// and `__kmpc_dispatch_next` only read and write the loop's bound variables (integers, locals of
// the outlined function), which no derivative reaches, so they get no shadow and the calls run
// in the primal only (analysis/primal_objects.rs); each thread's tangents follow the chunks it
// is handed. Before, the bound variables had shadows and the dispatch calls were refused ("no
// derivative rule for '__kmpc_dispatch_next_4'"). Reverse mode: reverse/openmp-dynamic.c.
// 1, 2 and 3 threads, against finite differences.
#include "fdcheck.h"
#include <omp.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

double sum_sq_dynamic(const double *x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(dynamic, 3)
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

// Each thread writes its own elements of y; the sum after the region is serial.
double guided_slices(const double *x, double *y, int n) {
#pragma omp parallel for schedule(guided)
  for (int i = 0; i < n; i++)
    y[i] = sin(x[i]) * x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += y[i] * (i + 1);
  return s;
}

enum { N = 41 };
static double scratch[N];
static double dynamic_at(const double *x, void *c) { (void)c; return sum_sq_dynamic(x, N); }
static double guided_at(const double *x, void *c) { (void)c; return guided_slices(x, scratch, N); }

int main(void) {
  double x[N], v[N], y[N], dy[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.9 - 0.05 * i + 0.1 * (i % 3);
    v[i] = 1.0 - 0.03 * i;
  }
  const int threads[3] = {1, 2, 3};
  for (int k = 0; k < 3; k++) {
    omp_set_num_threads(threads[k]);
    double a = __enzyme_fwddiff((void *)sum_sq_dynamic, enzyme_dup, x, v, enzyme_const, N);
    fd_check("dynamic", a, fd_dir(dynamic_at, NULL, x, v, N));
    memset(dy, 0, sizeof dy);
    double b = __enzyme_fwddiff((void *)guided_slices, enzyme_dup, x, v, enzyme_dup, y, dy,
                                enzyme_const, N);
    fd_check("guided", b, fd_dir(guided_at, NULL, x, v, N));
    fd_check("dy[7]", dy[7], (cos(x[7]) * x[7] + sin(x[7])) * v[7]);
  }
  return fd_finish();
}
