// RUN: %clang -O1 -g -I%runtime-include -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=BYVALUE
// RUN: %clang -O1 -g -I%runtime-include -DINSIDE -c -emit-llvm %s -o %t.i.bc
// RUN: not %umbra %t.i.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=INSIDE
// RUN: %clang -O1 -g -I%runtime-include -DNOSTATE -c -emit-llvm %s -o %t.n.bc
// RUN: not %umbra %t.n.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=NOSTATE
// RUN: %clang -O0 -g -I%runtime-include -DUNMARKED -c -emit-llvm %s -o %t.u.bc
// RUN: not %umbra %t.u.bc -o %t.o 2>&1 | FileCheck %s --check-prefix=UNMARKED
// RUN: not %clang -O2 -g -I%runtime-include -DUNMARKED -DFORWARD -fpass-plugin=%plugin -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=UNMARKED
// What Umbra refuses about fixed-point loops: a step taking a differentiable value by value, a
// loop marked from inside whose stopping rule is computed in it, a call without a state, heap memory the iterations carry that is
// neither a state nor a region (in both modes: forward mode iterates the step too).
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

#if defined(UNMARKED)
__attribute__((noinline)) static int relaxed(int64_t i, double *x, double *a, double *w) {
  double next = x[0] - w[0] * (x[0] * x[0] - a[0]) / (2 * x[0]);
  // UNMARKED: fixed-point-errors.c:[[@LINE+1]]:{{.*}}fixed-point step 'relaxed' writes memory that later iterations read and no snapshot holds (the memory its argument 3 points to): mark it with enzyme_checkpoint_region
  w[0] = 0.5 * w[0] + 0.5;
  int go = next != x[0];
  x[0] = next;
  return go || i < 3;
}

double root(double *x, double *a, double *w) {
  __enzyme_fixed_point((void *)relaxed, enzyme_fp_state, x, (int64_t)8, x, a, w);
  return x[0];
}

double __enzyme_fwddiff(void *, ...);

double droot(double *x, double *a, double *w) {
  double dx = 0, da = 1, dw = 0;
#if defined(FORWARD)
  return __enzyme_fwddiff((void *)root, enzyme_dup, x, &dx, enzyme_dup, a, &da, enzyme_dup, w,
                          &dw);
#else
  __enzyme_autodiff((void *)root, enzyme_dup, x, &dx, enzyme_dup, a, &da, enzyme_dup, w, &dw);
  return da;
#endif
}
#else
double f(double *x, double *a) {
#if defined(INSIDE)
  while (x[0] > 1) {
    // A stopping rule computed in the loop (Enzyme's marker wants its arguments before it).
    // INSIDE: fixed-point-errors.c:[[@LINE+1]]:{{.*}}in function 'f': the fixed-point loop here (in 'f') cannot be outlined: {{.*}} is computed in the loop: the marker's arguments must be computed before it
    __enzyme_set_fixed_point(x[0] * 1e-3, -1, 0, x, (int64_t)8);
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
#endif
