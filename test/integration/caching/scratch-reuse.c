// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// A scratch buffer reused by a later layer (two tanh layers through the same buffer h), and a
// block freed and followed by a new allocation (which may get the same address): the first
// layer's values are gone by the time the adjoint runs, so they must be kept; the freed
// block's contents must not be re-read from memory a later allocation reused.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

enum { N = 6 };

static void layer(double *out, const double *in, const double *w, int n) {
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int j = 0; j < n; j++)
      s += w[i * n + j] * in[j];
    out[i] = tanh(s);
  }
}

double f(const double *w, const double *x) {
  double *h = malloc(N * sizeof *h), *g = malloc(N * sizeof *g);
  layer(h, x, w, N);
  layer(g, h, w, N);
  layer(h, g, w, N); // h reused: the first layer's h is overwritten
  double s = 0;
  for (int i = 0; i < N; i++)
    s += h[i] * g[i];
  free(h);
  free(g);
  double *t = malloc(N * sizeof *t); // may reuse a freed block's address
  for (int i = 0; i < N; i++)
    t[i] = x[i] * s;
  double r = 0;
  for (int i = 0; i < N; i++)
    r += t[i] * t[i];
  free(t);
  return r;
}

static double x_[N];
static double f_at(const double *p, void *ctx) { (void)ctx; return f(p, x_); }

int main(void) {
  double w[N * N], dw[N * N] = {0}, fd[N * N];
  for (int i = 0; i < N * N; i++) w[i] = 0.3 * sin(1.7 * i) - 0.05;
  for (int i = 0; i < N; i++) x_[i] = 0.2 + 0.1 * i;
  __enzyme_autodiff((void *)f, enzyme_dup, w, dw, enzyme_const, x_);
  fd_grad(f_at, NULL, w, N * N, fd);
  fd_check_array("dw", dw, fd, N * N);
  return fd_finish();
}
