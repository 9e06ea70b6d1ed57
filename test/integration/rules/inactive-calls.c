// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s plugin 2 %t
// Zero-derivative calls in both modes: I/O that receives differentiable values, clocks, random
// numbers and the environment run in the primal and carry no derivative; without their rules
// each call would be a missing-rule error.
#include "fdcheck.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "umbra.h"

__attribute__((noinline)) double f(const double *x, int n) {
  double s = 0;
  clock_t t0 = clock();
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i] * (1.0 + 0.0 * (double)(rand() % 2));
    char buf[64];
    snprintf(buf, sizeof buf, "x[%d] = %g", i, x[i]);
    if (getenv("UMBRA_TEST_VERBOSE")) puts(buf);
  }
  fprintf(stderr, "f: s = %g after %ld ticks at %ld\n", s, (long)(clock() - t0),
          (long)time(NULL));
  return s * x[0];
}

enum { N = 3 };
static double f_at(const double *p, void *ctx) { (void)ctx; return f(p, N); }

int main(void) {
  double x[N] = {0.3, -1.2, 2.0}, dx[N] = {0}, fd[N];
  fd_grad(f_at, NULL, x, N, fd);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
  fd_check_array("grad", dx, fd, N);
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1;
    fd_check("tangent", __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, N), fd[k]);
  }
  return fd_finish();
}
