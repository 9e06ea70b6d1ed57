// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// A delay line in a std::deque, its history then sorted in a std::vector or a std::list, and
// events processed in time order from a std::priority_queue of pairs. The deque steps its node
// pointer through its map of node pointers, which the type analysis saw climb 8 bytes every
// few rounds in a level of its trees below the nodes' 512 bytes, where widening did not look:
// the analysis ended unsettled, and reverse mode refused the vector sort's 8-byte integer copy
// of a double at -O3. At -O0, with the list's code beside it, the analysis took the climb for
// callers' conflicts and split contexts until it ran out of rounds, and refused the priority
// queue's moves. Both modes against finite differences.
#include "fdcheck.h"
#include "umbra.h"
#include <algorithm>
#include <deque>
#include <list>
#include <queue>
#include <vector>

// y[t] = a y[t-1] + b tanh(y[t-3]) + u(t), the history in a deque; then its values sorted.
extern "C" __attribute__((noinline)) double delay_loop(const double *p, int steps) {
  std::deque<double> hist(3, p[2]);
  double y = p[2], J = 0;
  for (int t = 0; t < steps; t++) {
    double yd = hist.front();
    hist.pop_front();
    y = p[0] * y + p[1] * tanh(yd) + 0.1 * sin(0.3 * t);
    hist.push_back(y);
    J += y * y;
  }
  std::vector<double> q(hist.begin(), hist.end());
  q.insert(q.begin(), p[3] * y);
  std::sort(q.begin(), q.end());
  std::reverse(q.begin(), q.end());
  double w = 1;
  for (double v : q) {
    J += w * v;
    w *= 0.5;
  }
  return J;
}

// The same delay line, its history then sorted in a std::list. With the list's code in the
// module too, the analysis at -O0 took the deque iterator's climb for callers' conflicts and
// split contexts for it until it ran out of rounds.
extern "C" __attribute__((noinline)) double delay_list(const double *p, int steps) {
  std::deque<double> hist(3, p[2]);
  double y = p[2], J = 0;
  for (int t = 0; t < steps; t++) {
    double yd = hist.front();
    hist.pop_front();
    y = p[0] * y + p[1] * tanh(yd) + 0.1 * sin(0.3 * t);
    hist.push_back(y);
    J += y * y;
  }
  std::list<double> q(hist.begin(), hist.end());
  q.push_front(p[3] * y);
  q.sort();
  q.reverse();
  double w = 1;
  for (double v : q) {
    J += w * v;
    w *= 0.5;
  }
  return J;
}

// Events whose times depend on p, taken in time order: a decaying state they add to.
extern "C" __attribute__((noinline)) double events(const double *p, int n) {
  using Ev = std::pair<double, double>; // (time, weight)
  std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>> pq;
  for (int i = 0; i < n; i++)
    pq.push({p[i] * p[i] + 0.37 * i, cos(p[i])});
  double state = 1.0, tprev = 0, acc = 0;
  while (!pq.empty()) {
    auto [t, w] = pq.top();
    pq.pop();
    state *= exp(-0.2 * (t - tprev));
    state += w;
    acc += state * t;
    tprev = t;
  }
  return acc;
}

// Each request spelled out with its function (a loop over both would let the optimiser merge
// them into one request of a `select` of the two).
#define CHECK(name, f, N, ARG, ...)                                                          \
  do {                                                                                     \
    double x[N] = {__VA_ARGS__}, dx[N] = {0}, g[N];                                        \
    int arg = ARG;                                                                         \
    fd_grad(at_##f, &arg, x, N, g);                                                        \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, arg);                    \
    fd_check_array(name " reverse", dx, g, N);                                             \
    for (int j = 0; j < N; j++) {                                                          \
      double t[N] = {0};                                                                   \
      t[j] = 1;                                                                            \
      fd_check(name " forward", __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, arg), \
               g[j]);                                                                      \
    }                                                                                      \
  } while (0)

static double at_delay_loop(const double *p, void *c) { return delay_loop(p, *(int *)c); }
static double at_delay_list(const double *p, void *c) { return delay_list(p, *(int *)c); }
static double at_events(const double *p, void *c) { return events(p, *(int *)c); }

int main() {
  CHECK("deque", delay_loop, 4, 20, 0.6, 0.3, 0.5, 0.8);
  CHECK("deque, list", delay_list, 4, 20, 0.6, 0.3, 0.5, 0.8);
  CHECK("priority_queue", events, 5, 5, 0.5, -1.3, 2.0, 0.3, 1.1);
  return fd_finish();
}
