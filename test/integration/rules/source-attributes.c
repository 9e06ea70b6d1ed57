// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// EXEC-CLANG-PLUGIN
// The clang plugin alone, as Enzyme's -fplugin=ClangEnzyme-22.so: it loads the pass plugin.
// RUN: %clang -O2 -g -I %testinc -I %runtime-include -fplugin=%clang-plugin %s -lm -o %t.alone
// RUN: %t.alone
// The unoptimised flavour (-disable-llvm-passes), then the driver at -O2.
// RUN: %clang -O1 -Xclang -disable-llvm-passes -g -I %testinc -I %runtime-include -fplugin=%clang-plugin -c -emit-llvm %s -o %t.tbaa.bc
// RUN: %umbra -O2 %t.tbaa.bc -o %t.tbaa.o
// RUN: %clang %t.tbaa.o -lm -o %t.tbaa
// RUN: %t.tbaa
// Without the plugin clang drops the attributes, and says so: the only sign of it.
// RUN: %clang -O0 -I %testinc -I %runtime-include -c -emit-llvm %s -o /dev/null 2>&1 | FileCheck --check-prefix=PLAIN %s
// PLAIN: warning: unknown attribute 'enzyme_function_like' ignored
//
// Enzyme's source attributes, through Umbra's clang plugin: a function-like function whose
// body Umbra cannot differentiate (an indirect call), so the gradient is only right if the
// built-in rule replaces it; inactive functions, defined here and only declared here (a libm
// function), whose derivatives must be dropped; an inactive logger that Umbra could not
// differentiate either; and the Umbra and C23 spellings.
#include "fdcheck.h"
#include "umbra.h"

static double (*volatile log1p_impl)(double) = log1p;
static double (*volatile exp_impl)(double) = exp;
static void (*volatile sink)(double);

__attribute__((enzyme_function_like("log1p"))) double my_log1p(double x) {
  return log1p_impl(x);
}

[[umbra_function_like("exp")]] double my_exp(double x) { return exp_impl(x); }

// Contributes 2x to f's value but nothing to its derivative.
__attribute__((enzyme_inactive)) double hint(double x) { return 2 * x; }

// Declared only (libm defines it): inactive all the same.
double cbrt(double) __attribute__((enzyme_inactive));

static double logged;
static void keep(double v) { logged = v; }
[[enzyme::inactive]] void log_value(double v) {
  sink = keep;
  sink(v);
}

__attribute__((umbra_inactive)) double last;

double f(const double *x) {
  double s = my_log1p(x[0] * x[1]) + my_exp(x[1]) * x[0] + hint(x[0]) + cbrt(x[1]);
  log_value(s);
  last = s;
  return s;
}

// f without its inactive parts: what the derivative is of.
static double active_part(const double *p, void *ctx) {
  (void)ctx;
  return log1p(p[0] * p[1]) + exp(p[1]) * p[0];
}

int main(void) {
  enum { N = 2 };
  const double x0[N] = {0.7, 1.3};
  double fd[N];
  fd_grad(active_part, NULL, x0, N, fd);
  double x[N] = {x0[0], x0[1]}, dx[N] = {0, 0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  fd_check_array("grad", dx, fd, N);
  for (int k = 0; k < N; k++) {
    double t[N] = {0, 0};
    t[k] = 1;
    fd_check("tangent", __enzyme_fwddiff((void *)f, enzyme_dup, x, t), fd[k]);
  }
  // The primal still ran the inactive functions.
  fd_check("logged", logged, active_part(x0, NULL) + 2 * x0[0] + cbrt(x0[1]));
  return fd_finish();
}
