// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// Reverse over split mode (issue 12): the gradient of w . (J^T w), where J^T w comes from
// __enzyme_augmentfwd and __enzyme_reverse with a tape header in a caller buffer; the outer
// gradient differentiates both sweeps and the tape between them. Against finite differences.
#include "fdcheck.h"
extern int enzyme_dup, enzyme_const, enzyme_allocated, enzyme_tape;
void __enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
void __enzyme_autodiff(void *, ...);
enum { N = 3 };
void f(double *y, const double *x, int n) {
  for (int i = 0; i < n; i++) y[i] = sin(x[i]) * x[(i + 1) % n];
}
static const double W[N] = {0.5, -1.0, 2.0};
/* w . J^T w-ish: gradient of w.y by split mode, then summed */
double wg(const double *x, int n) {
  char tape[32];
  double y[N], dy[N], dx[N] = {0};
  __enzyme_augmentfwd((void *)f, enzyme_allocated, 32, enzyme_tape, tape, enzyme_dup, y, dy,
                      enzyme_dup, x, dx, enzyme_const, n);
  for (int i = 0; i < n; i++) dy[i] = W[i];
  __enzyme_reverse((void *)f, enzyme_allocated, 32, enzyme_tape, tape, enzyme_dup, y, dy,
                   enzyme_dup, x, dx, enzyme_const, n);
  double s = 0;
  for (int i = 0; i < n; i++) s += W[i] * dx[i];
  return s;
}
void hw(const double *x, double *h, int n) {
  for (int i = 0; i < n; i++) h[i] = 0;
  __enzyme_autodiff((void *)wg, enzyme_dup, x, h, enzyme_const, n);
}
static double wg_at(const double *x, void *c) { (void)c; return wg(x, N); }
int main(void) {
  double x[N] = {0.7, -0.4, 1.2}, h[N], fd[N];
  hw(x, h, N);
  fd_grad(wg_at, NULL, x, N, fd);
  fd_check_array("split mode under reverse", h, fd, N);
  return fd_finish();
}
