// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Reverse mode of __enzyme_fixed_point (Christianson's two-phase adjoint): the gradient of an
// objective of the converged state and of an output the step writes, with respect to the
// parameters, equals the gradient through every iteration of the plain loop (which converges to
// the same) and central differences; the state's shadow is zero afterwards (the fixed point
// does not depend on the initial guess); the primal state is left as the adjoint found it; a
// Newton iteration with Tapenade's control protocol takes the protocol's start and two passes.
#include <umbra/fixed_point.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

#define N 4
#define C 0.4

static const double A[N][N] = {{1.0, 0.5, 0.0, -0.3},
                               {0.2, 1.0, 0.4, 0.0},
                               {0.0, -0.6, 1.0, 0.3},
                               {0.5, 0.0, 0.1, 1.0}};

// u = C sin(A u) + p^2, y = u_new * u_old: whether u moved by more than *tol.
__attribute__((noinline)) static int step(int64_t i, double *u, const double *p, double *y,
                                          const double *tol) {
  (void)i;
  double t[N], err = 0;
  for (int k = 0; k < N; k++) {
    double s = 0;
    for (int j = 0; j < N; j++)
      s += A[k][j] * u[j];
    t[k] = C * sin(s) + p[k] * p[k];
  }
  for (int k = 0; k < N; k++) {
    y[k] = t[k] * u[k];
    err = fmax(err, fabs(t[k] - u[k]));
    u[k] = t[k];
  }
  return err > *tol;
}

static const double W[N] = {1.0, -2.0, 0.5, 3.0};

static double objective(const double *u, const double *y) {
  double s = 0;
  for (int k = 0; k < N; k++)
    s += W[k] * u[k] + y[k] * y[k];
  return s;
}

static double fixed(double *u, const double *p, double *y, const double *tol) {
  __enzyme_fixed_point((void *)step, enzyme_fp_state, u, (int64_t)sizeof(double) * N,
                       enzyme_fp_reduction, 1e-28, u, p, y, tol);
  return objective(u, y);
}

static double plain(double *u, const double *p, double *y, const double *tol) {
  int64_t i = 0;
  while (step(i++, u, p, y, tol))
    ;
  return objective(u, y);
}

static const double tol = 1e-15;

static double at(const double *x, void *ctx) {
  (void)ctx;
  double u[N] = {0}, y[N] = {0};
  return plain(u, x, y, &tol);
}

// Newton for cube roots, with the control protocol counting its calls.
__attribute__((noinline)) static int newton(int64_t i, double *x, const double *a,
                                            const double *tol2) {
  (void)i;
  double err = 0;
  for (int k = 0; k < N; k++) {
    double next = (2 * x[k] + a[k] / (x[k] * x[k])) / 3;
    err = fmax(err, fabs(next - x[k]));
    x[k] = next;
  }
  return err > *tol2;
}

static int calls;
static double ref = -1;
static int control(double *cumul, double *reduction) {
  calls++;
  if (*cumul < 0) {
    ref = -1;
    return 1;
  }
  if (ref < 0) {
    ref = *cumul;
    return *cumul > 0;
  }
  return *cumul > *reduction * ref;
}

static double roots(double *x, const double *a, const double *tol2) {
  __enzyme_fixed_point((void *)newton, enzyme_fp_state, x, (int64_t)sizeof(double) * N,
                       enzyme_fp_reduction, 1e-24, enzyme_fp_control, control, x, a, tol2);
  double s = 0;
  for (int k = 0; k < N; k++)
    s += x[k];
  return s;
}

int main(void) {
  int failures = 0;
  double p[N] = {0.3, 0.5, 0.7, 0.9}, fd[N];
  fd_grad(at, NULL, p, N, fd);

  double u[N] = {0}, y[N] = {0}, du[N] = {0}, dp[N] = {0}, dy[N] = {0};
  __enzyme_autodiff((void *)fixed, enzyme_dup, u, du, enzyme_dup, p, dp, enzyme_dup, y, dy,
                    enzyme_const, &tol);
  double u2[N] = {0}, y2[N] = {0}, du2[N] = {0}, dp2[N] = {0}, dy2[N] = {0};
  __enzyme_autodiff((void *)plain, enzyme_dup, u2, du2, enzyme_dup, p, dp2, enzyme_dup, y2, dy2,
                    enzyme_const, &tol);
  fd_check_array("dp (two-phase) vs FD", dp, fd, N);
  fd_check_array("dp (two-phase) vs every iteration", dp, dp2, N);
  for (int k = 0; k < N; k++) {
    if (du[k] != 0) {
      printf("FAIL du[%d] = %g, not 0\n", k, du[k]);
      failures++;
    }
    if (u[k] != u2[k]) {
      printf("FAIL u[%d] = %.17g after the gradient, plain %.17g\n", k, u[k], u2[k]);
      failures++;
    }
  }

  double x[N] = {1, 1, 1, 1}, dx[N] = {0}, a[N] = {2, 3, 4, 5}, da[N] = {0};
  __enzyme_autodiff((void *)roots, enzyme_dup, x, dx, enzyme_dup, a, da, enzyme_const, &tol);
  for (int k = 0; k < N; k++) {
    char name[32];
    snprintf(name, sizeof(name), "d cbrt(a[%d])", k);
    fd_check(name, da[k], cbrt(a[k]) / (3 * a[k]));
  }
  if (calls != 3) {
    printf("FAIL control called %d times, not 3\n", calls);
    failures++;
  }
  return fd_finish() | (failures != 0);
}
