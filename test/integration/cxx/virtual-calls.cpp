// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Virtual calls through a base pointer: the target is loaded from a vtable, so Umbra derives
// the possible targets (the functions of the right type stored in the module's vtables) and
// dispatches on the loaded pointer. Two derived classes, chosen at run time from an integer
// the optimiser cannot see through; both modes against finite differences.
#include "fdcheck.h"
#include <math.h>

extern "C" {
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const, enzyme_out;
}

struct Shape {
  virtual ~Shape() {}
  virtual double eval(const double *x, int i) const = 0;
};
struct Square : Shape {
  double k;
  explicit Square(double k) : k(k) {}
  double eval(const double *x, int i) const override { return k * x[i] * x[i]; }
};
struct Wave : Shape {
  double eval(const double *x, int i) const override { return sin(x[i]) * exp(0.5 * x[i]); }
};

enum { N = 4 };
volatile int pick_seed = 1;

// Which shape handles element i: alternating, from a value the optimiser cannot fold.
__attribute__((noinline)) static const Shape *pick(const Shape *const *shapes, int i) {
  return shapes[(i + pick_seed) & 1];
}

// Scalar virtual calls, the objects local to the differentiated function.
static double total(const double *x, int n) {
  Square sq(1.5);
  Wave wave;
  const Shape *shapes[2] = {&sq, &wave};
  double s = 0;
  for (int i = 0; i < n; i++)
    s += pick(shapes, i)->eval(x, i) * (i + 1);
  return s;
}
static double total_at(const double *x, void *) { return total(x, N); }

// A double in, a double out, through a reference to the base class.
struct Scale {
  virtual double apply(double v) const { return 2 * v; }
  virtual ~Scale() {}
};
struct Cube : Scale {
  double apply(double v) const override { return v * v * v; }
};
__attribute__((noinline)) static const Scale &pick_scale(const Scale &a, const Scale &b, int i) {
  return ((i + pick_seed) & 1) ? a : b;
}
static double chain(double v) {
  Scale scale;
  Cube cube;
  for (int i = 0; i < 3; i++)
    v = pick_scale(cube, scale, i).apply(v) * 0.5 + cos(v);
  return v;
}

int main() {
  double x[N] = {0.5, -1.0, 2.0, 0.25}, dx[N] = {0}, g[N];
  __enzyme_autodiff((void *)total, enzyme_dup, x, dx, enzyme_const, (int)N);
  fd_grad(total_at, nullptr, x, N, g);
  fd_check_array("virtual eval reverse", dx, g, N);
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1;
    fd_check("virtual eval forward",
             __enzyme_fwddiff((void *)total, enzyme_dup, x, t, enzyme_const, (int)N), g[k]);
  }
  double v = 0.3;
  double fd = (chain(v + 1e-6) - chain(v - 1e-6)) / 2e-6;
  fd_check("virtual apply reverse", __enzyme_autodiff((void *)chain, v), fd);
  fd_check("virtual apply forward", __enzyme_fwddiff((void *)chain, v, 1.0), fd);
  return fd_finish();
}
