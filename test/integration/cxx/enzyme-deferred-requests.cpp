// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Enzyme's deferred requests (__enzyme_autodiff_deferred, __enzyme_fwddiff_deferred), which
// Enzyme differentiates late in its pipeline for GPU and Julia code, are the plain requests to
// Umbra: C declarations and C++ templates alike.
#include "fdcheck.h"

int enzyme_dup, enzyme_const, enzyme_out;

template <typename R, typename... T> R __enzyme_autodiff_deferred(void *, T...);
template <typename R, typename... T> R __enzyme_fwddiff_deferred(void *, T...);
extern "C" double __enzyme_autodiff_deferred_c(void *, ...) asm("__enzyme_autodiff_deferred");

static double sq_sin(double x) { return x * x * sin(x); }
static double sq_sin_at(double x, void *) { return sq_sin(x); }

static void sumsq(const double *x, double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i] * cos(x[i]);
  *y = s;
}
enum { N = 3 };
static double sumsq_at(const double *x, void *) {
  double y;
  sumsq(x, &y, N);
  return y;
}

int main() {
  double x = 0.8, fd = fd_deriv1(sq_sin_at, nullptr, x);
  fd_check("autodiff_deferred<double>", __enzyme_autodiff_deferred<double>((void *)sq_sin, x),
           fd);
  fd_check("C autodiff_deferred", __enzyme_autodiff_deferred_c((void *)sq_sin, x), fd);
  fd_check("fwddiff_deferred<double>",
           __enzyme_fwddiff_deferred<double>((void *)sq_sin, enzyme_dup, x, 1.0), fd);

  double xs[N] = {0.5, -1.0, 2.0}, dxs[N] = {0}, y = 0, dy = 1.0, g[N];
  __enzyme_autodiff_deferred<void>((void *)sumsq, enzyme_dup, xs, dxs, enzyme_dup, &y, &dy,
                                   enzyme_const, (int)N);
  fd_grad(sumsq_at, nullptr, xs, N, g);
  fd_check_array("autodiff_deferred<void> dx", dxs, g, N);
  return fd_finish();
}
