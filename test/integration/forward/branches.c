// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// Data-dependent branches (if/else chains and a phi), evaluated in each region.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

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
  return z;
}

static double br_at(const double *p, void *ctx) { (void)ctx; return br(p[0], p[1]); }

int main(void) {
  // points in different regions, all well away from the switch points
  double pts[][2] = {{2.0, 0.5}, {3.0, 2.0}, {-2.0, 1.5}, {-2.5, -1.0},
                     {0.3, 1.2}, {-0.5, 0.8}, {0.5, -0.2}};
  double dirs[][2] = {{1, 0}, {0, 1}, {0.6, -0.8}};
  for (unsigned i = 0; i < sizeof pts / sizeof pts[0]; i++)
    for (int d = 0; d < 3; d++) {
      double ad = __enzyme_fwddiff((void *)br, pts[i][0], dirs[d][0],
                                   pts[i][1], dirs[d][1]);
      char name[64];
      snprintf(name, sizeof name, "br(%g,%g) dir %d", pts[i][0], pts[i][1], d);
      fd_check(name, ad, fd_dir(br_at, NULL, pts[i], dirs[d], 2));
    }
  return fd_finish();
}
