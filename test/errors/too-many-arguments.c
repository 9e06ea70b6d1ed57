// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// A request with values left over after f's last parameter.
extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

double f(double x, double y) { return x * y; }

int main(void) {
  // CHECK: too-many-arguments.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}too many arguments
  double d = __enzyme_fwddiff((void *)f, 1.0, 1.0, enzyme_const, 2.0, 3.0);
  return d > 0;
}
