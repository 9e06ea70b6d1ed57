// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Data-dependent branches (if/else chains, phis, a select) evaluated in every
// region; the reverse sweep must take the branch the forward sweep took.
#include "fdcheck.h"

typedef struct {
  double a, b;
} two;
two __enzyme_autodiff_two(void *, ...);
#ifdef FD_SELFTEST
two __enzyme_autodiff_two(void *f, ...) { (void)f; two r = {0, 0}; return r; }
#endif

double br(double x, double y) {
  double z;
  if (x > y)
    z = x * x - 3.0 * y;
  else if (x < -1.0)
    z = sin(x) * y;
  else
    z = x * y * y + exp(x);
  if (z > 0)
    z = sqrt(z) + z;
  else
    z = -z * z;
  double m = x * y > 0.5 ? x * y : 0.5 * y; // select
  return z * m + (y < 0 ? y * y * y : cos(y));
}

static double br_at(const double *p, void *ctx) { (void)ctx; return br(p[0], p[1]); }

int main(void) {
  // points in different regions, all well away from the switch points
  double pts[][2] = {{2.0, 0.5}, {3.0, 2.0}, {-2.0, 1.5}, {-2.5, -1.0},
                     {0.3, 1.2}, {-0.5, 0.8}, {0.5, -0.2}, {1.5, 1.75}};
  for (unsigned i = 0; i < sizeof pts / sizeof pts[0]; i++) {
    char name[64];
    double fd[2];
    fd_grad(br_at, NULL, pts[i], 2, fd);
    two r = __enzyme_autodiff_two((void *)br, pts[i][0], pts[i][1]);
    snprintf(name, sizeof name, "br(%g,%g) d/dx", pts[i][0], pts[i][1]);
    fd_check(name, r.a, fd[0]);
    snprintf(name, sizeof name, "br(%g,%g) d/dy", pts[i][0], pts[i][1]);
    fd_check(name, r.b, fd[1]);
  }
  return fd_finish();
}
