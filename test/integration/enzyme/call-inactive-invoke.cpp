// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// __enzyme_call_inactive inside a C++ try block: the call is an `invoke` (its callee may throw),
// which stays one, unwinding to the same handler, in the primal and in the derived code. The
// callee's result carries no derivative; the gradient is that of f with it frozen, checked
// against central finite differences. (A gradient whose run catches an exception stops with
// Umbra's run-time error: reverse mode differentiates the path without exceptions. The primal
// run below throws and catches.)
#include "fdcheck.h"
#include <stdexcept>

extern "C" double __enzyme_autodiff(void *, ...);
extern "C" double __enzyme_call_inactive(void *, ...);

static int thrown;
__attribute__((noinline)) double checked_cube(double x) {
  if (x > 2)
    throw std::runtime_error("too big");
  return x * x * x;
}

double f(double x) {
  double y;
  try {
    y = __enzyme_call_inactive((void *)checked_cube, x);
  } catch (const std::exception &) {
    thrown++;
    y = -1;
  }
  return sin(x) * x + y * x;
}

static double x0;
static double frozen(double x, void *) {
  double y0 = x0 > 2 ? -1 : x0 * x0 * x0;
  return sin(x) * x + y0 * x;
}

int main() {
  x0 = 0.8;
  double g = __enzyme_autodiff((void *)f, x0);
  fd_check("df/dx (reverse)", g, fd_deriv1(frozen, nullptr, x0));
  x0 = 1.3;
  g = __enzyme_autodiff((void *)f, x0);
  fd_check("df/dx at another point (reverse)", g, fd_deriv1(frozen, nullptr, x0));
  fd_check("f (primal, the callee throws)", f(2.5), sin(2.5) * 2.5 - 2.5);
  if (thrown != 1) {
    std::printf("FAIL the inactive callee threw %d times, not once\n", thrown);
    return 1;
  }
  return fd_finish();
}
