// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// The `out` adjoints returned in a struct whose floats are nested, one per `out` argument in
// order: Enzyme's `struct { double df[3]; }` (through sret, as in Enzyme's sret.cpp), and a
// struct mixing a scalar, an inner struct and an array. Before: "declared to return
// { [3 x double] }, but ... has 3 'out' (active) argument(s); declare it to return a struct of
// 3 floating-point fields".
#include "fdcheck.h"

typedef struct {
  double df[3];
} gradient3;
typedef struct {
  double a;
  struct {
    double b, c;
  } in;
  double d[2];
} gradient5;
gradient3 __enzyme_autodiff_g3(void *, ...);
gradient5 __enzyme_autodiff_g5(void *, ...);
#ifdef FD_SELFTEST
gradient3 __enzyme_autodiff_g3(void *f, ...) { (void)f; gradient3 r = {{0}}; return r; }
gradient5 __enzyme_autodiff_g5(void *f, ...) { (void)f; gradient5 r = {0}; return r; }
#endif

double f3(double x, double y, double z) { return x * y * z + sin(x * z); }
double f5(double a, double b, double c, double d, double e) {
  return a * b - c * exp(0.3 * d) + e * e * a + cos(b * c);
}

static double f3_at(const double *p, void *c) { (void)c; return f3(p[0], p[1], p[2]); }
static double f5_at(const double *p, void *c) {
  (void)c;
  return f5(p[0], p[1], p[2], p[3], p[4]);
}

int main(void) {
  double p[5] = {0.8, -1.3, 1.6, 0.45, 0.7}, fd[5];
  fd_grad(f3_at, NULL, p, 3, fd);
  gradient3 g3 = __enzyme_autodiff_g3((void *)f3, p[0], p[1], p[2]);
  fd_check_array("f3", g3.df, fd, 3);
  fd_grad(f5_at, NULL, p, 5, fd);
  gradient5 g5 = __enzyme_autodiff_g5((void *)f5, p[0], p[1], p[2], p[3], p[4]);
  double got[5] = {g5.a, g5.in.b, g5.in.c, g5.d[0], g5.d[1]};
  fd_check_array("f5", got, fd, 5);
  return fd_finish();
}
