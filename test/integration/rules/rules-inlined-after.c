// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s driver 3 %t
// Functions with user rules are kept out of line until their rules are applied, and no longer:
// after the requests are differentiated they may be inlined again, into the program's own
// loops (and the derived code), as without Umbra. Here `twice` (registered derivative and
// gradient 3 while its body's derivative is 2) and `gain` (inactive) are called in a hot loop
// that nothing differentiates: the re-optimised program must not call them there.
// Plugin at -O2 (clang's pipeline, then Umbra and its re-optimisation):
// RUN: %clang -O2 -I %runtime-include -I %testinc -fpass-plugin=%plugin -S -emit-llvm %s -o - | FileCheck %s
// The driver after the clang plugin without its pass (protection at pipeline start):
// RUN: %clang -O2 -I %runtime-include -I %testinc -fplugin=%clang-plugin -fplugin-arg-umbra-no-pass -c -emit-llvm %s -o %t.np.bc
// RUN: %umbra %t.np.bc --emit llvm-ir -o - | FileCheck %s
// CHECK-LABEL: define {{.*}} @primal_loop(
// CHECK-NOT: call {{.*}}@twice(
// CHECK-NOT: call {{.*}}@gain(
// CHECK: {{^[}]$}}
// EXEC-CLANG-PLUGIN
#include "fdcheck.h"
#include "umbra.h"

double twice(double x) { return 2 * x; }
double twice_fwd(double x, double dx) { (void)x; return 3 * dx; }
double twice_aug(double x) { return 2 * x; }
double twice_grad(double x, double dret) { (void)x; return 3 * dret; }
UMBRA_DERIVATIVE(twice, twice_fwd);
UMBRA_GRADIENT(twice, twice_aug, twice_grad);

double gain(double x) { return 2 * x; }
UMBRA_INACTIVE_FN(gain);

double f_twice(double x) { return twice(x) * 1.0; }
double f_gain(double x) { return x * gain(x); }

// Primal only: after differentiation, nothing keeps these calls out of line.
__attribute__((noinline)) double primal_loop(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += twice(x[i]) + gain(x[i]);
  return s;
}

int main(void) {
  double x = 1.7;
  fd_check_exact("twice gradient (registered: 3)", __enzyme_autodiff((void *)f_twice, x), 3.0);
  fd_check_exact("twice derivative (registered: 3)", __enzyme_fwddiff((void *)f_twice, x, 1.0),
                 3.0);
  fd_check("gain inactive, gradient", __enzyme_autodiff((void *)f_gain, x), 2 * x);
  fd_check("gain inactive, derivative", __enzyme_fwddiff((void *)f_gain, x, 1.0), 2 * x);
  double xs[4] = {1, 2, 3, 4};
  fd_check_exact("primal loop", primal_loop(xs, 4), 40.0);
  return fd_finish();
}
