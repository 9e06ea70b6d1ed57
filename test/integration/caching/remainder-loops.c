// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Loops continued by a second loop from where the first stopped: a loop unrolled by hand with
// its remainder, and at -O2/-O3 the unrolled inner products clang makes of every reduction
// (gp_lml's Cholesky). The second loop's counter starts at a merge of 0 (the first loop did not
// run) and the first loop's last value; the adjoint rebuilds that start from the loops' bounds
// and rebuilds the addresses and values of the remainder from it rather than taping them. A
// remainder whose start the first loop leaves by a data-dependent `break` is checked too.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

// Sum of x[i] * w[i] * x[i], four at a time, then one at a time.
double unrolled_by_hand(const double *x, const double *w, int n) {
  double s = 0;
  int i = 0;
  for (; i + 4 <= n; i += 4)
    s += x[i] * w[i] * x[i] + x[i + 1] * w[i + 1] * x[i + 1] + x[i + 2] * w[i + 2] * x[i + 2] +
         x[i + 3] * w[i + 3] * x[i + 3];
  for (; i < n; i++)
    s += x[i] * w[i] * x[i];
  return s;
}

// Forward substitution with a lower-triangular matrix built from x: every row an inner product
// of a length that grows by one (the remainder of its unrolled loop changes row to row).
enum { M = 13 };
double triangular_solve(const double *x) {
  double *l = malloc(sizeof *l * M * M);
  double *z = malloc(sizeof *z * M);
  for (int i = 0; i < M; i++)
    for (int k = 0; k <= i; k++)
      l[i * M + k] = (k == i) ? 2 + x[i] * x[i] : 0.1 * sin(x[i] - x[k]);
  double q = 0;
  for (int i = 0; i < M; i++) {
    double zi = x[(i + 3) % M];
    for (int k = 0; k < i; k++)
      zi -= l[i * M + k] * z[k];
    z[i] = zi / l[i * M + i];
    q += z[i] * z[i];
  }
  free(l);
  free(z);
  return q;
}

// The first loop stops early on data: the remainder starts wherever it stopped.
double break_then_rest(const double *x, int n) {
  double s = 0;
  int i = 0;
  for (; i < n; i++) {
    if (x[i] > 0.9)
      break;
    s += x[i] * x[i];
  }
  for (; i < n; i++)
    s += sin(x[i]) * (i + 1);
  return s;
}

enum { N = 11 };
static double by_hand_at(const double *p, void *ctx) {
  (void)ctx;
  return unrolled_by_hand(p, p + N, N);
}
static double solve_at(const double *p, void *ctx) { (void)ctx; return triangular_solve(p); }
static double rest_at(const double *p, void *ctx) { (void)ctx; return break_then_rest(p, N); }

int main(void) {
  double xw[2 * N], dxw[2 * N] = {0}, fd[2 * N];
  for (int i = 0; i < 2 * N; i++) xw[i] = 0.3 + 0.05 * i - 0.4 * (i % 3 == 2);
  __enzyme_autodiff((void *)unrolled_by_hand, enzyme_dup, xw, dxw, enzyme_dup, xw + N, dxw + N,
                    enzyme_const, N);
  fd_grad(by_hand_at, NULL, xw, 2 * N, fd);
  fd_check_array("unrolled_by_hand", dxw, fd, 2 * N);

  double x[M], dx[M] = {0}, fdm[M];
  for (int i = 0; i < M; i++) x[i] = 0.2 + 0.07 * i - 0.3 * (i % 2);
  __enzyme_autodiff((void *)triangular_solve, enzyme_dup, x, dx);
  fd_grad(solve_at, NULL, x, M, fdm);
  fd_check_array("triangular_solve", dx, fdm, M);

  double y[N], dy[N] = {0}, fdn[N];
  for (int i = 0; i < N; i++) y[i] = 0.1 + 0.13 * i; // y[7] = 1.01 stops the first loop
  __enzyme_autodiff((void *)break_then_rest, enzyme_dup, y, dy, enzyme_const, N);
  fd_grad(rest_at, NULL, y, N, fdn);
  fd_check_array("break_then_rest", dy, fdn, N);
  return fd_finish();
}
