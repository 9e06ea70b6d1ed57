// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// std::map and std::set (libstdc++'s red-black trees) in differentiated code, both modes
// against finite differences. Inserting calls std::_Rb_tree_insert_and_rebalance and
// iterating std::_Rb_tree_increment/decrement, all in libstdc++.so: the shadow tree of shadow
// nodes is rebalanced and walked by the same calls on the shadow pointers.
#include "fdcheck.h"
#include "umbra.h"
#include <map>
#include <set>

enum { N = 24 };

// A map with inactive keys, filled in a shuffled order (so inserts rebalance), iterated in
// key order; plus a lookup.
extern "C" __attribute__((noinline)) double by_int(const double *x) {
  std::map<int, double> m;
  for (int k = 0; k < N; k++) {
    int i = (k * 7) % N;
    m[i] = x[i] * x[i];
  }
  double r = 0;
  for (auto &kv : m) r += sin(kv.second) * (kv.first + 1);
  r += m.find(5)->second * x[3];
  // Backwards too: std::_Rb_tree_decrement.
  double w = 1;
  for (auto it = m.rbegin(); it != m.rend(); ++it) {
    r += w * it->second;
    w *= 0.9;
  }
  return r;
}

// A map keyed by an active computed value: its order depends on x, the derivative only on the
// values (the keys are compared, never differentiated through the comparison).
extern "C" __attribute__((noinline)) double by_double(const double *x) {
  std::map<double, double> m;
  for (int i = 0; i < N; i++) m.emplace(x[i] * 3.0 + 0.01 * i, cos(x[i]));
  double r = 0, w = 1;
  for (const auto &kv : m) {
    r += w * kv.first * kv.second;
    w += 0.5;
  }
  return r;
}

// A set of x's values summed in sorted order with position weights.
extern "C" __attribute__((noinline)) double sorted(const double *x) {
  std::set<double> s(x, x + N);
  double r = 0, w = 1;
  for (double v : s) {
    r += w * v * v;
    w += 1;
  }
  auto last = s.end();
  --last;
  return r + *last;
}

typedef double (*Fn)(const double *);

static double at(const double *p, void *c) { return ((Fn)c)(p); }

static void check(const char *name, Fn f, const double *x, const double *dx, double t) {
  double fd[N];
  char label[64];
  fd_grad(at, (void *)f, x, N, fd);
  snprintf(label, sizeof label, "%s gradient", name);
  fd_check_array(label, dx, fd, N);
  double jv = 0;
  for (int i = 0; i < N; i++) jv += fd[i] * (0.3 - 0.05 * i);
  snprintf(label, sizeof label, "%s tangent", name);
  fd_check(label, t, jv);
}

// The requests name the function directly (a request's first argument must be a function).
#define CHECK(f)                                                          \
  do {                                                                    \
    double dx[N] = {0}, v[N];                                             \
    for (int i = 0; i < N; i++) v[i] = 0.3 - 0.05 * i;                    \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx);                      \
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v);             \
    check(#f, f, x, dx, t);                                               \
  } while (0)

int main() {
  double x[N];
  // Distinct values in a scrambled order, well apart (the set and the double keys stay
  // ordered the same under the finite-difference steps).
  for (int i = 0; i < N; i++) x[i] = 0.1 * ((i * 11) % N) - 1.1 + 0.003 * i;
  CHECK(by_int);
  CHECK(by_double);
  CHECK(sorted);
  return fd_finish();
}
