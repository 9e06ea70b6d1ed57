// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Forward/reverse consistency on nested loops (y = A x, then a reduction):
// for pseudo-random v and w, <J v, w> (forward mode) = <v, J^T w> (reverse).
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);
void __enzyme_autodiff_v(void *, ...);

enum { M = 5, N = 7, NP = M * N + N };

double mv_reduce(const double *A, const double *x, int m, int n) {
  double y[16];
  for (int i = 0; i < m; i++) {
    y[i] = 0;
    for (int j = 0; j < n; j++)
      y[i] += A[i * n + j] * x[j];
  }
  double s = 0;
  for (int i = 0; i < m; i++)
    s += (i + 1) * tanh(y[i]) + y[i] * y[i] * 0.5;
  return s;
}

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;
static double rnd(void) { // uniform in [-1, 1)
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng >> 11) * 0x1p-52 - 1.0;
}
static double mv_at(const double *p, void *c) { (void)c; return mv_reduce(p, p + M * N, M, N); }

int main(void) {
  double p[NP], v[NP], g[NP] = {0};
  for (int k = 0; k < NP; k++) p[k] = 0.6 * rnd();
  for (int k = 0; k < NP; k++) v[k] = rnd();
  double w = rnd();
  double jv = __enzyme_fwddiff((void *)mv_reduce, enzyme_dup, p, v, enzyme_dup, p + M * N,
                               v + M * N, enzyme_const, M, enzyme_const, N);
  __enzyme_autodiff_v((void *)mv_reduce, enzyme_dup, p, g, enzyme_dup, p + M * N,
                      g + M * N, enzyme_const, M, enzyme_const, N);
  double lhs = jv * w, rhs = 0, scale = 0; // J^T w = w * gradient
  for (int k = 0; k < NP; k++) {
    rhs += v[k] * (w * g[k]);
    scale += fabs(v[k] * w * g[k]);
  }
  fd_check_tol("<Jv,w> = <v,J^T w>", lhs, rhs, 1e-10, 1e-12 * scale);
  fd_check("Jv against FD", jv, fd_dir(mv_at, NULL, p, v, NP));
  return fd_finish();
}
