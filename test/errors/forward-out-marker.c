// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// enzyme_out is a reverse-mode marker; forward mode must reject it.
extern int enzyme_out, enzyme_const;
double __enzyme_fwddiff(void *, ...);

double f(double x, double y) { return x * y; }

int main(void) {
  // CHECK: forward-out-marker.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}not valid in forward mode
  double d = __enzyme_fwddiff((void *)f, enzyme_out, 1.0, enzyme_const, 2.0);
  return d > 0;
}
