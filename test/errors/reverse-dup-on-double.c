// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// In reverse mode a double passed by value cannot be 'dup' (it has no shadow
// memory): it is 'out' (adjoint returned) or 'const'.
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

double f(double x, double y) { return x * y; }

int main(void) {
  // CHECK: reverse-dup-on-double.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}'dup' is for pointers
  double d = __enzyme_autodiff((void *)f, enzyme_dup, 1.0, 1.0, enzyme_const, 2.0);
  return d > 0;
}
