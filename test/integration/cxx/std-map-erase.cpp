// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// std::map erase (std::_Rb_tree_rebalance_for_erase) and copies of trees, both modes against
// finite differences. A copy's nodes get their colours from integer stores, which are not
// mirrored into shadow memory: the rules copy the colours each rebalancing reads from the
// tree into the shadow tree first, so that further inserts and erases on the copy keep the
// shadow tree in the tree's shape (else iterating walks the shadow nodes in another order).
#include "fdcheck.h"
#include "umbra.h"
#include <map>
#include <set>

enum { N = 16, K = 64 };

// Inserts K entries, erases most of them in a scrambled order (by key and through
// iterators), re-inserts some, and sums what remains in key order with position weights.
extern "C" __attribute__((noinline)) double erased(const double *x) {
  std::map<int, double> m;
  for (int k = 0; k < K; k++) {
    int i = (k * 37) % K;
    m[i] = x[i % N] * (1 + 0.01 * i);
  }
  for (int k = 0; k < K; k += 3) m.erase((k * 13) % K);
  for (auto it = m.begin(); it != m.end();) {
    if (it->first % 5 == 1)
      it = m.erase(it);
    else
      ++it;
  }
  for (int k = 0; k < K; k += 7) m[(k * 29) % K] += x[k % N] * x[k % N];
  double r = 0, w = 1;
  for (auto &kv : m) {
    r += w * sin(kv.second);
    w += 0.25;
  }
  return r;
}

// A copy of a tree, grown and shrunk further, walked backwards (std::_Rb_tree_decrement) and
// forwards; and a multiset of values with duplicates, erased by value.
extern "C" __attribute__((noinline)) double copied(const double *x) {
  std::map<int, double> a;
  for (int i = 0; i < N; i++) a[(i * 5) % N] = x[i];
  std::map<int, double> b = a;
  for (int i = 0; i < N; i++) b[N + (i * 3) % N] = x[i] * x[(i + 1) % N];
  for (int i = 0; i < N; i += 2) b.erase((i * 7) % N);
  for (int i = 0; i < 2 * N; i += 3) b[100 + i] = 0.5 * x[i % N];
  double r = 0, w = 1;
  for (auto it = b.rbegin(); it != b.rend(); ++it) {
    r += w * it->second;
    w *= 0.95;
  }
  std::multiset<double> s;
  for (int i = 0; i < N; i++) {
    s.insert(x[i] * x[i]);
    s.insert(x[i] * x[i]);
  }
  for (int i = 0; i < N; i += 3) s.erase(s.find(x[i] * x[i]));
  w = 1;
  for (double v : s) {
    r += w * v;
    w += 0.5;
  }
  for (auto &kv : a) r += kv.second * kv.first;
  return r;
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
  // Distinct squares, well apart (the multiset keeps one order under the steps).
  for (int i = 0; i < N; i++) x[i] = 0.2 + 0.1 * ((i * 7) % N) + 0.003 * i;
  CHECK(erased);
  CHECK(copied);
  return fd_finish();
}
