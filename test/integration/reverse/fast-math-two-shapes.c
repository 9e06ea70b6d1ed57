// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// EXEC-CFLAGS: -ffast-math
// One computation written twice, as a loop left by `goto` and as straight code (Enzyme's
// ReverseMode/loopsnested.c shape), under -ffast-math for a target without FMA: the two values
// and gradients agree to 1e-10 on values near 1e3, as they do without Umbra. Writing the
// program's `contract` pairs out as llvm.fmuladd where code generation cannot fuse them
// changed how the optimiser treated the two shapes, and they drifted 5e-13 apart relatively.
#include "fdcheck.h"

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);

static inline __attribute__((always_inline)) void step_a(double x[2]) {
  double t = 4 * cos(x[0] + x[1]);
  x[0] = 3 * sin(2 * x[0] + x[1]);
  x[1] = t;
}
static inline __attribute__((always_inline)) void step_b(double x[2]) {
  double t = 4 * sin(2 * x[0] + x[1]);
  x[0] = 4 * cos(x[0] + 2 * x[1]);
  x[1] = t;
}

// For x = {0.9, 0.7}: a, a, b, b, a, b, as `looped` takes it.
void straight(double x[2]) {
  step_a(x);
  step_a(x);
  step_b(x);
  step_b(x);
  step_a(x);
  step_b(x);
}

void looped(double x[2]) {
A:
  step_a(x);
  if (x[0] * x[0] < x[1])
    return;
  else if (x[0] > 0)
    goto A;
  else
    goto B;
B:
  step_b(x);
  if (x[0] * x[0] < x[1])
    return;
  else if (x[0] > 0)
    goto A;
  else
    goto B;
}

int main(void) {
  double x[2] = {0.9, 0.7}, dx[2] = {1, 2}, y[2] = {0.9, 0.7}, dy[2] = {1, 2};
  __enzyme_autodiff((void *)looped, enzyme_dup, x, dx);
  __enzyme_autodiff((void *)straight, enzyme_dup, y, dy);
  for (int k = 0; k < 2; k++) {
    fd_check_tol("values agree", x[k], y[k], 0, 1e-10);
    fd_check_tol("gradients agree", dx[k], dy[k], 0, 1e-10);
  }
  return fd_finish();
}
