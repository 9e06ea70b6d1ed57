// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// A union { double d; uint64_t u; } used to clear the sign bit (a hand-written fabs). The
// tangent of the integer 'and' is the float tangent times the sign of x (issue 11, case 2). At
// -O0 the integer and survives (LLVM rewrites it to fabs from -O1 on); forward mode refused it.
#include <stdint.h>
#include "fdcheck.h"

double __enzyme_fwddiff(void *, ...);

static double my_fabs(double x) {
  union {
    double d;
    uint64_t u;
  } v;
  v.d = x;
  v.u &= 0x7fffffffffffffffull;
  return v.d;
}

double f(double x) { return my_fabs(x) * x + x; }

static double f_at(const double *p, void *ctx) {
  (void)ctx;
  return f(p[0]);
}

int main(void) {
  for (int k = 0; k < 2; k++) {
    double x = k ? 1.5 : -1.5;
    double ad = __enzyme_fwddiff((void *)f, x, 1.0);
    double fd = fd_dir(f_at, NULL, (double[]){x}, (double[]){1.0}, 1);
    fd_check(k ? "df/dx at 1.5" : "df/dx at -1.5", ad, fd);
  }
  return fd_finish();
}
