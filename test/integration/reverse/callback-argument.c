// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Callbacks of unknown origin, as numerical C code passes them: a function pointer argument of
// an integrator called with two different models (so the dispatch among them runs), a pointer
// in a struct of options, `sin` passed as a callback (a rule), and a callback that calls back
// into the integrator (a nested integral: recursion through the dispatch), a choice between a
// function and an argument, and a pointer returned by another function. Umbra dispatches
// among the module's address-taken functions of the call's type. Both modes against finite
// differences.
#include "fdcheck.h"
#include <math.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef double (*model_t)(double, const double *);

// The trapezoid rule: `f` arrives as an argument.
__attribute__((noinline)) double integrate(model_t f, const double *p, double a, double b, int n) {
  double h = (b - a) / n, s = 0.5 * (f(a, p) + f(b, p));
  for (int i = 1; i < n; i++)
    s += f(a + i * h, p);
  return s * h;
}

static double gauss(double t, const double *p) { return p[0] * exp(-p[1] * t * t); }
static double wave(double t, const double *p) { return sin(p[1] * t) * p[2] + p[0] * t; }
// The inner integral of a double integral: calls back into the integrator.
static double inner(double t, const double *p) { return t * integrate(gauss, p, 0, t, 8); }

// Newton's method with the function and its slope in a struct of options.
struct options {
  double (*f)(double, const double *);
  double (*df)(double, const double *);
  int iterations;
};
static double cubic(double t, const double *p) { return t * t * t + p[0] * t - p[2]; }
static double cubic_slope(double t, const double *p) { return 3 * t * t + p[0]; }
__attribute__((noinline)) double solve(const struct options *o, const double *p, double t) {
  for (int i = 0; i < o->iterations; i++)
    t -= o->f(t, p) / o->df(t, p);
  return t;
}

// One argument `double (*)(double)`: `sin` has a rule, `cube` a body.
static double cube(double t) { return t * t * t; }
__attribute__((noinline)) double sum_of(double (*g)(double), const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += g(x[i]);
  return s;
}

// A choice between a known function and an argument, and a pointer returned by a function
// the optimiser cannot see through: both of unknown origin.
volatile int flip = 1;
__attribute__((noinline)) double (*pick_op(int k))(double) { return (k ^ flip) ? cube : sin; }
__attribute__((noinline)) double choose(double (*user)(double), int k, const double *x) {
  double (*g)(double) = k ? cube : user;
  return g(x[0]) * x[1] + pick_op(k)(x[2]);
}

enum { N = 3 };
static double two_models(const double *p, int n) {
  (void)n;
  return integrate(gauss, p, 0, 1, 20) * integrate(wave, p, -1, 2, 30);
}
static double nested(const double *p, int n) {
  (void)n;
  return integrate(inner, p, 0, 1, 10);
}
static double options_root(const double *p, int n) {
  (void)n;
  struct options o = {cubic, cubic_slope, 12};
  return solve(&o, p, 1.0) * p[1];
}
static double pointwise(const double *p, int n) {
  return sum_of(sin, p, n) + p[1] * sum_of(cube, p, n);
}
static double chosen(const double *p, int n) {
  (void)n;
  return choose(sin, 0, p) + choose(sin, 1, p) * p[0];
}
static double two_models_at(const double *p, void *c) { (void)c; return two_models(p, N); }
static double nested_at(const double *p, void *c) { (void)c; return nested(p, N); }
static double options_root_at(const double *p, void *c) { (void)c; return options_root(p, N); }
static double chosen_at(const double *p, void *c) { (void)c; return chosen(p, N); }
static double pointwise_at(const double *p, void *c) { (void)c; return pointwise(p, N); }

// The request needs the function itself, so the check is a macro.
#define CHECK(name, f, f_at)                                                               \
  do {                                                                                     \
    double p[N] = {0.7, 1.3, -0.4}, dp[N] = {0}, g[N];                                     \
    __enzyme_autodiff((void *)f, enzyme_dup, p, dp, enzyme_const, (int)N);                 \
    fd_grad(f_at, 0, p, N, g);                                                             \
    fd_check_array(name " reverse", dp, g, N);                                             \
    for (int k = 0; k < N; k++) {                                                          \
      double t[N] = {0};                                                                   \
      t[k] = 1;                                                                            \
      fd_check(name " forward",                                                            \
               __enzyme_fwddiff((void *)f, enzyme_dup, p, t, enzyme_const, (int)N), g[k]); \
    }                                                                                      \
  } while (0)

int main(void) {
  CHECK("two models", two_models, two_models_at);
  CHECK("nested", nested, nested_at);
  CHECK("options", options_root, options_root_at);
  CHECK("pointwise", pointwise, pointwise_at);
  CHECK("chosen", chosen, chosen_at);
  return fd_finish();
}
