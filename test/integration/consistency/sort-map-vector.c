// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Forward/reverse consistency with vector outputs through a dup pointer: a void
// function (scratch copy, insertion sort, nonlinear map) from R^n to R^n.
// Forward mode writes J v into the output shadow; reverse mode, seeded with w
// in the output shadow, adds J^T w to the input shadow: <J v, w> = <v, J^T w>.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_fwddiff_v(void *, ...);
void __enzyme_autodiff_v(void *, ...);

enum { N = 9 };

void sortmap(const double *x, double *y, int n) {
  double a[16];
  memcpy(a, x, n * sizeof *a);
  for (int i = 1; i < n; i++) {
    double key = a[i];
    int j = i - 1;
    while (j >= 0 && a[j] > key) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = key;
  }
  for (int i = 0; i < n; i++)
    y[i] = a[i] * a[(i + 1) % n] * (i + 1) + sin(x[i] * a[n - 1 - i]);
}

static unsigned long long rng = 0xa4093822299f31d0ULL;
static double rnd(void) { // uniform in [-1, 1)
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng >> 11) * 0x1p-52 - 1.0;
}
static void sortmap_at(const double *x, double *y, void *c) { (void)c; sortmap(x, y, N); }

int main(void) {
  double x[N], v[N], w[N], y[N], jv[N] = {0}, dy[N], jtw[N] = {0}, fd[N];
  for (int i = 0; i < N; i++) x[i] = 2.0 * rnd();
  for (int i = 0; i < N; i++) v[i] = rnd();
  for (int i = 0; i < N; i++) w[i] = rnd();
  __enzyme_fwddiff_v((void *)sortmap, enzyme_dup, x, v, enzyme_dup, y, jv, enzyme_const, N);
  memcpy(dy, w, sizeof dy);
  __enzyme_autodiff_v((void *)sortmap, enzyme_dup, x, jtw, enzyme_dup, y, dy, enzyme_const, N);
  double lhs = 0, rhs = 0, scale = 0;
  for (int i = 0; i < N; i++) {
    lhs += jv[i] * w[i];
    rhs += v[i] * jtw[i];
    scale += fabs(v[i] * jtw[i]) + fabs(jv[i] * w[i]);
  }
  fd_check_tol("<Jv,w> = <v,J^T w>", lhs, rhs, 1e-10, 1e-12 * scale);
  fd_dir_vec(sortmap_at, NULL, x, v, N, fd, N);
  fd_check_array("Jv against FD", jv, fd, N);
  return fd_finish();
}
