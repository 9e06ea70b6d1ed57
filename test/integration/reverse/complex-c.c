// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// C99 complex arithmetic in reverse mode: `*` and `/` (clang calls __muldc3/__divdc3, or
// __mulsc3/__divsc3 for float, at least on its NaN path) and every <complex.h> function with a
// rule, in double (operands as two doubles, results as {double, double}) and float (operands
// and results as <2 x float>). FD runs the double formula at the float-rounded inputs.
#include "fdcheck.h"
#include <complex.h>

extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);
float __enzyme_autodiff_f(void *, ...);
#ifdef FD_SELFTEST
float __enzyme_autodiff_f(void *f, ...) { (void)f; return 0; }
#endif

// One body for both precisions: CX(cexp) is cexp or cexpf.
#define BODY(R, CX)                                                                          \
  R _Complex z = x[0] + x[1] * I, w = x[2] + x[3] * I;                                      \
  R _Complex p = z * w, q = z / w;                                                          \
  R _Complex e = CX(cexp)(z) + CX(clog)(w) + CX(csqrt)(p) + CX(cpow)(z, w) + CX(csin)(q) +  \
                 CX(ccos)(z) + CX(ctan)(q) + CX(csinh)(w) + CX(ccosh)(q) + CX(ctanh)(z);    \
  return CX(creal)(e) + (R)0.7 * CX(cimag)(e) + CX(cabs)(p) * CX(carg)(q) +                 \
         CX(creal)(CX(conj)(q) * e);
#define DBL(name) name
#define FLT(name) name##f

double fd_(const double *x) { BODY(double, DBL) }
float ff_(const float *x) { BODY(float, FLT) }
static double f_at(const double *x, void *c) { (void)c; return fd_(x); }

int main(void) {
  double x[4] = {0.6, -0.35, 0.9, 0.45}, dx[4] = {0}, g[4];
  __enzyme_autodiff((void *)fd_, enzyme_dup, x, dx);
  fd_grad(f_at, NULL, x, 4, g);
  fd_check_array("double dx", dx, g, 4);

  float xf[4], dxf[4] = {0};
  for (int i = 0; i < 4; i++) xf[i] = (float)x[i];
  double xr[4] = {xf[0], xf[1], xf[2], xf[3]}, dxr[4];
  __enzyme_autodiff_f((void *)ff_, enzyme_dup, xf, dxf);
  fd_grad(f_at, NULL, xr, 4, g);
  for (int i = 0; i < 4; i++) {
    char name[32];
    snprintf(name, sizeof name, "float dx[%d]", i);
    fd_check_f(name, dxf[i], g[i]);
    dxr[i] = dxf[i];
  }
  (void)dxr;
  return fd_finish();
}
