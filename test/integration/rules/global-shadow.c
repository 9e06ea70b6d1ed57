// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CLANG-PLUGIN
// Globals with shadows given by enzyme_shadow (umbra_shadow): reverse mode accumulates their
// adjoints into the shadows, forward mode reads their tangents from the shadows. A scalar read
// in a callee that receives no active argument (the call carries a derivative through the
// global alone), an array read at constant and variable indices, and a global written and then
// read back. Checked against finite differences in the inputs and in the globals.
#include "fdcheck.h"
#include "umbra.h"

double d_scale, d_coef[3], d_state;
__attribute__((enzyme_shadow(d_scale))) double scale = 1.5;
__attribute__((umbra_shadow(d_coef))) double coef[3] = {0.5, -1.25, 2.0};
__attribute__((enzyme_shadow(d_state))) double state;

__attribute__((noinline)) double get_scale(void) { return scale; }

__attribute__((noinline)) double f(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += coef[i] * x[i] * x[i];
  state = s * get_scale() + coef[0] * x[1];
  return sin(state) + state * coef[2];
}

enum { N = 3, P = 1 + 3 }; // inputs x; parameters scale and coef

static double with_params(const double *p, void *ctx) {
  const double *x = ctx;
  double keep[P] = {scale, coef[0], coef[1], coef[2]};
  scale = p[0];
  for (int i = 0; i < 3; i++) coef[i] = p[1 + i];
  double y = f(x, N);
  scale = keep[0];
  for (int i = 0; i < 3; i++) coef[i] = keep[1 + i];
  return y;
}

static double with_inputs(const double *x, void *ctx) {
  (void)ctx;
  return f(x, N);
}

int main(void) {
  double x[N] = {0.3, -0.7, 1.1};
  double p[P] = {scale, coef[0], coef[1], coef[2]};
  double fd_x[N], fd_p[P];
  fd_grad(with_inputs, NULL, x, N, fd_x);
  fd_grad(with_params, x, p, P, fd_p);

  // Reverse mode: the gradient in x, and in the globals through their shadows.
  double dx[N] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
  fd_check_array("grad x", dx, fd_x, N);
  fd_check("grad scale", d_scale, fd_p[0]);
  fd_check_array("grad coef", d_coef, fd_p + 1, 3);
  fd_check("value kept", scale, 1.5);

  // Forward mode: a tangent in the globals alone, then in x alone.
  d_scale = 1, d_coef[0] = 0.5, d_coef[1] = -1, d_coef[2] = 2, d_state = 0;
  double zero[N] = {0};
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, zero, enzyme_const, N);
  double dir[P] = {1, 0.5, -1, 2};
  fd_check("tangent globals", t, fd_dir(with_params, x, p, dir, P));
  d_scale = 0, d_coef[0] = d_coef[1] = d_coef[2] = 0;
  double dx1[N] = {0, 1, 0};
  t = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx1, enzyme_const, N);
  fd_check("tangent x1", t, fd_x[1]);
  return fd_finish();
}
