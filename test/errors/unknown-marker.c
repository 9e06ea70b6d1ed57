// RUN: %clang -O1 -g -c -emit-llvm %s -o %t.bc
// RUN: rm -f %t.o
// RUN: not %umbra %t.bc -o %t.o 2>&1 | FileCheck %s
// RUN: test ! -e %t.o
// RUN: not %clang -O1 -g -fpass-plugin=%plugin -c %s -o %t.o 2>&1 | FileCheck %s
// A marker Umbra does not implement (Enzyme's enzyme_noret): the message names the marker and
// the call site and says it is not supported yet (instead of misreading it as an argument).
extern int enzyme_noret;
double __enzyme_fwddiff(void *, ...);

double f(double x) { return x * x; }

double use(double x) {
  // CHECK: unknown-marker.c:[[@LINE+1]]:{{[0-9]+}}: {{.*}}activity marker 'enzyme_noret' (argument 2 of '__enzyme_fwddiff') is not supported by umbra yet; supported markers: dup, dupnoneed, const, out, width, dupv, dupnoneedv
  return __enzyme_fwddiff((void *)f, enzyme_noret, x, 1.0);
}

int main(void) { return use(2.0) > 0; }
