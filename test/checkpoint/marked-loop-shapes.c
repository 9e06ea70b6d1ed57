// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 3 %t
// Marked loops of other shapes: two in one function (Revolve, then periodic), a 64-bit counter
// from 5 to a bound by <=, the counter and a carried product read after the loop, a marked loop
// in a function the differentiated one calls, a loop whose bound is zero at run time, and
// forward mode (the outlined loop runs plainly, tangents through every iteration). Written
// with UMBRA_CHECKPOINT_LOOP, which keeps clang from unrolling the small loops at -O2. Gradients
// and tangents against finite differences.
#include <umbra/checkpoint.h>

#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static EnzymeCkptConfig c3 = {3, 0, NULL, 0, NULL};
static EnzymeCkptConfig c4 = {4, 0, NULL, 0, NULL};

__attribute__((noinline)) static double inner(double *x, int64_t last) {
  double p = 1;
  int64_t i;
  UMBRA_CHECKPOINT_LOOP(&EnzymeCkptRevolve, &c3, umbra_checkpoint_region, x,
                        (int64_t)(2 * sizeof(double)))
  for (i = 5; i <= last; i++) {
    double a = x[0], b = x[1];
    x[0] = a + 0.05 * b * cos(a);
    x[1] = b - 0.05 * sin(a) + 0.001 * (double)i;
    p *= 1 + 0.01 * x[0];
  }
  return p + 0.001 * (double)i;
}

__attribute__((noinline)) double f(double *x, int n, int none) {
  double s = inner(x, 5 + n);
  UMBRA_CHECKPOINT_LOOP(&EnzymeCkptPeriodic, &c4, umbra_checkpoint_region, x,
                        (int64_t)(2 * sizeof(double)))
  for (unsigned t = 0; t < (unsigned)n; t++) {
    x[1] += 0.02 * x[0] * x[0];
    s += x[1] * 0.1;
  }
  UMBRA_CHECKPOINT_LOOP(&EnzymeCkptRevolve, &c3, umbra_checkpoint_region, x,
                        (int64_t)(2 * sizeof(double)))
  for (int t = 0; t < none; t++)
    x[0] *= 2;
  return s + x[0] * x[1];
}

static double at(const double *x0, void *ctx) {
  (void)ctx;
  double x[2] = {x0[0], x0[1]};
  return f(x, 40, 0);
}

int main(void) {
  double x0[2] = {0.4, 0.9}, fd[2], g[2] = {0, 0};
  fd_grad(at, NULL, x0, 2, fd);
  double x[2] = {x0[0], x0[1]};
  __enzyme_autodiff((void *)f, enzyme_dup, x, g, enzyme_const, 40, enzyme_const, 0);
  fd_check_array("gradient", g, fd, 2);
  double y[2] = {x0[0], x0[1]}, dy[2] = {1, 0};
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, y, dy, enzyme_const, 40, enzyme_const, 0);
  fd_check("tangent", t, fd[0]);
  return fd_finish();
}
