// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// A request that runs out of arguments: f takes (x, y), the tangent of y is missing.
extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

double f(double x, double y) { return x * y; }

int main(void) {
  // CHECK: too-few-arguments.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}too few arguments
  double d = __enzyme_fwddiff((void *)f, 1.0, 1.0, 2.0);
  return d > 0;
}
