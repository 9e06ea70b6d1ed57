// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s plugin 3 %t
// 2D Jacobi-like stencil with double buffering by pointer swap, restrict pointers, nonlinear source.
// What it pins: the two buffers trade places through a pointer swap every step, so which block
// a load reads changes per iteration and a later step overwrites what an earlier one read.
#include "fdcheck.h"
extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
#define NX 10
#define NY 9

static void sweep(const double *restrict in, double *restrict out, double s) {
  for (int j = 0; j < NY; j++)
    for (int i = 0; i < NX; i++) {
      double c = in[j * NX + i];
      double l = i > 0 ? in[j * NX + i - 1] : 0, r = i < NX - 1 ? in[j * NX + i + 1] : 0;
      double d = j > 0 ? in[(j - 1) * NX + i] : 0, u = j < NY - 1 ? in[(j + 1) * NX + i] : 0;
      out[j * NX + i] = c + 0.2 * (l + r + d + u - 4 * c) + s * tanh(c);
    }
}

double run(const double *u0, double s, int steps) {
  double *a = malloc(sizeof(double) * NX * NY), *b = malloc(sizeof(double) * NX * NY);
  for (int k = 0; k < NX * NY; k++) a[k] = u0[k];
  for (int t = 0; t < steps; t++) {
    sweep(a, b, s);
    double *tmp = a; a = b; b = tmp;
  }
  double e = 0;
  for (int k = 0; k < NX * NY; k++) e += a[k] * a[k] * a[k];
  free(a); free(b);
  return e;
}

static double f_at(const double *p, void *ctx) { (void)ctx; return run(p, p[NX * NY], 12); }

int main(void) {
  enum { M = NX * NY };
  double p[M + 1], g[M + 1], du[M] = {0};
  for (int k = 0; k < M; k++) p[k] = 0.3 * sin(0.7 * k) + 0.1;
  p[M] = 0.05;
  double ds = __enzyme_autodiff((void *)run, enzyme_dup, p, du, enzyme_out, p[M], enzyme_const, 12);
  fd_grad(f_at, NULL, p, M + 1, g);
  fd_check_array("du0", du, g, M);
  fd_check("ds", ds, g[M]);
  return fd_finish();
}
