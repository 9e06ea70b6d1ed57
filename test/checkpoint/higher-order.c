// RUN: %clang -O2 -g -I%runtime-include -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: %clang -O2 -g -I%runtime-include -DFIXED -c -emit-llvm %s -o %t.f.bc
// RUN: not %umbra %t.f.bc -o %t.o 2>&1 | FileCheck %s
// A Hessian-vector product (forward over reverse) through a checkpointed loop or a fixed point
// is refused with its reason, never built from a differentiation of the scheme's driver.
#include <umbra/checkpoint.h>
#include <umbra/fixed_point.h>

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) static void step(int64_t i, double *u) {
  (void)i;
  u[0] = u[0] * 0.5 + u[0] * u[0] * 0.1;
}

__attribute__((noinline)) static int iterate(int64_t i, double *x, const double *a) {
  double next = 0.5 * (x[0] + a[0] / x[0]);
  x[0] = next;
  return i < 30;
}

static EnzymeCkptConfig config = {2, 0, 0, 0, 0};

static double f(double *u, double *a) {
#ifdef FIXED
  __enzyme_fixed_point((void *)iterate, enzyme_fp_state, u, (int64_t)8, u, a);
#else
  (void)a;
  __enzyme_checkpoint_for((void *)step, 0, 10, enzyme_scheme, &EnzymeCkptRevolve, &config,
                          enzyme_checkpoint_region, u, (int64_t)8, u);
#endif
  return u[0];
}

__attribute__((noinline)) static void grad(double *u, double *du, double *a, double *da) {
  __enzyme_autodiff((void *)f, enzyme_dup, u, du, enzyme_dup, a, da);
}

// CHECK: a derivative of a checkpointed loop or a fixed point cannot be differentiated again
void hvp(double *u, double *v, double *du, double *ddu, double *a, double *da) {
  __enzyme_fwddiff((void *)grad, enzyme_dup, u, v, enzyme_dup, du, ddu, enzyme_dup, a, v,
                   enzyme_dup, da, ddu);
}
