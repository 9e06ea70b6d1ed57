// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// Virtual calls under multiple and virtual inheritance. A class with two polymorphic bases has
// a second vtable (an address point further into its vtable, whose slots hold thunks that
// adjust `this`): a call through either base reaches the functions in its slot counted from
// every address point the constructors store, thunks included. A class with a virtual base is
// built through its VTT and a construction vtable (`_ZTT`, `_ZTC`), which hold vtable
// addresses as vtables do; Umbra refused the vtable pointers its constructors store from them
// ("has no shadow memory", at -O0 read through the VTT parameter of the base constructor):
// they are their own shadows now, as vtable addresses are. Both modes against finite
// differences.
#include "fdcheck.h"
#include "umbra.h"

enum { N = 3 };

struct Source {
  virtual ~Source() = default;
  virtual double value(const double *p) const = 0;
};
struct Weight {
  virtual ~Weight() = default;
  virtual double weight(const double *p) const { return 1.0 + 0.0 * p[0]; }
  virtual double scale(double v, const double *p) const = 0;
};
// Two polymorphic bases: `Weight`'s part sits 8 bytes in, with its own vtable pointer.
struct Both : Source, Weight {
  double c;
  explicit Both(double c) : c(c) {}
  double value(const double *p) const override { return c * p[0] * p[1]; }
  double weight(const double *p) const override { return exp(0.3 * p[2]); }
  double scale(double v, const double *p) const override { return v * p[1] + c; }
};
struct Plain : Weight {
  double scale(double v, const double *p) const override { return v * v * p[2]; }
};
// A virtual base: reached through the offset its vtable holds.
struct Base {
  double k = 0.5;
  virtual ~Base() = default;
  virtual double term(const double *p) const { return k * p[0]; }
};
struct Left : virtual Base {
  double term(const double *p) const override { return k * sin(p[1]) + p[0]; }
};
struct Diamond : Left, virtual Base {};

__attribute__((noinline)) double through_weight(const Weight &w, double v, const double *p) {
  return w.weight(p) * w.scale(v, p);
}
__attribute__((noinline)) double through_base(const Base &b, const double *p) { return b.term(p); }

extern "C" __attribute__((noinline)) double energy(const double *p, int kind) {
  Both both(0.7);
  Plain plain;
  Diamond d;
  const Source &s = both;
  const Weight &w = kind ? static_cast<const Weight &>(both) : static_cast<const Weight &>(plain);
  double v = s.value(p);
  return through_weight(w, v, p) + through_base(d, p) * p[2];
}

static double at(const double *p, void *c) { return energy(p, *(int *)c); }

int main() {
  for (int kind = 0; kind < 2; kind++) {
    double x[N] = {0.8, -0.6, 1.3}, dx[N] = {0}, g[N];
    fd_grad(at, &kind, x, N, g);
    __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, kind);
    fd_check_array(kind ? "reverse, both" : "reverse, plain", dx, g, N);
    for (int k = 0; k < N; k++) {
      double t[N] = {0};
      t[k] = 1;
      fd_check("forward", __enzyme_fwddiff((void *)energy, enzyme_dup, x, t, enzyme_const, kind), g[k]);
    }
  }
  return fd_finish();
}
