// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CFLAGS: -std=c++17
// Enzyme's C++ interface, <enzyme/enzyme> (runtime/include/enzyme/enzyme): enzyme::autodiff in
// reverse mode (Active, Const, plain and Duplicated pointer arguments; with and without the
// primal), forward mode (a float's tangent, a pointer's shadow; Duplicated, DuplicatedNoNeed and
// Const returns), against finite differences. At -O0 the requests reach Umbra through the
// header's always-inline helpers, whose function argument is a local variable until mem2reg
// (the function holding the request is canonicalised first). Before: the header did not exist
// (Enzyme's ReverseMode/sugar.cpp, ForwardMode/sugar.cpp: "'enzyme/enzyme' file not found").
#include "fdcheck.h"
#include <enzyme/enzyme>
#include <math.h>

static double f3(double x, double y, int n) { return pow(x, n) * sin(y) + x * y; }
static void scale(const double *x, double *y, double k) {
  for (int i = 0; i < 3; i++)
    y[i] = k * x[i] * x[i];
}
static double norm2(const double *x) { return x[0] * x[0] + 2 * x[1] * x[1] + exp(x[2]); }

static double f3x(double x, void *c) { return f3(x, *(double *)c, 3); }
static double f3y(double y, void *c) { return f3(*(double *)c, y, 3); }
static double norm2_v(const double *x, void *c) {
  (void)c;
  return norm2(x);
}

int main(void) {
  double x = 0.7, y = 1.3;
  // Reverse: the adjoints of the Active arguments, in order.
  auto g = enzyme::autodiff<enzyme::Reverse>(f3, enzyme::Active<double>(x), enzyme::Active<double>(y),
                                             enzyme::Const<int>(3));
  fd_check("reverse d/dx", enzyme::get<0>(enzyme::get<0>(g)), fd_deriv1(f3x, &y, x));
  fd_check("reverse d/dy", enzyme::get<1>(enzyme::get<0>(g)), fd_deriv1(f3y, &x, y));
  // With the primal, a plain (constant) argument, the return activity given.
  auto gp = enzyme::autodiff<enzyme::ReverseWithPrimal, enzyme::Active<double>>(
      f3, enzyme::Active<double>(x), y, 3);
  fd_check("reverse with primal d/dx", enzyme::get<0>(enzyme::get<0>(gp)), fd_deriv1(f3x, &y, x));
  fd_check("reverse with primal: value", enzyme::get<1>(gp), f3(x, y, 3));
  // A Duplicated pointer: the gradient arrives in the shadow.
  double v[3] = {0.2, -0.4, 0.9}, dv[3] = {0, 0, 0};
  enzyme::autodiff<enzyme::Reverse>(norm2, enzyme::Duplicated<const double *>(v, dv));
  double fdg[3];
  fd_grad(norm2_v, NULL, v, 3, fdg);
  fd_check_array("reverse gradient in the shadow", dv, fdg, 3);
  // Forward: a float's tangent; the return as tangent only, primal and tangent, primal only.
  auto t = enzyme::autodiff<enzyme::Forward>(f3, enzyme::Duplicated<double>(x, 1.0), y, 3);
  fd_check("forward d/dx", enzyme::get<0>(t), fd_deriv1(f3x, &y, x));
  auto tp = enzyme::autodiff<enzyme::Forward, enzyme::Duplicated<double>>(
      f3, enzyme::Const<double>(x), enzyme::Duplicated<double>(y, 1.0), enzyme::Const<int>(3));
  fd_check("forward (Duplicated return): value", enzyme::get<0>(tp), f3(x, y, 3));
  fd_check("forward (Duplicated return) d/dy", enzyme::get<1>(tp), fd_deriv1(f3y, &x, y));
  auto c = enzyme::autodiff<enzyme::Forward, enzyme::Const<double>>(f3, enzyme::Duplicated<double>(x, 1.0),
                                                                     y, 3);
  fd_check("forward (Const return): value", enzyme::get<0>(c), f3(x, y, 3));
  // Forward through pointers: the tangent of y = k x^2 along dx.
  double w[3] = {1, 2, 3}, dw[3] = {0.5, -1, 2}, out[3], dout[3];
  enzyme::autodiff<enzyme::Forward>(scale, enzyme::Duplicated<const double *>(w, dw),
                                    enzyme::Duplicated<double *>(out, dout), 1.5);
  for (int i = 0; i < 3; i++)
    fd_check("forward through pointers", dout[i], 1.5 * 2 * w[i] * dw[i]);
  return fd_finish();
}
