// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// Exceptions in differentiated C++ (default exception settings): std::vector growth calls
// operator new through `invoke`, a try/catch around the computation, a request that is itself
// an invoke. Regression: the adjoint skipped an invoke terminating its block (no adjoint of the
// call, tape out of step: segfault).
#include <numeric>
#include <stdexcept>
#include <vector>
#include "fdcheck.h"

extern "C" {
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const, enzyme_out;
}

enum { N = 5 };

// Squares pushed into a vector, then summed.
static double sumsq(const double *x, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; i++)
    v.push_back(x[i] * x[i] + sin(x[i]));
  return std::accumulate(v.begin(), v.end(), 0.0);
}
static double sumsq_at(const double *x, void *) { return sumsq(x, N); }

// A try/catch around the computation; nothing is thrown.
static double guarded(const double *x, int n) {
  try {
    std::vector<double> v;
    for (int i = 0; i < n; i++)
      v.push_back(x[i]);
    if (v.size() > 100)
      throw std::domain_error("too long");
    double s = 0;
    for (double e : v)
      s += e * exp(e);
    return s;
  } catch (const std::domain_error &) {
    return -1;
  }
}
static double guarded_at(const double *x, void *) { return guarded(x, N); }

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
  CHECK("vector push_back + accumulate", sumsq, sumsq_at);
  CHECK("try/catch around", guarded, guarded_at);
  // A request inside try: the request itself is an invoke.
  try {
    double x[N] = {0.5, -1.0, 2.0, 0.25, 1.5}, dx[N] = {0}, g[N];
    std::vector<double> keep(3, 1.0); // a cleanup, so the request is an invoke
    __enzyme_autodiff((void *)sumsq, enzyme_dup, x, dx, enzyme_const, (int)N);
    fd_grad(sumsq_at, nullptr, x, N, g);
    fd_check_array("request inside try", dx, g, N);
    double t[N] = {1, 0, 0, 0, 0};
    fd_check("forward request inside try",
             __enzyme_fwddiff((void *)sumsq, enzyme_dup, x, t, enzyme_const, (int)N) + keep[0] - 1,
             g[0]);
  } catch (const std::exception &e) {
    printf("FAIL unexpected exception: %s\n", e.what());
    return 1;
  }
  return fd_finish();
}
