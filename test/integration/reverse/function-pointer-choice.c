// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Indirect calls whose target is one of several known functions without being loaded straight
// from a global table: a select or a phi of functions, a select of loads from global tables,
// and a local copy of a table (initialised from a constant table by memcpy, or filled by
// stores). Umbra derives the possible targets and dispatches as for a table. Both modes against
// finite differences. Regression: each was "the callee is not known at compile time".
#include "fdcheck.h"
#include <math.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef double (*op_t)(double);
static double square(double v) { return v * v; }
static double softplus(double v) { return log1p(exp(v)); }
static double cube(double v) { return v * v * v; }
static double (*const unary[])(double) = {square, sin};
static double (*const more[])(double) = {softplus, cube};

enum { N = 5 };
volatile int seed = 0;

// A select of two functions.
static double chosen(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    op_t op = (i + seed) % 2 ? softplus : square;
    s += op(x[i]) * (i + 1);
  }
  return s;
}
static double chosen_at(const double *x, void *c) { (void)c; return chosen(x, N); }

// A phi of functions: the pointer set on different paths, called after they join.
__attribute__((noinline)) static op_t pick_phi(int i) {
  op_t op;
  if (i % 3 == 0)
    op = cube;
  else if (i % 3 == 1)
    op = softplus;
  else
    op = square;
  return op;
}
static double joined(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    op_t op;
    switch ((i + seed) % 3) {
    case 0: op = cube; break;
    case 1: op = softplus; break;
    default: op = sin; break;
    }
    s += op(x[i]) + pick_phi(i + seed)(x[(i + 1) % n]);
  }
  return s;
}
static double joined_at(const double *x, void *c) { (void)c; return joined(x, N); }

// A select between loads from two global tables.
static double two_tables(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    op_t op = (i + seed) % 2 ? unary[(i + seed) % 2] : more[(i + seed) % 2];
    s += op(x[i]) * x[(i + 2) % n];
  }
  return s;
}
static double two_tables_at(const double *x, void *c) { (void)c; return two_tables(x, N); }

// A local copy of a constant table (clang initialises it with memcpy from a constant).
static double local_copy(const double *x, int n) {
  op_t ops[4] = {square, sin, softplus, cube};
  double s = 0;
  for (int i = 0; i < n; i++)
    s += ops[(i + seed) % 4](x[i]) * (i + 2);
  return s;
}
static double local_copy_at(const double *x, void *c) { (void)c; return local_copy(x, N); }

// A local table filled by stores, one entry replaced later.
static double local_stores(const double *x, int n) {
  op_t ops[3];
  ops[0] = cube;
  ops[1] = square;
  ops[2] = sin;
  if (seed == 0)
    ops[1] = softplus;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += ops[(i + seed) % 3](x[i]) * x[(i + 1) % n];
  return s;
}
static double local_stores_at(const double *x, void *c) { (void)c; return local_stores(x, N); }

// The request needs the function itself, so the check is a macro.
#define CHECK(name, f, f_at)                                                               \
  do {                                                                                     \
    double x[N] = {0.5, -1.0, 2.0, 0.25, 1.5}, dx[N] = {0}, g[N];                          \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, (int)N);                 \
    fd_grad(f_at, 0, x, N, g);                                                             \
    fd_check_array(name " reverse", dx, g, N);                                             \
    for (int k = 0; k < N; k++) {                                                          \
      double t[N] = {0};                                                                   \
      t[k] = 1;                                                                            \
      fd_check(name " forward",                                                            \
               __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, (int)N), g[k]); \
    }                                                                                      \
  } while (0)

int main(void) {
  CHECK("select of functions", chosen, chosen_at);
  CHECK("phi of functions", joined, joined_at);
  CHECK("select of table loads", two_tables, two_tables_at);
  CHECK("local copy of a table", local_copy, local_copy_at);
  CHECK("local table filled by stores", local_stores, local_stores_at);
  return fd_finish();
}
