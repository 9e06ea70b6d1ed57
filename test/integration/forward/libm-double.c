// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 2 %t
// libm (double): each function differentiated on its own, at points away from
// kinks; binary functions along a direction mixing both arguments.
#include "fdcheck.h"

double __enzyme_fwddiff(void *, ...);

#define UNARY(fn)                                                          \
  double u_##fn(double x) { return fn(x); }                               \
  static double w_##fn(double x, void *c) { (void)c; return u_##fn(x); }
#define BINARY(fn)                                                         \
  double b_##fn(double x, double y) { return fn(x, y); }                  \
  static double w_##fn(const double *p, void *c) { (void)c; return b_##fn(p[0], p[1]); }

UNARY(sin) UNARY(cos) UNARY(tan) UNARY(asin) UNARY(acos) UNARY(atan)
UNARY(sinh) UNARY(cosh) UNARY(tanh) UNARY(exp) UNARY(exp2) UNARY(expm1)
UNARY(log) UNARY(log2) UNARY(log10) UNARY(log1p) UNARY(sqrt) UNARY(cbrt)
UNARY(erf) UNARY(fabs)
#define cube_pow(x) pow(x, 3.0) // constant exponent, negative base
UNARY(cube_pow)
BINARY(atan2) BINARY(pow) BINARY(hypot) BINARY(fmin) BINARY(fmax) BINARY(copysign)

#define CHECK1(fn, x0)                                                     \
  fd_check(#fn "(" #x0 ")", __enzyme_fwddiff((void *)u_##fn, (double)(x0), 1.0), \
           fd_deriv1(w_##fn, NULL, (x0)))
#define CHECK2(fn, x0, y0, dx, dy)                                         \
  do {                                                                     \
    double p[2] = {x0, y0}, v[2] = {dx, dy};                               \
    fd_check(#fn "(" #x0 "," #y0 ") dir (" #dx "," #dy ")",                \
             __enzyme_fwddiff((void *)b_##fn, p[0], v[0], p[1], v[1]),     \
             fd_dir(w_##fn, NULL, p, v, 2));                               \
  } while (0)

int main(void) {
  CHECK1(sin, 0.7); CHECK1(cos, 0.7); CHECK1(tan, 0.7);
  CHECK1(asin, 0.3); CHECK1(acos, 0.3); CHECK1(atan, -1.4);
  CHECK1(sinh, 0.5); CHECK1(cosh, -0.5); CHECK1(tanh, 0.8);
  CHECK1(exp, 0.9); CHECK1(exp2, 1.6); CHECK1(expm1, 1e-3); CHECK1(expm1, 0.9);
  CHECK1(log, 1.7); CHECK1(log2, 1.7); CHECK1(log10, 1.7);
  CHECK1(log1p, 0.25); CHECK1(log1p, -0.6);
  CHECK1(sqrt, 2.5); CHECK1(cbrt, 3.1); CHECK1(cbrt, -2.2);
  CHECK1(erf, 0.4); CHECK1(cube_pow, -1.5); CHECK1(fabs, -1.3); CHECK1(fabs, 0.8);
  CHECK2(atan2, 0.8, -0.6, 1.0, 0.0); CHECK2(atan2, 0.8, -0.6, 0.0, 1.0);
  CHECK2(atan2, -0.3, 1.2, 0.6, -0.8);
  CHECK2(pow, 1.3, 2.2, 1.0, 0.0); CHECK2(pow, 1.3, 2.2, 0.0, 1.0);
  CHECK2(pow, 0.7, -1.5, 0.6, 0.8); 
  CHECK2(hypot, 0.6, 1.1, 1.0, 0.0); CHECK2(hypot, 0.6, -1.1, 0.3, 0.9);
  CHECK2(fmin, 0.4, 0.9, 1.0, 0.0); CHECK2(fmin, 0.4, 0.9, 0.0, 1.0);
  CHECK2(fmin, 1.4, 0.9, 0.5, 0.7);
  CHECK2(fmax, 0.4, 0.9, 1.0, 0.0); CHECK2(fmax, 0.4, 0.9, 0.0, 1.0);
  CHECK2(fmax, 1.4, 0.9, 0.5, 0.7);
  CHECK2(copysign, 1.2, -0.5, 1.0, 0.0); CHECK2(copysign, 1.2, -0.5, 0.0, 1.0);
  CHECK2(copysign, -1.2, 0.5, 0.4, 0.6);
  return fd_finish();
}
