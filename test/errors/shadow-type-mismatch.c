// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// An int passed as the tangent of a double parameter.
double __enzyme_fwddiff(void *, ...);

double f(double x, double y) { return x * y; }

int main(void) {
  // CHECK: shadow-type-mismatch.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}does not match
  double d = __enzyme_fwddiff((void *)f, 1.0, 1, 2.0, 0.0);
  return d > 0;
}
