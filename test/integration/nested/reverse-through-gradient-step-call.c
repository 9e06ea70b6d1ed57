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
// Reverse over reverse (issue 12): one gradient-descent step on local arrays (an inner
// __enzyme_autodiff of f), then a call of a separate function on the updated local array.
// The outer gradient's adjoint of h (and of the inner gradient's code) ran after the outer
// augmented sweep had returned and re-read the local arrays through dead stack pointers:
// d[0] and d[1] were 0 at umbra -O0 and through the plugin at -O0 (the callees must tape
// what they read from their caller's stack).
#include "fdcheck.h"
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
enum { N = 3 };
double f(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return s;
}
__attribute__((noinline)) double h(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return s;
}
void grad(const double *x, double *dx, int n) {
  for (int i = 0; i < n; i++) dx[i] = 0;
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
}
double descend(const double *x0, int steps, int n) {
  (void)steps;
  double x[N], g[N];
  for (int i = 0; i < n; i++) x[i] = x0[i];
  grad(x, g, n);
  for (int i = 0; i < n; i++) x[i] -= 0.1 * g[i];
  return h(x, n);
}
void ddescend(const double *x, double *dx, int steps, int n) {
  for (int i = 0; i < n; i++) dx[i] = 0;
  __enzyme_autodiff((void *)descend, enzyme_dup, x, dx, enzyme_const, steps, enzyme_const, n);
}
static double d_at(const double *x, void *c) {
  (void)c;
  return descend(x, 1, N);
}
int main(void) {
  double x[N] = {0.7, -0.4, 1.2}, d[N], fd[N];
  ddescend(x, d, 1, N);
  fd_grad(d_at, NULL, x, N, fd);
  fd_check_array("d", d, fd, N);
  return fd_finish();
}
