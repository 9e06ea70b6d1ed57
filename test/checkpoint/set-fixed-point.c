// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// RUN: env EXTRA_CFLAGS=-fsanitize=address EXTRA_LDFLAGS=-fsanitize=address %exec-test %s driver 1 %t
// A `while` loop marked as a fixed point from inside, __enzyme_set_fixed_point(reduction,
// max_iters, control, state, bytes) at the top of its body (what Enzyme's Fortran directive
// lowers to; -1 and NULL: the default number of passes and no control): Umbra outlines one iteration as the step. The loop
// is tested at its top and carries locals (the error, an iteration count) besides the state
// in memory; it reads a parameter by value (the contraction c). Gradient (Christianson's
// two-phase adjoint) and tangent against the same loop differentiated through every iteration
// and finite differences.
#include <enzyme/fixed_point.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_out, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#define N 4

/* One contraction step of u; the largest change. */
__attribute__((noinline)) static double iterate(double *u, const double *p, double c) {
  double tmp[N], err = 0;
  for (int k = 0; k < N; k++)
    tmp[k] = c * sin(u[k] + 0.5 * u[(k + 1) % N]) + p[k] * p[k];
  for (int k = 0; k < N; k++) {
    err = fmax(err, fabs(tmp[k] - u[k]));
    u[k] = tmp[k];
  }
  return err;
}

static int64_t iterations;

__attribute__((noinline)) double fixed(double *u, const double *p, double c) {
  double err = 1;
  int64_t it = 0;
  while (err > 1e-14) {
    /* A tighter stopping rule than the default's (1e-12): the adjoint and the tangent then
       agree with the derivative through every iteration to about 1e-12. */
    __enzyme_set_fixed_point(1e-28, -1, NULL, u, (int64_t)(N * sizeof(double)));
    err = iterate(u, p, c);
    it++;
  }
  iterations = it;
  double s = 0;
  for (int k = 0; k < N; k++)
    s += u[k] * u[k] * p[k];
  return s + 1e-3 * (double)it;
}

__attribute__((noinline)) double plain(double *u, const double *p, double c) {
  double err = 1;
  int64_t it = 0;
  while (err > 1e-14) {
    err = iterate(u, p, c);
    it++;
  }
  double s = 0;
  for (int k = 0; k < N; k++)
    s += u[k] * u[k] * p[k];
  return s + 1e-3 * (double)it;
}

static double at(const double *x, void *ctx) {
  (void)ctx;
  double u[N] = {0};
  return plain(u, x, x[N]);
}

int main(void) {
  double x[N + 1] = {0.3, 0.5, 0.7, 0.2, 0.3}, fd[N + 1];
  fd_grad(at, NULL, x, N + 1, fd);
  double u[N] = {0}, du[N] = {0}, g[N + 1] = {0};
  g[N] = __enzyme_autodiff((void *)fixed, enzyme_dup, u, du, enzyme_dup, x, g, enzyme_out, x[N]);
  double u2[N] = {0}, du2[N] = {0}, h[N + 1] = {0};
  h[N] = __enzyme_autodiff((void *)plain, enzyme_dup, u2, du2, enzyme_dup, x, h, enzyme_out, x[N]);
  fd_check_array("gradient (fixed point)", g, fd, N + 1);
  for (int k = 0; k <= N; k++)
    fd_check_tol("fixed point = through every iteration", g[k], h[k], 1e-9, 1e-12);
  for (int k = 0; k < N; k++)
    fd_check_tol("initial guess has no derivative", du[k], 0, 0, 0);
  // Forward mode: the tangent along p[0].
  double v[N] = {0}, dv[N] = {0}, dx[N] = {1, 0, 0, 0};
  double t = __enzyme_fwddiff((void *)fixed, enzyme_dup, v, dv, enzyme_dup, x, dx, enzyme_const,
                              x[N]);
  fd_check("tangent (fixed point)", t, fd[0]);
  double v2[N] = {0}, dv2[N] = {0};
  double t2 = __enzyme_fwddiff((void *)plain, enzyme_dup, v2, dv2, enzyme_dup, x, dx, enzyme_const,
                               x[N]);
  fd_check_tol("tangent = through every iteration", t, t2, 1e-9, 1e-12);
  if (iterations < 10) {
    printf("FAIL: the loop ran %lld iterations\n", (long long)iterations);
    return 1;
  }
  return fd_finish();
}
