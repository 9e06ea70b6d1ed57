// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CLANG-PLUGIN
// Global shadows in C++: a static data member given its shadow in the class (the attribute on
// the declaration, the definition outside), the C++11 spelling on a namespace variable, and
// umbra.h's UMBRA_SHADOW registration, which needs no plugin. Checked against finite
// differences in the input and in the globals, in both modes.
#include "fdcheck.h"
#include "umbra.h"

struct Model {
  static double d_rate;
  __attribute__((enzyme_shadow(d_rate))) static double rate;
  static double eval(double x);
};
double Model::d_rate = 0;
double Model::rate = 0.8;

namespace cfg {
double d_bias = 0;
[[enzyme_shadow(d_bias)]] double bias = 0.25;
double d_gain = 0;
double gain = 3.0;
UMBRA_SHADOW(gain, d_gain);
} // namespace cfg

__attribute__((noinline)) double Model::eval(double x) {
  return cfg::gain * std::exp(-rate * x) + cfg::bias * x * x;
}

static double f(double x) { return Model::eval(x) * x; }

static double with_params(const double *p, void *ctx) {
  double x = *static_cast<double *>(ctx);
  double keep[3] = {Model::rate, cfg::bias, cfg::gain};
  Model::rate = p[0], cfg::bias = p[1], cfg::gain = p[2];
  double y = f(x);
  Model::rate = keep[0], cfg::bias = keep[1], cfg::gain = keep[2];
  return y;
}

static double with_input(double x, void *) { return f(x); }

int main() {
  double x = 1.3;
  double p[3] = {Model::rate, cfg::bias, cfg::gain};
  double fd_p[3];
  fd_grad(with_params, &x, p, 3, fd_p);
  double fd_x = fd_deriv1(with_input, nullptr, x);

  double dx = __enzyme_autodiff((void *)f, enzyme_out, x);
  fd_check("grad x", dx, fd_x);
  double got[3] = {Model::d_rate, cfg::d_bias, cfg::d_gain};
  fd_check_array("grad globals", got, fd_p, 3);

  Model::d_rate = 1, cfg::d_bias = -2, cfg::d_gain = 0.5;
  double dir[3] = {1, -2, 0.5};
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, 0.0);
  fd_check("tangent globals", t, fd_dir(with_params, &x, p, dir, 3));
  return fd_finish();
}
