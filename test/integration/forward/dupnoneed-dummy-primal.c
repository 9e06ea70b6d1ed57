// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// enzyme_dupnoneed on an output pointer, as Enzyme's sparse tests use it: the caller needs only
// the tangents, so the primal may be a dummy address ((double *)0x1) that is never written,
// neither by the function nor by the callee it passes the output to (a noinline helper, and
// a read-modify-write accumulation). Tangents checked against central differences.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
void __enzyme_fwddiff(void *, ...);

enum { N = 6 };

__attribute__((noinline)) static void add_squares(double *y, const double *x, int n) {
  for (int i = 0; i < n; i++)
    y[i] += x[i] * x[i];
}

static void f(const double *x, double *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] = sin(x[i]) * x[(i + 1) % n];
  add_squares(y, x, n);
}

static void f_at(const double *x, double *y, void *ctx) {
  (void)ctx;
  f(x, y, N);
}

int main(void) {
  double x[N], v[N], dy[N] = {0}, fd[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.4 * i - 1.1;
    v[i] = 0.3 + 0.1 * i;
  }
  __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_dupnoneed, (double *)0x1, dy,
                   enzyme_const, N);
  fd_dir_vec(f_at, NULL, x, v, N, fd, N);
  fd_check_array("dy", dy, fd, N);
  return fd_finish();
}
