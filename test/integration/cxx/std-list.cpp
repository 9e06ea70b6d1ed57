// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// std::list of values with derivatives: nodes hooked in at both ends and in the middle, sorted
// (splices and merges of runs of nodes, lists swapped), reversed, one erased, then summed with
// weights by position. libstdc++ links nodes out of line (`_List_node_base::_M_hook`,
// `_M_unhook`, `_M_transfer`, `_M_reverse`, `swap`): Umbra refused them ("no derivative rule")
// before; their rules relink the shadow nodes alike. Both modes against finite differences.
#include "fdcheck.h"
#include "umbra.h"
#include <list>

enum { N = 4 };

extern "C" __attribute__((noinline)) double weighted(const double *p, int n) {
  std::list<double> q;
  for (int i = 0; i < n; i++) {
    double v = p[i % N] * (1.0 + 0.37 * i) - 0.9 * (i % 3);
    if (i % 2)
      q.push_back(v);
    else
      q.push_front(v * p[(i + 1) % N]);
  }
  auto mid = q.begin();
  std::advance(mid, n / 2);
  q.insert(mid, p[0] * p[1]);
  q.sort();
  q.reverse();
  q.erase(std::next(q.begin()));
  std::list<double> tail;
  tail.push_back(sin(p[2]));
  tail.push_back(p[3] * p[3]);
  q.splice(q.end(), tail);
  double s = 0, w = 1;
  for (double v : q) {
    s += w * v;
    w *= 0.7;
  }
  return s;
}

static double at(const double *p, void *c) { return weighted(p, *(int *)c); }

int main() {
  double x[N] = {1.3, -0.4, 0.8, 2.1}, dx[N] = {0}, g[N];
  int n = 9;
  fd_grad(at, &n, x, N, g);
  __enzyme_autodiff((void *)weighted, enzyme_dup, x, dx, enzyme_const, n);
  fd_check_array("reverse", dx, g, N);
  for (int k = 0; k < N; k++) {
    double t[N] = {0};
    t[k] = 1;
    fd_check("forward", __enzyme_fwddiff((void *)weighted, enzyme_dup, x, t, enzyme_const, n), g[k]);
  }
  return fd_finish();
}
