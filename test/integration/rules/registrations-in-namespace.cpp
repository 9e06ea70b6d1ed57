// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// umbra.h's registrations (UMBRA_DERIVATIVE, UMBRA_GRADIENT, UMBRA_FUNCTION_LIKE,
// UMBRA_INACTIVE_FN, UMBRA_INACTIVE_GLOBAL) written inside a C++ namespace: the registration
// globals' names are mangled there (`_ZN5model22__enzyme_inactivefn_...E`), and were not
// recognised (only names starting with the registration prefix were), so the rules were
// ignored: the bodies, which hide their computation behind an indirect call, were refused.
// Both modes against finite differences.
#include "fdcheck.h"
#include "umbra.h"

extern "C" {
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
}

namespace model {
static double (*volatile sqrt_impl)(double) = sqrt;
static double (*volatile log1p_impl)(double) = log1p;
__attribute__((noinline)) double my_sqrt(double x) { return sqrt_impl(x); }
double my_sqrt_fwd(double x, double dx) { return dx / (2 * sqrt(x)); }
double my_sqrt_aug(double x) { return sqrt(x); }
double my_sqrt_grad(double x, double dret) { return dret / (2 * sqrt(x)); }
UMBRA_DERIVATIVE(my_sqrt, my_sqrt_fwd);
UMBRA_GRADIENT(my_sqrt, my_sqrt_aug, my_sqrt_grad);

__attribute__((noinline)) double my_log1p(double x) { return log1p_impl(x); }
UMBRA_FUNCTION_LIKE(my_log1p, "log1p");

double history;
UMBRA_INACTIVE_GLOBAL(history);
static void (*volatile sink)(double) = nullptr;
__attribute__((noinline)) void log_value(double v) {
  if (sink)
    sink(v);
}
UMBRA_INACTIVE_FN(log_value);
} // namespace model

__attribute__((noinline)) double f(double x) {
  model::log_value(x);
  model::history = x; // inactive: the store keeps no derivative, and nothing reads it back
  return model::my_sqrt(x) * model::my_log1p(x);
}

static double f_at(double x, void *) { return f(x); }

int main() {
  double x = 1.7;
  double fd = fd_deriv1(f_at, nullptr, x);
  fd_check("gradient", __enzyme_autodiff((void *)f, x), fd);
  fd_check("tangent", __enzyme_fwddiff((void *)f, x, 1.0), fd);
  return fd_finish();
}
