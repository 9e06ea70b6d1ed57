// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s plugin 3 %t
// Conjugate gradients on a parameterised SPD tridiagonal system, early exit on residual.
// What it pins: a loop whose trip count depends on the data (the residual test), reductions
// whose results divide each other, scratch blocks from malloc freed before the function ends.
#include "fdcheck.h"
extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
#define N 16

static void matvec(const double *diag, const double *x, double *y, int n) {
  for (int i = 0; i < n; i++) {
    double s = diag[i] * x[i];
    if (i > 0) s -= x[i - 1];
    if (i < n - 1) s -= x[i + 1];
    y[i] = s;
  }
}
static double dot(const double *x, const double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

double solve_energy(const double *diag, const double *rhs, int n) {
  double *x = calloc(n, sizeof(double)), *r = malloc(n * sizeof(double));
  double *p = malloc(n * sizeof(double)), *ap = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) { r[i] = rhs[i]; p[i] = rhs[i]; }
  double rr = dot(r, r, n);
  for (int it = 0; it < n && rr > 1e-300; it++) {
    matvec(diag, p, ap, n);
    double alpha = rr / dot(p, ap, n);
    for (int i = 0; i < n; i++) { x[i] += alpha * p[i]; r[i] -= alpha * ap[i]; }
    double rr2 = dot(r, r, n);
    double beta = rr2 / rr;
    rr = rr2;
    for (int i = 0; i < n; i++) p[i] = r[i] + beta * p[i];
  }
  double e = 0;
  for (int i = 0; i < n; i++) e += x[i] * x[i];
  free(x); free(r); free(p); free(ap);
  return e;
}

static double f_at(const double *q, void *ctx) { (void)ctx; return solve_energy(q, q + N, N); }

int main(void) {
  double q[2 * N], g[2 * N], dq[2 * N] = {0};
  for (int i = 0; i < N; i++) { q[i] = 3 + 0.1 * i; q[N + i] = sin(0.5 * i); }
  __enzyme_autodiff((void *)solve_energy, enzyme_dup, q, dq, enzyme_dup, q + N, dq + N, enzyme_const, N);
  fd_grad(f_at, NULL, q, 2 * N, g);
  fd_check_array("ddiag", dq, g, N);
  fd_check_array("drhs", dq + N, g + N, N);
  return fd_finish();
}
