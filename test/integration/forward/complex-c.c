// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 2 %t
// C99 complex arithmetic in forward mode: `*` and `/` (clang calls __muldc3/__divdc3, or
// __mulsc3/__divsc3 for float, at least on its NaN path) and every <complex.h> function with a
// rule, in double (operands as two doubles, results as {double, double}) and float (operands
// and results as <2 x float>). FD runs the double formula at the float-rounded inputs.
#include "fdcheck.h"
#include <complex.h>

extern int enzyme_dup;
double __enzyme_fwddiff(void *, ...);
float __enzyme_fwddiff_f(void *, ...);

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
  double x[4] = {0.6, -0.35, 0.9, 0.45};
  float xf[4];
  for (int i = 0; i < 4; i++) xf[i] = (float)x[i];
  double xr[4] = {xf[0], xf[1], xf[2], xf[3]};
  for (int j = 0; j < 4; j++) {
    double v[4] = {0, 0, 0, 0};
    float vf[4] = {0, 0, 0, 0};
    v[j] = 1;
    vf[j] = 1;
    char name[32];
    snprintf(name, sizeof name, "double d/dx%d", j);
    fd_check(name, __enzyme_fwddiff((void *)fd_, enzyme_dup, x, v), fd_dir(f_at, NULL, x, v, 4));
    snprintf(name, sizeof name, "float d/dx%d", j);
    fd_check_f(name, __enzyme_fwddiff_f((void *)ff_, enzyme_dup, xf, vf),
               fd_dir(f_at, NULL, xr, v, 4));
  }
  // A direction mixing every input.
  double v[4] = {0.3, -1.1, 0.7, 0.5};
  fd_check("double mixed direction", __enzyme_fwddiff((void *)fd_, enzyme_dup, x, v),
           fd_dir(f_at, NULL, x, v, 4));
  return fd_finish();
}
