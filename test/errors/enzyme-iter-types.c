// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// __enzyme_iter counts iterations: integers in and out, else a one-line error at the call.
double __enzyme_iter(double, double);
double __enzyme_autodiff(void *, ...);

double f(double x) {
  // CHECK: enzyme-iter-types.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}'__enzyme_iter' takes two integers and returns one of their type
  return x * __enzyme_iter(3, 1);
}

double df(double x) { return __enzyme_autodiff((void *)f, x); }
