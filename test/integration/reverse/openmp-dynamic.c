// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CFLAGS: -fopenmp
// EXEC-LDFLAGS: -fopenmp
// Reverse mode through OpenMP loops with dynamic and guided schedules: each thread is handed
// chunks of iterations by `__kmpc_dispatch_next`, which writes only the loop's bound variables.
// The augmented sweep runs the dispatch calls and keeps the bounds of every chunk the thread
// ran (the next call overwrites them); the thread's adjoint runs its own chunks in reverse,
// from its tape, without asking the runtime again. Before, reverse mode refused these
// schedules ("cannot differentiate the OpenMP construct that calls '__kmpc_dispatch_init_4'").
// Chunks of 1, 3 and 7 iterations, a guided schedule, a reduction, a loop that reads its
// neighbours (atomic adjoints) and one that updates its own elements in place; 1, 2 and 3
// threads, each gradient against finite differences and against forward mode.
// The dynamic schedules are `monotonic`: for a nonmonotonic one (the default) libomp steals
// chunks between threads, and that algorithm trips its own assertion now and then on a loaded
// machine ("Assertion failure at kmp_dispatch.cpp(1618)", llvm/llvm-project#54422, #132164),
// in the primal as much as in the gradient; this test failed so once in `make test`.
#include "fdcheck.h"
#include <omp.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { N = 41 };

// A reduction; each iteration reads two neighbours (their adjoints are added atomically).
double sum_dynamic(const double *x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(monotonic : dynamic, 3)
  for (int i = 0; i < n; i++)
    s += x[i] * x[i] * sin(x[(i + 1) % n]) + x[(i + n - 1) % n];
  return s;
}

// Chunks of one iteration: the bounds change on every dispatch.
double sum_dynamic1(const double *x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(monotonic : dynamic)
  for (int i = 0; i < n; i++)
    s += exp(0.1 * x[i]) * x[(i + 2) % n];
  return s;
}

// Guided: chunks shrink as the loop runs; each thread writes its own elements of y, in place
// (y[i] read, then overwritten).
double guided_update(const double *x, double *y, int n) {
#pragma omp parallel for schedule(guided, 2)
  for (int i = 0; i < n; i++)
    y[i] = y[i] * cos(x[i]) + x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += y[i] * (i + 1);
  return s;
}

// A dynamic loop nested in a serial time loop: the tape holds the chunks of every step.
double steps_dynamic(const double *x, int n) {
  double u[N];
  for (int i = 0; i < n; i++)
    u[i] = x[i];
  for (int t = 0; t < 4; t++) {
#pragma omp parallel for schedule(monotonic : dynamic, 7)
    for (int i = 0; i < n; i++)
      u[i] = u[i] + 0.1 * sin(u[i]) * x[(i + t) % n];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += u[i] * u[i];
  return s;
}

static double y_start[N], scratch[N];
static double dot(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}
static double sum_at(const double *x, void *c) { (void)c; return sum_dynamic(x, N); }
static double sum1_at(const double *x, void *c) { (void)c; return sum_dynamic1(x, N); }
static double guided_at(const double *x, void *c) {
  (void)c;
  memcpy(scratch, y_start, sizeof scratch);
  return guided_update(x, scratch, N);
}
static double steps_at(const double *x, void *c) { (void)c; return steps_dynamic(x, N); }

int main(void) {
  double x[N], v[N], g[N], dx[N], y[N], dy[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.9 - 0.05 * i + 0.1 * (i % 3);
    v[i] = 1.0 - 0.03 * i;
    y_start[i] = 0.5 + 0.01 * i;
  }
  const int threads[3] = {1, 2, 3};
  for (int k = 0; k < 3; k++) {
    omp_set_num_threads(threads[k]);

    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)sum_dynamic, enzyme_dup, x, dx, enzyme_const, N);
    fd_grad(sum_at, NULL, x, N, g);
    fd_check_array("dynamic,3", dx, g, N);
    fd_check("dynamic,3 <J v, 1> = <v, J^T 1>",
             __enzyme_fwddiff((void *)sum_dynamic, enzyme_dup, x, v, enzyme_const, N),
             dot(dx, v, N));

    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)sum_dynamic1, enzyme_dup, x, dx, enzyme_const, N);
    fd_grad(sum1_at, NULL, x, N, g);
    fd_check_array("dynamic,1", dx, g, N);

    memset(dx, 0, sizeof dx);
    memset(dy, 0, sizeof dy);
    memcpy(y, y_start, sizeof y);
    __enzyme_autodiff((void *)guided_update, enzyme_dup, x, dx, enzyme_dup, y, dy,
                      enzyme_const, N);
    fd_grad(guided_at, NULL, x, N, g);
    fd_check_array("guided,2", dx, g, N);
    // y enters as y_start: d/dy0[i] = cos(x[i]) * (i + 1).
    for (int i = 0; i < N; i += 10)
      fd_check("guided,2 dy", dy[i], cos(x[i]) * (i + 1));

    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)steps_dynamic, enzyme_dup, x, dx, enzyme_const, N);
    fd_grad(steps_at, NULL, x, N, g);
    fd_check_array("steps dynamic,7", dx, g, N);
  }
  return fd_finish();
}
