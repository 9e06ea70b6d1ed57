// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Loops the loop vectoriser transforms at -O2/-O3 (n = 1003, so there is a
// scalar remainder): a dot product and a reduction (the pragma permits the
// reassociation FP reductions need) and a saxpy writing through a dup pointer.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

double dot(const double *x, const double *y, int n) {
  double s = 0;
#pragma clang loop vectorize(enable) interleave(enable)
  for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  return s;
}

void saxpy(double a, const double *x, double *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}

double reduce(const double *x, int n) {
  double s = 0;
#pragma clang loop vectorize(enable)
  for (int i = 0; i < n; i++)
    s += fabs(x[i]) * x[i] + 0.5 * x[i];
  return s;
}

enum { N = 1003 };
static double X[N], Y[N], VX[N], VY[N], P[2 * N], V[2 * N + 1], FD[N];
static double dot_at(const double *p, void *c) { (void)c; return dot(p, p + N, N); }
static double reduce_at(const double *p, void *c) { (void)c; return reduce(p, N); }
// packed [x (N), y (N), a] -> y'
static void saxpy_at(const double *p, double *out, void *c) {
  (void)c;
  memcpy(out, p + N, N * sizeof(double));
  saxpy(p[2 * N], p, out, N);
}

int main(void) {
  for (int i = 0; i < N; i++) {
    X[i] = sin(0.01 * i) + 0.05;
    Y[i] = cos(0.013 * i) * 0.5;
    VX[i] = (i % 5) * 0.25 - 0.5;
    VY[i] = (i % 3) * 0.5 - 0.4;
    P[i] = X[i]; P[N + i] = Y[i];
    V[i] = VX[i]; V[N + i] = VY[i];
  }
  double ad = __enzyme_fwddiff((void *)dot, enzyme_dup, X, VX, enzyme_dup, Y, VY, enzyme_const, N);
  fd_check("dot", ad, fd_dir(dot_at, NULL, P, V, 2 * N));
  ad = __enzyme_fwddiff((void *)reduce, X, VX, N);
  fd_check("reduce", ad, fd_dir(reduce_at, NULL, P, V, N));

  double a = 1.3, da = -0.7;
  double y[N], dy[N], pa[2 * N + 1];
  memcpy(y, Y, sizeof y);
  memcpy(dy, VY, sizeof dy); // y is read and written: its tangent is updated in place
  __enzyme_fwddiff((void *)saxpy, a, da, enzyme_dup, X, VX, enzyme_dup, y, dy, enzyme_const, N);
  memcpy(pa, P, sizeof P);
  pa[2 * N] = a; V[2 * N] = da;
  fd_dir_vec(saxpy_at, NULL, pa, V, 2 * N + 1, FD, N);
  fd_check_array("saxpy dy", dy, FD, N);
  return fd_finish();
}
