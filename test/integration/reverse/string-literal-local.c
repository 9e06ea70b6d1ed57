// RUN: %exec-test %s driver 0 %t
// RUN: %exec-test %s driver 1 %t
// RUN: %exec-test %s driver 2 %t
// RUN: %exec-test %s driver 3 %t
// RUN: %exec-test %s plugin 0 %t
// RUN: %exec-test %s plugin 1 %t
// RUN: %exec-test %s plugin 2 %t
// RUN: %exec-test %s plugin 3 %t
// A local `char label[] = "..."` in differentiated code: -O0 initialises it with a memcpy from
// a constant string, which nothing else in the function accesses with a type (only printf and
// strlen read it). Such a copy carries neither derivatives nor pointers; it was refused in
// reverse mode ("cannot tell what type of data this call moves"), as in Enzyme's fbuff.cpp.
#include "fdcheck.h"
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double f(double x) {
  char label[] = "f(x) = x^2 sin(x)";
  double y = x * x * sin(x);
  fprintf(stderr, "%s: %zu chars, %.3f\n", label, strlen(label), y);
  return y + (double)strlen(label) * x;
}
static double f1(double x, void *c) {
  (void)c;
  return f(x);
}

int main(void) {
  double x = 0.6;
  double d = __enzyme_autodiff((void *)f, x);
  fd_check("df/dx (reverse)", d, fd_deriv1(f1, NULL, x));
  double t = __enzyme_fwddiff((void *)f, x, 1.0);
  fd_check("df/dx (forward)", t, fd_deriv1(f1, NULL, x));
  return fd_finish();
}
