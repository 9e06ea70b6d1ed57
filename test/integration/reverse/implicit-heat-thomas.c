// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s plugin 3 %t
// Implicit heat equation, backward Euler, Thomas algorithm each step; VLA scratch arrays.
// What it pins: the callee's VLA scratch (sized at run time) is gone when the adjoint runs, and
// `d` is overwritten in place by every step, so each step's values must be kept or rebuilt;
// forward and reverse mode must agree.
#include "fdcheck.h"
extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
#define N 24
#define STEPS 30

static void thomas(int n, const double *a, const double *b, const double *c, double *d) {
  double cp[n];
  double bp = b[0];
  cp[0] = c[0] / bp;
  d[0] = d[0] / bp;
  for (int i = 1; i < n; i++) {
    double m = b[i] - a[i] * cp[i - 1];
    cp[i] = c[i] / m;
    d[i] = (d[i] - a[i] * d[i - 1]) / m;
  }
  for (int i = n - 2; i >= 0; i--)
    d[i] -= cp[i] * d[i + 1];
}

double heat(const double *u0, double kappa, int steps) {
  double u[N], a[N], b[N], c[N];
  for (int i = 0; i < N; i++) u[i] = u0[i];
  double r = kappa * 0.3;
  for (int i = 0; i < N; i++) {
    a[i] = i == 0 ? 0 : -r;
    c[i] = i == N - 1 ? 0 : -r;
    b[i] = 1 + 2 * r;
  }
  for (int s = 0; s < steps; s++)
    thomas(N, a, b, c, u);
  double e = 0;
  for (int i = 0; i < N; i++) e += u[i] * u[i] * (1 + 0.01 * i);
  return e;
}

static double f_at(const double *p, void *ctx) { (void)ctx; return heat(p, p[N], STEPS); }

int main(void) {
  double p[N + 1], g[N + 1], du[N] = {0};
  for (int i = 0; i < N; i++) p[i] = sin(0.3 * i) + 0.5;
  p[N] = 0.7;
  double dk = __enzyme_autodiff((void *)heat, enzyme_dup, p, du, enzyme_out, p[N], enzyme_const, STEPS);
  fd_grad(f_at, NULL, p, N + 1, g);
  fd_check_array("du0", du, g, N);
  fd_check("dkappa", dk, g[N]);
  double v[N];
  for (int i = 0; i < N; i++) v[i] = cos(1.1 * i);
  double t = __enzyme_fwddiff((void *)heat, enzyme_dup, p, v, 0.7, 0.25, enzyme_const, STEPS);
  double dot = 0.25 * dk;
  for (int i = 0; i < N; i++) dot += v[i] * du[i];
  fd_check("<Jv,1> = <v,J^T 1>", t, dot);
  return fd_finish();
}
