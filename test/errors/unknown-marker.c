// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// RUN: not %clang -O1 -g -fpass-plugin=%plugin -c %s -o %t.o 2>&1 | FileCheck %s
// Enzyme's vector-mode marker enzyme_width: the message names the marker and the call site
// and says it is not supported yet (instead of misreading it as an argument).
extern int enzyme_width, enzyme_dupv;
double __enzyme_fwddiff(void *, ...);

double f(double x) { return x * x; }

double use(double x, double *dx) {
  // CHECK: unknown-marker.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}activity marker 'enzyme_width' (argument 2 of '__enzyme_fwddiff') is not supported by umbra yet; supported markers: dup, dupnoneed, const, out
  return __enzyme_fwddiff((void *)f, enzyme_width, 2, enzyme_dupv, x, dx);
}

int main(void) { double dx[2] = {1, 0}; return use(2.0, dx) > 0; }
