// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// A void function with its outputs written through a dup pointer: the caller
// seeds the output shadow with the output adjoint w; on return dx holds
// J^T w (accumulated) and the output shadow has been consumed (zeroed); also
// for an in-place update, where one shadow goes from w to J^T w.
#define FD_AUTODIFF_VOID // (only matters for -DFD_SELFTEST stubs)
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);
typedef struct {
  double a, b;
} two;
two __enzyme_autodiff_two(void *, ...);
#ifdef FD_SELFTEST
two __enzyme_autodiff_two(void *f, ...) { (void)f; two r = {0, 0}; return r; }
#endif

enum { N = 6, M = 4 };

// y[j] = some nonlinear map of x; x is read after y is partly written
void map(const double *x, int n, double *y, int m) {
  for (int j = 0; j < m; j++) {
    double s = 0;
    for (int i = 0; i < n; i++)
      s += sin(x[i] * (j + 1)) * x[(i + j) % n];
    y[j] = s + (j ? y[j - 1] * x[j] : 0.0);
  }
}

// in place: x is both input and output, its shadow goes from w to J^T w
void smooth(double *x, int n) {
  for (int i = 1; i < n; i++)
    x[i] = sin(x[i]) * x[i - 1] + 0.5 * x[i];
}

void polar(double r, double th, double *x, double *y) {
  *x = r * cos(th);
  *y = r * sin(th);
}

static const double W[M] = {0.7, -1.3, 0.4, 2.2};
static double wmap_at(const double *x, void *c) { // w . map(x)
  (void)c;
  double y[M], s = 0;
  map(x, N, y, M);
  for (int j = 0; j < M; j++) s += W[j] * y[j];
  return s;
}
static double wsmooth_at(const double *x0, void *c) {
  (void)c;
  double x[N], s = 0;
  memcpy(x, x0, sizeof x);
  smooth(x, N);
  for (int i = 0; i < N; i++) s += (i - 2.5) * x[i];
  return s;
}
static double wpolar_at(const double *p, void *c) {
  (void)c;
  double x, y;
  polar(p[0], p[1], &x, &y);
  return W[0] * x + W[1] * y;
}

int main(void) {
  double x[N], dx[N] = {0}, y[M], dy[M], fd[N];
  for (int i = 0; i < N; i++) x[i] = 0.3 + 0.4 * i - 0.9 * (i % 2);
  memcpy(dy, W, sizeof dy);
  __enzyme_autodiff((void *)map, enzyme_dup, x, dx, enzyme_const, N, enzyme_dup, y, dy,
                    enzyme_const, M);
  fd_grad(wmap_at, NULL, x, N, fd);
  fd_check_array("map dx = J^T w", dx, fd, N);
  for (int j = 0; j < M; j++) fd_check_exact("map dy zeroed", dy[j], 0.0);

  double xs[N];
  memcpy(xs, x, sizeof xs);
  for (int i = 0; i < N; i++) dx[i] = i - 2.5; // output adjoint
  __enzyme_autodiff((void *)smooth, enzyme_dup, xs, dx, enzyme_const, N);
  fd_grad(wsmooth_at, NULL, x, N, fd);
  fd_check_array("smooth (in place) dx = J^T w", dx, fd, N);

  double p[2] = {1.5, 0.6}, g[2], px, py, dpx = W[0], dpy = W[1];
  two r = __enzyme_autodiff_two((void *)polar, p[0], p[1], enzyme_dup, &px, &dpx,
                                enzyme_dup, &py, &dpy);
  fd_grad(wpolar_at, NULL, p, 2, g);
  fd_check("polar d/dr", r.a, g[0]);
  fd_check("polar d/dth", r.b, g[1]);
  fd_check_exact("polar dx zeroed", dpx, 0.0);
  fd_check_exact("polar dy zeroed", dpy, 0.0);
  fd_check("polar primal x", px, p[0] * cos(p[1]));
  return fd_finish();
}
