// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Without re-optimisation after differentiation (umbra -O0):
// RUN: %clang -O0 -g -I %testinc -c -emit-llvm %s -o %t.O0.bc
// RUN: %umbra -O0 %t.O0.bc -o %t.O0.o
// RUN: %clang %t.O0.o -lm -o %t.O0.exe
// RUN: %t.O0.exe
// Reverse over reverse in a loop (issue 12): the gradient of f after five gradient-descent
// steps, each step calling __enzyme_autodiff. One tape per inner gradient, created and freed
// in every iteration, all differentiated by the outer gradient; against finite differences.
// Through the plugin at -O0 the result used to be wrong: the adjoints of the callees (f, the
// inner gradient's code) re-read the local arrays x and g through pointers into the outer
// augmented sweep's dead stack frame (see reverse-through-gradient-step-call.c).
#include "fdcheck.h"
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
enum { N = 3 };
double f(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i] * sin(x[(i + 1) % n]);
  return s;
}
void grad(const double *x, double *dx, int n) {
  for (int i = 0; i < n; i++) dx[i] = 0;
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
}
/* gradient descent steps: each step's gradient is differentiated by the outer request */
double descend(const double *x0, int steps, int n) {
  double x[N], g[N];
  for (int i = 0; i < n; i++) x[i] = x0[i];
  for (int k = 0; k < steps; k++) {
    grad(x, g, n);
    for (int i = 0; i < n; i++) x[i] -= 0.1 * g[i];
  }
  return f(x, n);
}
void ddescend(const double *x, double *dx, int steps, int n) {
  for (int i = 0; i < n; i++) dx[i] = 0;
  __enzyme_autodiff((void *)descend, enzyme_dup, x, dx, enzyme_const, steps, enzyme_const, n);
}
static double d_at(const double *x, void *c) { (void)c; return descend(x, 5, N); }
int main(void) {
  double x[N] = {0.7, -0.4, 1.2}, d[N], fd[N];
  ddescend(x, d, 5, N);
  fd_grad(d_at, NULL, x, N, fd);
  fd_check_array("d/dx0 of f after 5 gradient steps", d, fd, N);
  return fd_finish();
}
