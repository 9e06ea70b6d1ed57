// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// A request declared to return int for a function whose tangent is a double.
int __enzyme_fwddiff_i(void *, ...);

double f(double x) { return x * x; }

int main(void) {
  // CHECK: return-type-mismatch.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}does not match
  return __enzyme_fwddiff_i((void *)f, 1.0, 1.0);
}
