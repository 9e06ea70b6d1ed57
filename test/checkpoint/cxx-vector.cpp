// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s plugin 3 %t
// C++: a checkpointed loop over a std::vector's data, a step that is a template instance
// taking a struct of parameters by pointer, through <enzyme/checkpoint.h>; the gradient
// against finite differences.
#include <enzyme/checkpoint.h>

#include <vector>

#include "fdcheck.h"

extern "C" {
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
}

struct Params {
  double rate, coupling;
};

template <int N>
__attribute__((noinline)) void step(int64_t i, double *u, const Params *p) {
  double next[N];
  for (int k = 0; k < N; k++)
    next[k] = u[k] * (1 - p->rate) + p->coupling * std::sin(u[(k + 1) % N] + 0.01 * i);
  for (int k = 0; k < N; k++)
    u[k] = next[k];
}

static EnzymeCkptConfig config = {3, 0, nullptr, 0, nullptr};

static double checkpointed(double *u, const Params *p) {
  __enzyme_checkpoint_for((void *)step<5>, 0, 40, enzyme_scheme, &EnzymeCkptRevolve, &config,
                          enzyme_checkpoint_region, u, (int64_t)(5 * sizeof(double)), u, p);
  return u[0] + u[4] * u[2];
}

static double plain(double *u, const Params *p) {
  for (int64_t i = 0; i < 40; i++)
    step<5>(i, u, p);
  return u[0] + u[4] * u[2];
}

static double at(const double *x, void *) {
  std::vector<double> u(x, x + 5);
  Params p{x[5], x[6]};
  return plain(u.data(), &p);
}

int main() {
  double x[7] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.05, 0.3}, fd[7];
  fd_grad(at, nullptr, x, 7, fd);
  std::vector<double> u(x, x + 5), du(5, 0.0);
  Params p{x[5], x[6]}, dp{0, 0};
  __enzyme_autodiff((void *)checkpointed, enzyme_dup, u.data(), du.data(), enzyme_dup, &p, &dp);
  double g[7] = {du[0], du[1], du[2], du[3], du[4], dp.rate, dp.coupling};
  fd_check_array("gradient", g, fd, 7);
  return fd_finish();
}
