// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-FSRC: Inputs/c-driver.f90
// A C program differentiating bind(C) Fortran procedures: the C and Fortran bitcode are linked
// into one module before Umbra (driver) or clang's -fpass-plugin (plugin), and the program is
// linked with flang, which brings its runtime library. Reverse and forward mode; a Fortran
// subroutine with an output array; sum and dot_product on explicit-shape arrays.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff_v(void *, ...);
double __enzyme_fwddiff(void *, ...);

double rosen(const double *x, int n);
double softplus_dot(const double *x, const double *w, int n);
void expscale(const double *x, double *y, int n, double a);

enum { N = 5 };
static double rosen_at(const double *x, void *c) { (void)c; return rosen(x, N); }
// packed [x (N), w (N)]
static double softplus_at(const double *xw, void *c) { (void)c; return softplus_dot(xw, xw + N, N); }
// sum_i (i + 1) y_i for y = expscale(x, a); packed [x (N), a]
static double expscale_at(const double *xa, void *c) {
  (void)c;
  double y[N], s = 0;
  expscale(xa, y, N, xa[N]);
  for (int i = 0; i < N; i++) s += (i + 1) * y[i];
  return s;
}

int main(void) {
  double x[2 * N], dx[2 * N], v[2 * N], fd[2 * N + 1];
  for (int i = 0; i < 2 * N; i++) {
    x[i] = 0.3 + 0.4 * sin(1.3 * i);
    v[i] = 0.2 - 0.07 * i;
  }

  memset(dx, 0, sizeof dx);
  __enzyme_autodiff_v((void *)rosen, enzyme_dup, x, dx, enzyme_const, N);
  fd_grad(rosen_at, NULL, x, N, fd);
  fd_check_array("rosen dx", dx, fd, N);
  fd_check("rosen fwd", __enzyme_fwddiff((void *)rosen, enzyme_dup, x, v, enzyme_const, N),
           fd_dir(rosen_at, NULL, x, v, N));

  memset(dx, 0, sizeof dx);
  __enzyme_autodiff_v((void *)softplus_dot, enzyme_dup, x, dx, enzyme_dup, x + N, dx + N,
                      enzyme_const, N);
  fd_grad(softplus_at, NULL, x, 2 * N, fd);
  fd_check_array("softplus_dot dx,dw", dx, fd, 2 * N);
  fd_check("softplus_dot fwd",
           __enzyme_fwddiff((void *)softplus_dot, enzyme_dup, x, v, enzyme_dup, x + N, v + N,
                            enzyme_const, N),
           fd_dir(softplus_at, NULL, x, v, 2 * N));

  // expscale: reverse with the output's adjoint seeded (i + 1), a active by value.
  double xa[N + 1], y[N], dy[N];
  memcpy(xa, x, sizeof(double) * N);
  xa[N] = 0.7;
  memset(dx, 0, sizeof dx);
  for (int i = 0; i < N; i++) dy[i] = i + 1;
  double da = __enzyme_autodiff((void *)expscale, enzyme_dup, xa, dx, enzyme_dup, y, dy,
                                enzyme_const, N, xa[N]);
  fd_grad(expscale_at, NULL, xa, N + 1, fd);
  fd_check_array("expscale dx", dx, fd, N);
  fd_check("expscale da", da, fd[N]);
  return fd_finish();
}
