// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// realloc of blocks holding pointers to differentiable memory: a table of row pointers grown
// while rows are added, and an array of {weight, pointer} records. The pointers moved by the
// realloc need their shadows in the new block's shadow, as a memcpy copies them; the new
// shadow used to start all zero, so the adjoint dereferenced null shadows (a segmentation
// fault). A realloc that fails leaves the old block, and its shadow, to the program.
#include "fdcheck.h"
#include "umbra.h"
#include <stdlib.h>

struct rec {
  double w;
  const double *p;
};

__attribute__((noinline)) double f(const double *x, int n) {
  const double **rows = malloc(sizeof *rows);
  int cap = 1;
  for (int i = 0; i < n; i++) {
    if (i >= cap) {
      cap *= 2;
      rows = realloc(rows, cap * sizeof *rows);
    }
    rows[i] = x + i;
  }
  /* A realloc that fails (returns null) leaves the old block, and its shadow, in place. */
  const double **big = realloc(rows, (size_t)1 << 62);
  if (big)
    rows = big;
  struct rec *recs = malloc(2 * sizeof *recs);
  recs[0] = (struct rec){x[0] * x[1], x + 2};
  recs[1] = (struct rec){x[2] - x[0], x + 1};
  recs = realloc(recs, 5 * sizeof *recs);
  recs[2] = (struct rec){x[3], x};
  double s = 0;
  for (int i = 0; i + 1 < n; i++)
    s += rows[i][0] * rows[i + 1][0];
  for (int k = 0; k < 3; k++)
    s += recs[k].w * recs[k].p[0] * recs[k].p[0];
  free(rows);
  free(recs);
  return s;
}

enum { N = 6 };
static double f_at(const double *p, void *ctx) { (void)ctx; return f(p, N); }

int main(void) {
  double x[N], dx[N] = {0}, fd[N];
  for (int i = 0; i < N; i++) x[i] = 0.4 + 0.2 * i - 0.5 * (i % 2);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
  fd_grad(f_at, NULL, x, N, fd);
  fd_check_array("dx", dx, fd, N);
  return fd_finish();
}
