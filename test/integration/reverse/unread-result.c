// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// A gradient request declared to return double for a function without 'out' arguments, its
// result kept in a variable nothing reads (Enzyme's ReverseMode/rwrloop.c): at -O0 the
// variable survives, and the request was refused ("declare it to return void"). Enzyme gives
// an undefined value; so does Umbra, and the gradient arrives through the shadow.
// errors/unread-result-read.c: a result that is read is still refused.
#include "fdcheck.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

static void sumsq(const double *x, double *out, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i] * sin(x[i]);
  *out = s;
}
static double sumsq_of(const double *x, void *c) {
  double out;
  sumsq(x, &out, *(int *)c);
  return out;
}
static double sumsq_v(double t, void *c) {
  (void)c;
  double x[3] = {0.3, t, 1.1};
  return sumsq_of(x, &(int){3});
}

int main(void) {
  double x[3] = {0.3, 0.7, 1.1}, dx[3] = {0, 0, 0};
  double out = 0, dout = 1;
  double unused = __enzyme_autodiff((void *)sumsq, enzyme_dup, x, dx, enzyme_dup, &out, &dout,
                                    enzyme_const, 3);
  (void)unused;
  fd_check("d/dx1 through the shadow", dx[1], fd_deriv1(sumsq_v, NULL, 0.7));
  fd_check("d/dx0 closed form", dx[0], 2 * 0.3 * sin(0.3) + 0.3 * 0.3 * cos(0.3));
  return fd_finish();
}
