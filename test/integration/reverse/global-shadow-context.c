// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Enzyme's run-time context of global shadows (refused before as "not supported yet"):
// __enzyme_context(1), __enzyme_shadow(ctx, &g, 0), __enzyme_zero_shadows(ctx) and requests
// passing enzyme_context. The adjoints of globals the code only reads (a scalar, an array, the
// heap array a pointer global holds, set up by main with malloc) accumulate in their shadows,
// zeroed between gradients; forward mode reads tangents seeded there. Checked against finite
// differences in the argument and in the globals' values, twice in a row.
#include "fdcheck.h"
#include <stdlib.h>

extern void *__enzyme_context(int);
extern void *__enzyme_shadow(void *, void *, int);
extern void __enzyme_zero_shadows(void *);
extern double __enzyme_autodiff(double (*)(double), ...);
extern double __enzyme_fwddiff(double (*)(double), ...);
extern int enzyme_context;

enum { M = 5, P = 1 + 1 + 3 + M }; // x, scale, weights, data
double scale = 1.5;
double weights[3] = {0.5, -1.25, 2.0};
double *data;
double acc;

__attribute__((noinline)) static void init(void) {
  data = malloc(M * sizeof(double));
  for (int i = 0; i < M; i++)
    data[i] = 0.3 * i - 0.4;
}

double f(double x) {
  double s = 0;
  for (int i = 0; i < M; i++)
    s += sin(data[i] * x) * weights[i % 3];
  acc = s * scale;
  return acc * acc + scale * x;
}

// f at x = p[0] with the globals' values from p[1..].
static double f_at(const double *p, void *ctx) {
  (void)ctx;
  double keep[P];
  keep[1] = scale;
  for (int k = 0; k < 3; k++) keep[2 + k] = weights[k];
  for (int i = 0; i < M; i++) keep[5 + i] = data[i];
  scale = p[1];
  for (int k = 0; k < 3; k++) weights[k] = p[2 + k];
  for (int i = 0; i < M; i++) data[i] = p[5 + i];
  double y = f(p[0]);
  scale = keep[1];
  for (int k = 0; k < 3; k++) weights[k] = keep[2 + k];
  for (int i = 0; i < M; i++) data[i] = keep[5 + i];
  return y;
}

int main(void) {
  init();
  double p[P] = {0.7, scale, weights[0], weights[1], weights[2]}, fd[P];
  for (int i = 0; i < M; i++) p[5 + i] = data[i];
  fd_grad(f_at, NULL, p, P, fd);

  void *ctx = __enzyme_context(1);
  double *dscale = (double *)__enzyme_shadow(ctx, &scale, 0);
  double *dw = (double *)__enzyme_shadow(ctx, &weights, 0);
  double **ddata = (double **)__enzyme_shadow(ctx, &data, 0);
  fd_check_exact("shadow of data allocated", *ddata != NULL, 1);
  for (int round = 0; round < 2; round++) {
    __enzyme_zero_shadows(ctx);
    double dx = __enzyme_autodiff(f, enzyme_context, ctx, p[0]);
    fd_check("dx", dx, fd[0]);
    fd_check("dscale", *dscale, fd[1]);
    fd_check_array("dweights", dw, fd + 2, 3);
    fd_check_array("ddata", *ddata, fd + 5, M);
  }
  // Forward mode: tangents seeded in the shadows, in the direction (0.3, 0.5, 0, 0, 0, 0, 0, -1).
  __enzyme_zero_shadows(ctx);
  *dscale = 0.5;
  (*ddata)[2] = -1.0;
  double t = __enzyme_fwddiff(f, enzyme_context, ctx, p[0], 0.3);
  fd_check("tangent", t, 0.3 * fd[0] + 0.5 * fd[1] - fd[7]);
  free(data);
  return fd_finish();
}
