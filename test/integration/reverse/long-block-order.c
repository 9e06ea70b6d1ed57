// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// RUN: %clang -O2 -c -emit-llvm %s -I%testinc -o %t.bc
// RUN: %umbra -O3 %t.bc --emit=llvm-ir -o - | FileCheck %s --check-prefix=ORDER
// One long block: the forward chain y = y * x1 + 1/8, then the reverse sweep's chain
// dy = dy * x1, which needs only x1 and the seed, and the sum of dy * y into d.x1. An
// out-of-order core overlaps only what fits its window, so in that order the two chains ran one
// after the other (the benchmark large_single_block: 2.3 times its primal). After
// re-optimisation the adjoint's additions, marked reassociable, are summed as a tree, and the
// block is ordered by each instruction's longest path to its end (schedule.rs): the reverse
// chain (its second product is x1 * x1) starts before the forward chain's last step.
// ORDER-LABEL: define internal {{.*}}@adjoint.chain.
// ORDER:       fmul double [[X1:%[^,]+]], [[X1]]
// ORDER:       1.250000e-01
// ORDER:       ret void
// The values: against finite differences, driver and plugin, -O0..-O3.
#include "fdcheck.h"

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);

#define STEP y = y * x[1] + 0.125;
#define STEP10 STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP
#define STEP100 STEP10 STEP10 STEP10 STEP10 STEP10 STEP10 STEP10 STEP10 STEP10 STEP10

double chain(const double *x) {
  double y = x[0];
  STEP100 STEP100 STEP100
  return y;
}

void gradient(const double *x, double *g) {
  g[0] = g[1] = 0;
  __enzyme_autodiff((void *)chain, enzyme_dup, x, g);
}

struct point {
  double *at;
  int k;
};
static double f_along(double v, void *ctx) {
  struct point *p = ctx;
  double keep = p->at[p->k];
  p->at[p->k] = v;
  double r = chain(p->at);
  p->at[p->k] = keep;
  return r;
}

int main(void) {
  double x[2] = {0.9, 0.993}, g[2];
  gradient(x, g);
  for (int k = 0; k < 2; k++) {
    struct point p = {x, k};
    fd_check("d chain / d x[k]", g[k], fd_deriv1(f_along, &p, x[k]));
  }
  return fd_finish();
}
