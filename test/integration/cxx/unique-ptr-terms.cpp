// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Polymorphic terms held by std::unique_ptr in a std::vector, evaluated through virtual calls
// with a differentiable argument. From -O2 on, moving a unique_ptr into the vector stores its
// address as an integer (`ptrtoint`, then an i64 store into the vector's buffer); the pointer is
// loaded back from the buffer and called through. The objects hold only constants, yet each
// needs a shadow: the shadow of the buffer holds their shadows' addresses, which the derived
// virtual calls receive. Umbra used to find the objects primal-only (an address turned into an
// integer was followed only to `inttoptr`) and then refused ("has no shadow memory but flows
// where pointers with shadows are expected", calling the `new` "a constant argument or a
// mutable global").
#include "fdcheck.h"
#include <cmath>
#include <memory>
#include <vector>
extern int enzyme_dup, enzyme_const, enzyme_out;
extern "C" double __enzyme_autodiff(void *, ...);

struct Term {
  virtual ~Term() = default;
  virtual double eval(double x) const = 0;
};
struct Square : Term {
  double c;
  explicit Square(double c) : c(c) {}
  double eval(double x) const override { return c * x * x; }
};
struct Wave : Term {
  double w;
  explicit Wave(double w) : w(w) {}
  double eval(double x) const override { return std::sin(w * x); }
};

extern "C" double model(const double *x, int n) {
  std::vector<std::unique_ptr<Term>> terms;
  terms.push_back(std::make_unique<Square>(0.5));
  terms.push_back(std::make_unique<Wave>(1.3));
  double s = 0;
  for (int i = 0; i < n; i++)
    for (auto &t : terms)
      s += t->eval(x[i]) * (1 + 0.1 * i);
  return s;
}

static double f_at(const double *p, void *ctx) { return model(p, *(int *)ctx); }

int main() {
  int n = 6;
  double x[6], dx[6] = {0}, g[6];
  for (int i = 0; i < n; i++) x[i] = std::cos(2.1 * i) * 1.5;
  __enzyme_autodiff((void *)model, enzyme_dup, x, dx, enzyme_const, n);
  fd_grad(f_at, &n, x, n, g);
  fd_check_array("dx", dx, g, n);
  return fd_finish();
}
