// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// Enzyme's C++ interface: requests are recognised by name containment, so the documented
// variadic templates (mangled `_Z17__enzyme_autodiffIdJ...`) and plain C++ declarations
// without extern "C" (`_Z17__enzyme_autodiffPvd`) are requests. The templates' `int`
// parameters receive the markers as loaded values. The markers are ordinary C++ globals in
// the global namespace, which C++ does not mangle.
#include "fdcheck.h"

int enzyme_dup, enzyme_const, enzyme_out;

template <typename R, typename... T> R __enzyme_autodiff(void *, T...);
template <typename R, typename... T> R __enzyme_fwddiff(void *, T...);
// Overloads of the same name: mangled as plain C++ functions.
double __enzyme_autodiff(void *, double);
double __enzyme_fwddiff(void *, double, double);

static double sq_sin(double x) { return x * x * sin(x); }
static double sq_sin_at(double x, void *) { return sq_sin(x); }

// y = sum_i x[i]^2 * c, through memory.
static void sumsq(const double *x, double *y, int n, double c) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i] * c;
  *y = s;
}
enum { N = 4 };
static double sumsq_at(const double *x, void *) {
  double y;
  sumsq(x, &y, N, 1.5);
  return y;
}

static double two(double a, double b) { return a * exp(b) + b * b; }
static double two_a(double a, void *) { return two(a, 0.3); }

int main() {
  double x = 0.8;
  double fd = fd_deriv1(sq_sin_at, nullptr, x);
  fd_check("template autodiff<double>", __enzyme_autodiff<double>((void *)sq_sin, x), fd);
  fd_check("template autodiff with enzyme_out",
           __enzyme_autodiff<double>((void *)sq_sin, enzyme_out, x), fd);
  fd_check("plain C++ autodiff declaration", __enzyme_autodiff((void *)sq_sin, x), fd);
  fd_check("template fwddiff<double>",
           __enzyme_fwddiff<double>((void *)sq_sin, enzyme_dup, x, 1.0), fd);
  fd_check("plain C++ fwddiff declaration", __enzyme_fwddiff((void *)sq_sin, x, 1.0), fd);

  // Markers as loaded ints before pointer and integer arguments, void result.
  double xs[N] = {0.5, -1.0, 2.0, 0.25}, dxs[N] = {0}, y = 0, dy = 1.0, g[N];
  __enzyme_autodiff<void>((void *)sumsq, enzyme_dup, xs, dxs, enzyme_dup, &y, &dy,
                          enzyme_const, (int)N, enzyme_const, 1.5);
  fd_grad(sumsq_at, nullptr, xs, N, g);
  fd_check_array("template autodiff<void> dx", dxs, g, N);

  // A constant argument between active ones.
  fd_check("template autodiff, const second argument",
           __enzyme_autodiff<double>((void *)two, enzyme_out, 1.2, enzyme_const, 0.3),
           fd_deriv1(two_a, nullptr, 1.2));
  return fd_finish();
}
