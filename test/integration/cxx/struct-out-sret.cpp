// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// A C++ request declared, as in Enzyme's sret.cpp, with a fixed prototype returning a struct
// holding an array of the adjoints (returned through sret; the name is mangled).
#include "fdcheck.h"

struct Gradient {
  double df[3];
};
extern Gradient __enzyme_autodiff(void *, double, double, double);
#ifdef FD_SELFTEST
Gradient __enzyme_autodiff(void *, double, double, double) { return Gradient{{0, 0, 0}}; }
#endif

double myfunction(double x, double y, double z) { return x * y * z + std::log(x + y * y); }

static double at(const double *p, void *) { return myfunction(p[0], p[1], p[2]); }

int main() {
  double p[3] = {3, 4, 5}, fd[3];
  fd_grad(at, nullptr, p, 3, fd);
  Gradient g = __enzyme_autodiff((void *)myfunction, p[0], p[1], p[2]);
  fd_check_array("grad", g.df, fd, 3);
  return fd_finish();
}
