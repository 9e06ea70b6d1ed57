// RUN: %clang -O1 -g -I%runtime-include -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=BYVALUE
// RUN: %clang -O1 -g -I%runtime-include -DINSIDE -c -emit-llvm %s -o %t.i.bc
// RUN: not %umbra %t.i.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=INSIDE
// RUN: %clang -O1 -g -I%runtime-include -DNOSTATE -c -emit-llvm %s -o %t.n.bc
// RUN: not %umbra %t.n.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=NOSTATE
// What Umbra refuses about fixed-point loops: a step taking a differentiable value by value, a
// loop marked from inside, a call without a state.
#include <umbra/fixed_point.h>

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) static int halve(int64_t i, double *x, double *a) {
  (void)i;
  double next = 0.5 * (x[0] + a[0] / x[0]);
  int go = next != x[0];
  x[0] = next;
  return go;
}

// BYVALUE: the fixed-point step scaled takes a floating-point value that carries a derivative
__attribute__((noinline)) static int scaled(int64_t i, double *x, double s) {
  x[0] *= s;
  return i < 5;
}

double f(double *x, double *a) {
#if defined(INSIDE)
  while (x[0] > 1) {
    // INSIDE: fixed-point-errors.c:[[@LINE+1]]:{{.*}}__enzyme_set_fixed_point (a loop marked from inside) is not supported
    __enzyme_set_fixed_point(-1.0, -1, 0, x, (int64_t)8);
    x[0] *= 0.5;
  }
#elif defined(NOSTATE)
  // NOSTATE: fixed-point-errors.c:[[@LINE+1]]:{{.*}}needs at least one enzyme_fp_state
  __enzyme_fixed_point((void *)halve, enzyme_fp_reduction, 1e-20, x, a);
#else
  __enzyme_fixed_point((void *)scaled, enzyme_fp_state, x, (int64_t)8, x, a[0]);
#endif
  return x[0];
}

void g(double *x, double *dx, double *a, double *da) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, a, da);
}
