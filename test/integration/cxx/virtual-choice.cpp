// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Virtual calls on an object chosen at run time between local objects of known classes (the
// optimiser folds the vtable loads into a select or phi of the two methods), and calls through
// a local array or std::array of function pointers (a local copy of a constant table; at -O0
// std::array's elements are reached through operator[], a function returning their address).
// Both modes against finite differences. Regression: at -O0 "copies pointers from memory
// without a shadow" (the local table's initialisation), then "the callee is not known at
// compile time".
#include <array>
#include "fdcheck.h"

extern "C" {
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const, enzyme_out;
}

struct Term {
  virtual ~Term() {}
  virtual double at(double v) const = 0;
};
struct Quadratic : Term {
  double k;
  explicit Quadratic(double k) : k(k) {}
  double at(double v) const override { return k * v * v; }
};
struct Damped : Term {
  double at(double v) const override { return sin(v) * exp(-0.25 * v); }
};

enum { N = 5 };
volatile int seed = 0;

// The object is one of two locals, picked per element.
static double mixed(const double *x, int n) {
  Quadratic q(0.75);
  Damped d;
  double s = 0;
  for (int i = 0; i < n; i++) {
    const Term &t = (i + seed) % 2 ? static_cast<const Term &>(q) : d;
    s += t.at(x[i]) * (i + 1);
  }
  return s;
}
static double mixed_at(const double *x, void *) { return mixed(x, N); }

// The same through a pointer set on different paths.
static double branches(const double *x, int n) {
  Quadratic q(1.25);
  Damped d;
  double s = 0;
  for (int i = 0; i < n; i++) {
    const Term *t;
    if ((i + seed) % 3 == 0)
      t = &d;
    else
      t = &q;
    s += t->at(x[i]) * x[(i + 1) % n];
  }
  return s;
}
static double branches_at(const double *x, void *) { return branches(x, N); }

// An array of function pointers, local to the function.
static double square(double v) { return v * v; }
static double softplus(double v) { return log1p(exp(v)); }
static double table(const double *x, int n) {
  double (*ops[3])(double) = {square, softplus, cos};
  double s = 0;
  for (int i = 0; i < n; i++)
    s += ops[(i + seed) % 3](x[i]) * (i + 2);
  return s;
}
static double table_at(const double *x, void *) { return table(x, N); }

// The same in a std::array.
static double std_array(const double *x, int n) {
  std::array<double (*)(double), 3> ops = {softplus, cos, square};
  double s = 0;
  for (int i = 0; i < n; i++)
    s += ops[(i + seed) % 3](x[i]) * x[(n - 1 - i)];
  return s;
}
static double std_array_at(const double *x, void *) { return std_array(x, N); }

// The request needs the function itself, so the check is a macro.
#define CHECK(name, f, f_at)                                                               \
  do {                                                                                     \
    double x[N] = {0.5, -1.0, 2.0, 0.25, 1.5}, dx[N] = {0}, g[N];                          \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, (int)N);                 \
    fd_grad(f_at, nullptr, x, N, g);                                                       \
    fd_check_array(name " reverse", dx, g, N);                                             \
    for (int k = 0; k < N; k++) {                                                          \
      double t[N] = {0};                                                                   \
      t[k] = 1;                                                                            \
      fd_check(name " forward",                                                            \
               __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, (int)N), g[k]); \
    }                                                                                      \
  } while (0)

int main() {
  CHECK("virtual call on a chosen object", mixed, mixed_at);
  CHECK("virtual call on an object set on branches", branches, branches_at);
  CHECK("local array of functions", table, table_at);
  CHECK("local std::array of functions", std_array, std_array_at);
  return fd_finish();
}
