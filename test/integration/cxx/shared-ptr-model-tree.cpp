// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// A tree of polymorphic models held by std::shared_ptr: a sum holds shared_ptrs to further
// models, so destroying it releases them through the control blocks' virtual `_M_dispose`, and
// each control block destroys its model through a virtual destructor. Umbra took every function
// of a call's type in any vtable as a candidate, so `_M_dispose` reached the models'
// destructors and the destructors reached the control blocks': from -O1 on the type analysis
// took a control block for the model 16 bytes into it, and the compile ran for minutes. A call
// now reaches only the functions in its vtable slot. Both modes against finite differences,
// for a single model and for the tree.
#include "fdcheck.h"
#include "umbra.h"
#include <memory>

enum { N = 4 };

struct Model {
  virtual ~Model() = default;
  virtual double eval(double t, const double *p) const = 0;
};
struct Exponential : Model {
  double eval(double t, const double *p) const override { return p[0] * exp(-p[1] * t); }
};
struct Oscillator : Model {
  double omega;
  explicit Oscillator(double w) : omega(w) {}
  double eval(double t, const double *p) const override { return p[2] * cos(omega * t + p[3]); }
};
struct Sum : Model {
  std::shared_ptr<Model> a, b;
  Sum(std::shared_ptr<Model> a, std::shared_ptr<Model> b) : a(std::move(a)), b(std::move(b)) {}
  double eval(double t, const double *p) const override { return a->eval(t, p) + b->eval(t, p); }
};

static std::shared_ptr<Model> make_model(int kind) {
  auto e = std::make_shared<Exponential>();
  if (kind == 0)
    return e;
  return std::make_shared<Sum>(e, std::make_shared<Oscillator>(1.7));
}

extern "C" __attribute__((noinline)) double misfit(const double *p, int kind) {
  std::shared_ptr<Model> m = make_model(kind);
  std::shared_ptr<const Model> view = m;
  double s = 0;
  for (int i = 0; i < 12; i++) {
    double t = 0.25 * i;
    double r = view->eval(t, p) - (2.0 * exp(-0.5 * t) + 0.3 * sin(t));
    s += r * r;
  }
  return s + (m.use_count() == 2 ? 0.01 * p[0] * p[0] : 0.0);
}

static double at(const double *p, void *c) { return misfit(p, *(int *)c); }

int main() {
  for (int kind = 0; kind < 2; kind++) {
    double x[N] = {1.5, 0.4, 0.2, 0.1}, dx[N] = {0}, g[N];
    fd_grad(at, &kind, x, N, g);
    __enzyme_autodiff((void *)misfit, enzyme_dup, x, dx, enzyme_const, kind);
    fd_check_array(kind ? "reverse, tree" : "reverse, one model", dx, g, N);
    for (int k = 0; k < N; k++) {
      double t[N] = {0};
      t[k] = 1;
      double d = __enzyme_fwddiff((void *)misfit, enzyme_dup, x, t, enzyme_const, kind);
      fd_check(kind ? "forward, tree" : "forward, one model", d, g[k]);
    }
  }
  return fd_finish();
}
