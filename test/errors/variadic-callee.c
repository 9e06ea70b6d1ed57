// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// A variadic callee with differentiable arguments: refused, with where the function is
// defined (the error named only the function).
#include <stdarg.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

// CHECK: variadic-callee.c:[[@LINE+1]]: in function 'sum': cannot differentiate a variadic function
__attribute__((noinline)) static double sum(int n, ...) {
  va_list ap;
  va_start(ap, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += va_arg(ap, double);
  va_end(ap);
  return s;
}

double f(double x) { return sum(2, x * x, x); }

double grad(double x) { return __enzyme_autodiff((void *)f, x); }
