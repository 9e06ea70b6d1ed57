// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// std::shared_ptr to a polymorphic model inside the differentiated function: std::make_shared
// puts the reference counts in the block beside the object, so their atomic increments and
// decrements (`atomicrmw add` on an int) touch memory with a shadow. They are integer
// arithmetic, with no derivative; Umbra refused them as "an atomic read-modify-write ... on
// differentiable data" before. A second owner adds count traffic. Both modes against finite
// differences.
#include "fdcheck.h"
#include "umbra.h"
#include <memory>

enum { N = 2 };

struct Model {
  virtual ~Model() = default;
  virtual double eval(double t, const double *p) const = 0;
};
struct Exponential : Model {
  double eval(double t, const double *p) const override { return p[0] * exp(-p[1] * t); }
};

extern "C" __attribute__((noinline)) double misfit(const double *p) {
  std::shared_ptr<Model> m = std::make_shared<Exponential>();
  std::shared_ptr<const Model> view = m;
  double s = 0;
  for (int i = 0; i < 12; i++) {
    double r = view->eval(0.25 * i, p) - (2.0 * exp(-0.5 * 0.25 * i));
    s += r * r;
  }
  return s + (m.use_count() == 2 ? 0.01 * p[0] * p[0] : 0.0);
}

static double at(const double *p, void *c) {
  (void)c;
  return misfit(p);
}

int main() {
  double x[N] = {1.5, 0.4}, dx[N] = {0}, g[N];
  fd_grad(at, 0, x, N, g);
  __enzyme_autodiff((void *)misfit, enzyme_dup, x, dx);
  fd_check_array("reverse", dx, g, N);
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1;
    fd_check("forward", __enzyme_fwddiff((void *)misfit, enzyme_dup, x, t), g[k]);
  }
  return fd_finish();
}
