// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Under AddressSanitizer, which wraps each registration global and string as { original,
// redzone }: the rules are read through the wrapper (before: "malformed registration
// '__enzyme_register_derivative_280': entry 1 is not a function").
// RUN: env EXTRA_CFLAGS=-fsanitize=address EXTRA_LDFLAGS=-fsanitize=address %exec-test %s driver 0 %t
// RUN: env EXTRA_CFLAGS=-fsanitize=address EXTRA_LDFLAGS=-fsanitize=address %exec-test %s driver 2 %t
// RUN: env EXTRA_CFLAGS=-fsanitize=address EXTRA_LDFLAGS=-fsanitize=address %exec-test %s plugin 2 %t
// The rules' functions are noinline and called: no warning that they were inlined (the
// warnings that log_value drops derivatives are expected: it is declared inactive on purpose).
// RUN: %clang -O2 -g -I %runtime-include -I %testinc -c -emit-llvm %s -o %t.nowarn.bc
// RUN: %umbra %t.nowarn.bc -o %t.nowarn.o 2>&1 | FileCheck --allow-empty --check-prefix=NOWARN %s
// NOWARN-NOT: no calls to it remain
// User rules from source, in both modes: a registered forward derivative and gradient (with
// and without a tape), a function-like mapping onto a built-in rule, an inactive logging
// function, and an inactive global that receives a differentiable value. Each user function's
// body hides its computation behind an indirect call, which Umbra cannot differentiate: the
// test only passes if the rules are used instead of the bodies.
#include "fdcheck.h"
#include "umbra.h"
#include <stdlib.h>

static double (*volatile sqrt_impl)(double) = sqrt;
static double (*volatile log1p_impl)(double) = log1p;

// sqrt with a registered derivative and a tape-free gradient.
__attribute__((noinline)) double my_sqrt(double x) { return sqrt_impl(x); }
double my_sqrt_fwd(double x, double dx) { return dx / (2 * sqrt(x)); }
double my_sqrt_aug(double x) { return sqrt(x); }
double my_sqrt_grad(double x, double dret) { return dret / (2 * sqrt(x)); }
UMBRA_DERIVATIVE(my_sqrt, my_sqrt_fwd);
UMBRA_GRADIENT(my_sqrt, my_sqrt_aug, my_sqrt_grad);

// *y = x[0]^3 * s through pointers, with a tape holding x[0] (x may change before the adjoint).
__attribute__((noinline)) void cube_into(double *y, const double *x, double s) {
  *y = sqrt_impl(x[0] * x[0]) * x[0] * x[0] * s;
}
void cube_into_fwd(double *y, double *dy, const double *x, const double *dx, double s,
                   double ds) {
  *y = x[0] * x[0] * x[0] * s;
  *dy = 3 * x[0] * x[0] * s * dx[0] + x[0] * x[0] * x[0] * ds;
}
void *cube_into_aug(double *y, double *dy, const double *x, const double *dx, double s) {
  (void)dy, (void)dx;
  double *tape = malloc(2 * sizeof(double));
  tape[0] = x[0];
  tape[1] = s;
  *y = x[0] * x[0] * x[0] * s;
  return tape;
}
double cube_into_grad(double *y, double *dy, const double *x, double *dx, double s,
                      void *tape) {
  (void)y, (void)x, (void)s;
  double *t = tape;
  double x0 = t[0], s0 = t[1];
  dx[0] += 3 * x0 * x0 * s0 * *dy;
  double ds = x0 * x0 * x0 * *dy;
  *dy = 0; // *y was overwritten: its adjoint is consumed
  free(tape);
  return ds;
}
UMBRA_DERIVATIVE(cube_into, cube_into_fwd);
UMBRA_GRADIENT(cube_into, cube_into_aug, cube_into_grad);

// Differentiated as log1p by the built-in rule.
__attribute__((noinline)) double my_log1p(double x) { return log1p_impl(x); }
UMBRA_FUNCTION_LIKE(my_log1p, "log1p");

// Logging: records values in a plain global, through an indirect call. Inactive.
static double logged[64];
static int nlogged;
static void (*volatile sink)(double);
static void keep(double v) { logged[nlogged++ % 64] = v; }
__attribute__((noinline)) void log_value(double v) {
  sink = keep;
  sink(v);
}
UMBRA_INACTIVE_FN(log_value);

__attribute__((annotate("umbra_inactive"))) double last_result;

__attribute__((noinline)) double f(double *x) {
  double y;
  log_value(x[0]);
  cube_into(&y, &x[2], x[3]);
  x[2] = 0.5; // overwrite the input the gradient needs: the tape must hold it
  double s = my_sqrt(x[0]) * x[1] + y + my_log1p(x[1] * x[3]);
  log_value(s);
  last_result = s;
  return s;
}

enum { N = 4 };
static const double x0[N] = {1.3, 0.7, 1.1, 0.4};

static double f_at(const double *p, void *ctx) {
  (void)ctx;
  double x[N];
  for (int i = 0; i < N; i++) x[i] = p[i];
  return f(x);
}

int main(void) {
  double fd[N];
  fd_grad(f_at, NULL, x0, N, fd);
  // Reverse mode: the gradient of the input values.
  double x[N], dx[N] = {0};
  for (int i = 0; i < N; i++) x[i] = x0[i];
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  fd_check_array("grad", dx, fd, N);
  // Forward mode: one direction per input.
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1;
    for (int i = 0; i < N; i++) x[i] = x0[i];
    double df = __enzyme_fwddiff((void *)f, enzyme_dup, x, t);
    fd_check("tangent", df, fd[k]);
  }
  return fd_finish();
}
