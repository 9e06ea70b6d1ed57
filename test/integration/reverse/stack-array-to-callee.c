// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Without re-optimisation (umbra -O0) the derived functions are not inlined into the caller
// of the request, so the augmented sweep's stack frame is gone when the adjoint runs:
// RUN: %clang -O0 -g -I %testinc -c -emit-llvm %s -o %t.O0.bc
// RUN: %umbra -O0 %t.O0.bc -o %t.O0.o
// RUN: %clang %t.O0.o -lm -o %t.O0.exe
// RUN: %t.O0.exe
// RUN: %clang -O1 -g -I %testinc -c -emit-llvm %s -o %t.O1.bc
// RUN: %umbra -O0 %t.O1.bc -o %t.O1.o
// RUN: %clang %t.O1.o -lm -o %t.O1.exe
// RUN: %t.O1.exe
// A local array (a stack slot of the differentiated function) passed to a callee, directly
// and through a local struct holding its address. The callee's adjoint runs inside the
// caller's adjoint, after the caller's augmented sweep has returned: it must not re-read the
// array through the primal pointer (the slot is dead by then, and the adjoint's own frame
// reuses the memory) but tape what it reads. This used to give zero for all but the last
// element at umbra -O0 (the gradient-descent case of reverse over reverse, issue 12, was
// the same bug).
#include "fdcheck.h"
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
enum { N = 3 };
struct view {
  const double *p;
  int n;
};
__attribute__((noinline)) double h(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return s;
}
__attribute__((noinline)) double hv(const struct view *v) {
  double s = 0;
  for (int i = 0; i < v->n; i++) s += v->p[i] * v->p[i] * v->p[(i + 1) % v->n];
  return s;
}
double g(const double *x0, int n) {
  double x[N];
  for (int i = 0; i < n; i++) x[i] = 2 * x0[i] + 0.5;
  struct view v = {x, n};
  return h(x, n) + hv(&v);
}
void dg(const double *x, double *dx, int n) {
  for (int i = 0; i < n; i++) dx[i] = 0;
  __enzyme_autodiff((void *)g, enzyme_dup, x, dx, enzyme_const, n);
}
static double g_at(const double *x, void *c) {
  (void)c;
  return g(x, N);
}
int main(void) {
  double x[N] = {0.7, -0.4, 1.2}, d[N], fd[N];
  dg(x, d, N);
  fd_grad(g_at, NULL, x, N, fd);
  fd_check_array("dg", d, fd, N);
  return fd_finish();
}
