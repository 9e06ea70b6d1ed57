// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-CFLAGS: -fsanitize=address
// EXEC-LDFLAGS: -fsanitize=address
// A gradient tape whose first push does not fit its first chunk. Once a gradient in the module
// has needed more than the stack chunk, later tapes start on a heap chunk as large as that
// need; here `small` sets it, and `regions`' first push (one region for its whole loop nest)
// is larger, so the tape grows into a second chunk and the first stays empty. The adjoint
// frees the second; freeing the tape must free the first too. Before, only the chunk the
// tape ended on was freed: LeakSanitizer reported the first ("Direct leak ... in
// umbra.tape.start").
#include "fdcheck.h"
#include <stdlib.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
#define N 9

__attribute__((noinline)) double small(double *x, int n, int m) {
  double s = 0;
  for (int i = 0; i < m; i++) {
    double t = x[i % n];
    x[i % n] = sin(t) + 0.1;
    s += t * x[i % n];
  }
  return s;
}

__attribute__((noinline)) double regions(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < 4; j++) {
      double t = x[j + 1];
      x[j + 1] = t * 0.8 + 0.1 * x[i];
      s += t * x[j + 1];
    }
    for (int j = n - 1; j >= 5; j--) {
      double t = x[j];
      x[j] = exp(-t * t) + 0.3 * x[0];
      s += t * x[j];
    }
  }
  return s;
}

static double regions_at(const double *x0, void *c) {
  (void)c;
  double x[N];
  for (int i = 0; i < N; i++) x[i] = x0[i];
  return regions(x, N);
}

int main(void) {
  double x0[N] = {0.3, -0.2, 0.5, 0.1, 0.4, -0.6, 0.2, 0.7, -0.1}, fd[N];
  double x[N], d[N];
  for (int i = 0; i < N; i++) x[i] = x0[i], d[i] = 0;
  __enzyme_autodiff((void *)small, enzyme_dup, x, d, enzyme_const, N, enzyme_const, 50);
  for (int rep = 0; rep < 2; rep++) {
    for (int i = 0; i < N; i++) x[i] = x0[i], d[i] = 0;
    __enzyme_autodiff((void *)regions, enzyme_dup, x, d, enzyme_const, N);
    fd_grad(regions_at, NULL, x0, N, fd);
    fd_check_array("regions", d, fd, N);
  }
  return fd_finish();
}
