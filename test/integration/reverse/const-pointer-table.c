// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// A local array of pointers to constant tables, `const double *s[] = {wa, wb}`: at -O0 clang
// initialises it by copying a constant global of pointers, which reverse mode refused ("copies
// pointers from memory without a shadow"; found in a hydrodynamics kernel's shape-function
// tables). Its shadow is now a table of pointers to adjoint sinks, writable zeroed globals the
// adjoint adds the constants' (unused) adjoints into. Both modes, against finite differences.
#include "fdcheck.h"

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static const double wa[3] = {1.0, -1.0, 0.5};
static const double wb[3] = {0.5, 2.0, -0.25};
static const double wc[3] = {-1.5, 0.25, 1.0};

__attribute__((noinline)) double weighted(const double *x) {
  const double *s[3] = {wa, wb, wc};
  double r = 0;
  for (int b = 0; b < 3; ++b)
    for (int i = 0; i < 3; ++i) r += s[b][i] * x[i] * x[(i + b) % 3];
  return r;
}

static double at(const double *x, void *c) {
  (void)c;
  return weighted(x);
}

int main(void) {
  double x[3] = {1.0, 3.0, -0.5}, dx[3] = {0}, fd[3], v[3] = {0.3, -1.0, 2.0};
  __enzyme_autodiff((void *)weighted, enzyme_dup, x, dx);
  fd_grad(at, NULL, x, 3, fd);
  fd_check_array("gradient", dx, fd, 3);
  double t = __enzyme_fwddiff((void *)weighted, enzyme_dup, x, v);
  fd_check("tangent", t, fd_dir(at, NULL, x, v, 3));
  // Evaluated again: the sinks' contents change nothing.
  double dx2[3] = {0};
  __enzyme_autodiff((void *)weighted, enzyme_dup, x, dx2);
  fd_check_array("gradient again", dx2, fd, 3);
  return fd_finish();
}
