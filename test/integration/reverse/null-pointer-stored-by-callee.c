// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// A helper storing its pointer parameter into an object that also holds differentiable
// pointers, called once with a null pointer (Eigen's default evaluator constructs its data
// member from 0 and is given the matrix's data later, -O0). The null argument, constant, left
// the helper's derived copy no shadow to store: "pointer parameter 2 ... passed as constant,
// has no shadow memory but flows where pointers with shadows are expected". A null pointer
// the callee may store is passed duplicated, its shadow null. Both modes, against finite
// differences, -O0..-O3, driver and plugin.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef struct {
  const double *data;
  long n;
} View;

__attribute__((noinline)) void view_init(View *v, const double *p, long n) {
  v->data = p;
  v->n = n;
}

__attribute__((noinline)) double view_energy(const View *v) {
  double r = 0;
  for (long i = 0; i < v->n; ++i)
    r += v->data[i] * v->data[i] * (1.0 + 0.1 * (double)i);
  return r;
}

__attribute__((noinline)) double energy(const double *x, long n) {
  View v;
  view_init(&v, 0, 0);
  double r = view_energy(&v);
  view_init(&v, x, n);
  return r + view_energy(&v);
}

static double at(const double *x, void *c) {
  (void)c;
  return energy(x, 4);
}

int main(void) {
  double x[4] = {1.0, -2.0, 0.5, 3.0}, dx[4] = {0}, fd[4], v[4] = {0.3, -1.0, 2.0, 0.7};
  __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, 4L);
  fd_grad(at, NULL, x, 4, fd);
  fd_check_array("gradient", dx, fd, 4);
  double t = __enzyme_fwddiff((void *)energy, enzyme_dup, x, v, enzyme_const, 4L);
  fd_check("tangent", t, fd_dir(at, NULL, x, v, 4));
  return fd_finish();
}
