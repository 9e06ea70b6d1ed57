// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// Batched derivatives (enzyme_width) are forward mode only: in reverse mode the request is an
// error at its call site.
extern int enzyme_width, enzyme_dup, enzyme_out;
double __enzyme_autodiff(void *, ...);

double f(double x) { return x * x; }

double rev(double x) {
  // CHECK: batched-width-reverse.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}enzyme_width (batched derivatives) is supported in forward mode only
  return __enzyme_autodiff((void *)f, enzyme_width, 2, enzyme_out, x);
}
