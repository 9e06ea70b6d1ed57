// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Functions with user rules that clang inlines at -O1 and above (small, one even
// always_inline): the plugin marks them noinline at pipeline start, so the rules apply at
// every level. The rules are deliberately distinguishable from the bodies' derivatives, so
// differentiating an inlined body fails the checks:
//   - quick_rsqrt: a registered gradient and derivative giving the exact -x^-1.5 / 2, while
//     the body is the bit-trick fast inverse square root (its derivative is off by ~9%);
//   - twice: registered derivative and gradient 3 (the body's derivative is 2);
//   - gain: inactive, so x * gain(x) has derivative gain(x) = 2x (the body's gives 4x);
//   - fake_log1p: function-like log1p, derivative 1/(1+x) (the body is x).
// The driver through the clang plugin without its pass (-fplugin-arg-umbra-no-pass): the
// plugin still keeps these functions out of line from the start of clang's pipeline, so the
// rules apply at every level in driver mode too.
// RUN: %clang -O0 -g -I %runtime-include -I %testinc -fplugin=%clang-plugin -fplugin-arg-umbra-no-pass -c -emit-llvm %s -o %t.cp0.bc && %umbra %t.cp0.bc -o %t.cp0.o && %clang %t.cp0.o -lm -o %t.cp0 && %t.cp0
// RUN: %clang -O1 -g -I %runtime-include -I %testinc -fplugin=%clang-plugin -fplugin-arg-umbra-no-pass -c -emit-llvm %s -o %t.cp1.bc && %umbra %t.cp1.bc -o %t.cp1.o && %clang %t.cp1.o -lm -o %t.cp1 && %t.cp1
// RUN: %clang -O2 -g -I %runtime-include -I %testinc -fplugin=%clang-plugin -fplugin-arg-umbra-no-pass -c -emit-llvm %s -o %t.cp2.bc && %umbra %t.cp2.bc -o %t.cp2.o && %clang %t.cp2.o -lm -o %t.cp2 && %t.cp2
// RUN: %clang -O3 -g -I %runtime-include -I %testinc -fplugin=%clang-plugin -fplugin-arg-umbra-no-pass -c -emit-llvm %s -o %t.cp3.bc && %umbra %t.cp3.bc -o %t.cp3.o && %clang %t.cp3.o -lm -o %t.cp3 && %t.cp3
// Plain clang, then the driver at -O2 (the module is optimised before umbra sees it). With
// debug information the inlined body is found in the differentiated code and refused (one
// line naming the function, its rule and the call site); without, nothing shows where the body
// went, and a warning names the functions whose calls are gone.
// RUN: %clang -O2 -g -I %runtime-include -I %testinc -c -emit-llvm %s -o %t.o2g.bc
// RUN: not %umbra %t.o2g.bc -o %t.o2g.o 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: umbra: error: {{.*}}rules-survive-inlining.c:{{[0-9]+}}:{{[0-9]+}}: in function 'f_{{rsqrt|twice|gain|log}}': '{{quick_rsqrt|twice|gain|fake_log1p}}' has {{a registered (derivative|gradient)|an inactive registration|a function-like registration}}, but the optimiser inlined its body here (its call at {{.*}}rules-survive-inlining.c:{{[0-9]+}}:{{[0-9]+}}) before Umbra ran, so the rule cannot apply; {{.*}}__attribute__((noinline))
// RUN: %clang -O2 -I %runtime-include -I %testinc -c -emit-llvm %s -o %t.o2.bc
// RUN: %umbra %t.o2.bc -o %t.o2.o 2>&1 | FileCheck %s --check-prefix=WARN
// WARN-DAG: umbra: warning: 'quick_rsqrt' has a registered {{derivative|gradient}}, but no calls to it remain: the optimiser probably inlined it{{.*}}-fpass-plugin{{.*}}__attribute__((noinline))
// WARN-DAG: umbra: warning: 'twice' has a registered {{derivative|gradient}}, but no calls to it remain
// WARN-DAG: umbra: warning: 'gain' has an inactive registration, but no calls to it remain
// WARN-DAG: umbra: warning: 'fake_log1p' has a function-like registration, but no calls to it remain
#include "fdcheck.h"
#include "umbra.h"
#include <stdint.h>
#include <string.h>

double quick_rsqrt(double x) {
  int64_t i;
  memcpy(&i, &x, sizeof i);
  i = 0x5fe6eb50c7b537a9 - (i >> 1);
  double y;
  memcpy(&y, &i, sizeof y);
  return y * (1.5 - 0.5 * x * y * y);
}
double quick_rsqrt_fwd(double x, double dx) { return -0.5 * dx / (x * sqrt(x)); }
double quick_rsqrt_aug(double x) { return quick_rsqrt(x); }
double quick_rsqrt_grad(double x, double dret) { return -0.5 * dret / (x * sqrt(x)); }
UMBRA_DERIVATIVE(quick_rsqrt, quick_rsqrt_fwd);
UMBRA_GRADIENT(quick_rsqrt, quick_rsqrt_aug, quick_rsqrt_grad);

static inline __attribute__((always_inline)) double twice(double x) { return 2 * x; }
double twice_fwd(double x, double dx) { (void)x; return 3 * dx; }
double twice_aug(double x) { return 2 * x; }
double twice_grad(double x, double dret) { (void)x; return 3 * dret; }
UMBRA_DERIVATIVE(twice, twice_fwd);
UMBRA_GRADIENT(twice, twice_aug, twice_grad);

double gain(double x) { return 2 * x; }
UMBRA_INACTIVE_FN(gain);

double fake_log1p(double x) { return x; }
UMBRA_FUNCTION_LIKE(fake_log1p, "log1p");

double f_rsqrt(double x) { return quick_rsqrt(x); }
double f_twice(double x) { return twice(x) * 1.0; }
double f_gain(double x) { return x * gain(x); }
double f_log(double x) { return fake_log1p(x); }

int main(void) {
  double x = 1.7;
  double exact = -0.5 / (x * sqrt(x));
  fd_check("rsqrt gradient (registered)", __enzyme_autodiff((void *)f_rsqrt, x), exact);
  fd_check("rsqrt derivative (registered)", __enzyme_fwddiff((void *)f_rsqrt, x, 1.0), exact);
  fd_check_exact("twice gradient (registered: 3)", __enzyme_autodiff((void *)f_twice, x), 3.0);
  fd_check_exact("twice derivative (registered: 3)", __enzyme_fwddiff((void *)f_twice, x, 1.0),
                 3.0);
  fd_check("gain inactive, gradient", __enzyme_autodiff((void *)f_gain, x), 2 * x);
  fd_check("gain inactive, derivative", __enzyme_fwddiff((void *)f_gain, x, 1.0), 2 * x);
  fd_check("fake_log1p gradient", __enzyme_autodiff((void *)f_log, x), 1 / (1 + x));
  fd_check("fake_log1p derivative", __enzyme_fwddiff((void *)f_log, x, 1.0), 1 / (1 + x));
  return fd_finish();
}
