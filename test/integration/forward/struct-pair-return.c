// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// A struct of two doubles returned by value (in registers on x86-64, i.e. an
// LLVM {double, double} return) from a helper, and passed by value to another;
// the request is on a double-returning caller.
#include "fdcheck.h"
#include "umbra.h"

typedef struct {
  double a, b;
} pair;

__attribute__((noinline)) pair to_polar(double x, double y) {
  pair p = {sqrt(x * x + y * y), atan2(y, x)};
  return p;
}

__attribute__((noinline)) pair rotate(pair p, double t) {
  pair q = {p.a * (1.0 + 0.1 * t), p.b + t};
  return q;
}

static pair make(double x) { pair p = {x, x * x}; return p; } // inlinable

double f(double x, double y, double t) {
  pair p = rotate(to_polar(x, y), t);
  pair m = make(p.b);
  return p.a * cos(p.b) + m.b * p.a + m.a;
}

static double f_at(const double *p, void *c) { (void)c; return f(p[0], p[1], p[2]); }

int main(void) {
  double p[3] = {0.8, -0.6, 0.35};
  double dirs[][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.5, 0.25, -0.75}};
  for (int d = 0; d < 4; d++) {
    char name[32];
    snprintf(name, sizeof name, "pair dir %d", d);
    double ad = __umbra_fwddiff((void *)f, p[0], dirs[d][0], p[1], dirs[d][1],
                                p[2], dirs[d][2]);
    fd_check(name, ad, fd_dir(f_at, NULL, p, dirs[d], 3));
  }
  return fd_finish();
}
